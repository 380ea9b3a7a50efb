import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USER, FakeAuthServer } from '../test/fakeAuthServer';
import { renderApp } from '../test/render';

async function signIn() {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Email address'), DEMO_USER.email);
  await user.type(screen.getByLabelText('Password'), DEMO_PASSWORD);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('the way back after signing in', () => {
  beforeEach(() => {
    new FakeAuthServer().install();
  });

  it('never leaves the app for an address that only looks like a path (//host, /\\host)', async () => {
    for (const path of ['//evil.example/steal', '/\\evil.example/steal']) {
      const { unmount } = renderApp(`${window.location.origin}${path}`);
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      await signIn();
      expect(await screen.findByRole('heading', { name: 'Trading Dashboard' })).toBeInTheDocument();
      expect(window.location.origin).toBe('http://localhost:3000');
      expect(window.location.pathname).toBe('/');
      unmount();
      localStorage.clear();
      window.history.replaceState(null, '', '/');
    }
  });
});

describe('the way back after Logout (docs/screens.md#sign-in-and-session)', () => {
  let server: FakeAuthServer;

  beforeEach(() => {
    server = new FakeAuthServer().install();
  });

  it('returns to the last page after the session expired, but after an explicit Logout lands on the dashboard', async () => {
    server.signedInBefore();
    // The server refuses the stored session: its access token and the refresh.
    server.revokeAccessTokens();
    server.script('/api/auth/refresh/', {
      status: 401,
      body: { success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' },
    });
    renderApp('/orders');
    expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
    await signIn();
    expect(await screen.findByRole('heading', { level: 1, name: 'Order History' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/orders');

    await userEvent.setup().click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
    await signIn();
    expect(await screen.findByRole('heading', { name: 'Trading Dashboard' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/');
  });

  it('after a Logout in another tab of this browser, too', async () => {
    server.signedInBefore();
    renderApp('/orders');
    expect(await screen.findByRole('heading', { level: 1, name: 'Order History' })).toBeInTheDocument();
    localStorage.clear();
    act(() => {
      window.dispatchEvent(new StorageEvent('storage', { key: 'pipdesk.accessToken', newValue: null }));
    });
    expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
    await signIn();
    expect(await screen.findByRole('heading', { name: 'Trading Dashboard' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/');
  });
});
