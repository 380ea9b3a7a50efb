import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { readApiLog } from '../api';
import { DEMO_PASSWORD, DEMO_USER, FakeAuthServer } from '../test/fakeAuthServer';
import { renderApp } from '../test/render';

const LOGIN = '/api/auth/login/';

function renderLogin(path = '/login') {
  renderApp(path);
}

async function signIn(email: string, password: string) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Email address'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('login screen (docs/screens.md#sign-in-and-session)', () => {
  let server: FakeAuthServer;

  beforeEach(() => {
    server = new FakeAuthServer().install();
  });

  it('has the title, prompt, required e-mail and password fields and the Sign in button', async () => {
    renderLogin();
    expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
    expect(screen.getByText('Please sign in to access your trading account.')).toBeInTheDocument();
    const email = screen.getByLabelText('Email address');
    expect(email).toHaveAttribute('type', 'email');
    expect(email).toBeRequired();
    const password = screen.getByLabelText('Password');
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toBeRequired();
    expect(screen.getByRole('button', { name: 'Sign in' })).toHaveAttribute('type', 'submit');
  });

  it('reads Signing in... while busy, then shows the app with the trader and keeps the tokens', async () => {
    let answer: () => void = () => {};
    // Real tokens of the fake server: the dashboard's own calls must not end the session.
    const issued = server.issue();
    server.script(LOGIN, () => new Promise((resolve) => (answer = () => resolve(loginOk(issued)))));
    renderLogin();
    await signIn('  demo@pipdesk.dev ', DEMO_PASSWORD);
    const busy = screen.getByRole('button', { name: 'Signing in...' });
    expect(busy).toBeDisabled();
    answer();
    expect(await screen.findByRole('heading', { name: 'Trading Dashboard' })).toBeInTheDocument();
    expect(screen.getByText('Demo Trader')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/');
    expect(server.callsTo(LOGIN)[0]?.body).toEqual({ email: 'demo@pipdesk.dev', password: DEMO_PASSWORD });
    expect(localStorage.getItem('pipdesk.accessToken')).toBe(issued.access);
    expect(localStorage.getItem('pipdesk.refreshToken')).toBe(issued.refresh);
    expect(JSON.stringify(readApiLog())).not.toContain(DEMO_PASSWORD);
  });

  it('returns to the page the trader asked for before signing in', async () => {
    renderLogin('/orders');
    await signIn(DEMO_USER.email, DEMO_PASSWORD);
    expect(await screen.findByRole('heading', { name: 'Order History' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/orders');
  });

  describe('error precedence (docs/screens.md#error-texts)', () => {
    it("shows the server's error", async () => {
      renderLogin();
      await signIn(DEMO_USER.email, 'wrong-password');
      expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');
      expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
      expect(window.location.pathname).toBe('/login');
    });

    it("shows the server's detail, else its message, when it sends no error", async () => {
      server.script(
        LOGIN,
        { status: 403, body: { detail: 'Account disabled' } },
        { status: 429, body: { message: 'Slow down' } },
      );
      renderLogin();
      await signIn(DEMO_USER.email, 'wrong-password');
      expect(await screen.findByRole('alert')).toHaveTextContent('Account disabled');
      await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
      expect(await screen.findByText('Slow down')).toBeInTheDocument();
    });

    it('shows Login failed when the server answers without any text', async () => {
      server.script(LOGIN, { status: 500 }, { status: 200, body: { success: false } });
      renderLogin();
      await signIn(DEMO_USER.email, DEMO_PASSWORD);
      expect(await screen.findByRole('alert')).toHaveTextContent(/^Login failed$/);
      await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
      expect(await screen.findByRole('alert')).toHaveTextContent(/^Login failed$/);
      expect(server.callsTo(LOGIN)).toHaveLength(2);
    });

    it("shows the spec's An error occurred during login. when the server cannot be reached, never Failed to fetch", async () => {
      server.script(LOGIN, 'network-error');
      renderLogin();
      await signIn(DEMO_USER.email, DEMO_PASSWORD);
      expect(await screen.findByRole('alert')).toHaveTextContent(/^An error occurred during login\.$/);
    });

    it('shows An error occurred during login. when the failure has no message at all', async () => {
      server.fetch.mockRejectedValueOnce(new TypeError(''));
      renderLogin();
      await signIn(DEMO_USER.email, DEMO_PASSWORD);
      expect(await screen.findByRole('alert')).toHaveTextContent(/^An error occurred during login\.$/);
    });
  });
});

function loginOk(tokens = { access: 'access-token', refresh: 'refresh-token' }) {
  return {
    status: 200,
    body: { success: true, data: { token: tokens.access, refresh: tokens.refresh, user: DEMO_USER, expires_in: 3600 } },
  };
}
