import type { AcademyMeDto } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_USER, FakeAuthServer } from '../../test/fakeAuthServer';
import { renderApp } from '../../test/render';
import { makeMe, serveAcademy } from '../academy/testAcademy';
import { ok } from '../trading/testSupport';
import { FORCED_PROMPT, PASSWORD_CHANGED, PASSWORDS_DIFFER } from './ChangePasswordPage';

const CHANGE = '/api/auth/change-password/';
let server: FakeAuthServer;
let me: AcademyMeDto;

/** Typing passwords on a loaded two-core machine takes longer than vitest's default 5 s. */
const SLOW = { timeout: 30_000 };

beforeEach(() => {
  server = new FakeAuthServer().install();
  me = makeMe({ role: 'trader' });
  serveAcademy(server, () => me);
  server.on(CHANGE, () => {
    me = { ...me, must_change_password: false };
    return ok({ changed: true, ended_sessions: 1 });
  });
});

/** The login answer of a temporary password. */
function scriptTemporaryLogin() {
  const { access, refresh } = server.issue();
  me = { ...me, must_change_password: true };
  server.script('/api/auth/login/', {
    status: 200,
    body: { success: true, data: { token: access, refresh, user: DEMO_USER, expires_in: 3600, must_change_password: true } },
  });
}

async function fillPasswords(current: string, next: string, confirm = next) {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText(/Temporary password|Current password/), current);
  await user.type(screen.getByLabelText('New password'), next);
  await user.type(screen.getByLabelText('Confirm new password'), confirm);
  await user.click(screen.getByRole('button', { name: 'Change password' }));
}

describe('a temporary password (docs/screens.md#change-password)', SLOW, () => {
  it('shows the change-password screen at once after signing in, and nothing else until it is changed', async () => {
    const user = userEvent.setup();
    scriptTemporaryLogin();
    renderApp('/orders');
    await user.type(await screen.findByLabelText('Email address'), 'new@school.test');
    await user.type(screen.getByLabelText('Password'), 'Tmp-ada-7Qx');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Change password' })).toBeInTheDocument();
    expect(screen.getByText(FORCED_PROMPT)).toBeInTheDocument();
    expect(window.location.pathname).toBe('/account/password');
    // No app around it: no header, no navigation to another screen.
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();

    await fillPasswords('Tmp-ada-7Qx', 'a-new-secret-1', 'a-new-secret-2');
    expect(screen.getByText(PASSWORDS_DIFFER)).toBeInTheDocument();
    expect(server.callsTo(CHANGE)).toHaveLength(0);

    await user.clear(screen.getByLabelText('Confirm new password'));
    await user.type(screen.getByLabelText('Confirm new password'), 'a-new-secret-1');
    await user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeInTheDocument();
    expect(server.callsTo(CHANGE)[0]?.body).toEqual({ current_password: 'Tmp-ada-7Qx', new_password: 'a-new-secret-1' });
    expect(window.location.pathname).toBe('/');
  });

  it('keeps a reloaded session with a temporary password on the change-password screen', async () => {
    server.signedInBefore();
    me = makeMe({ role: 'trader', must_change_password: true });
    renderApp('/news');
    expect(await screen.findByText(FORCED_PROMPT)).toBeInTheDocument();
    expect(window.location.pathname).toBe('/account/password');
  });

  it('checks the new password as the server does before sending it', async () => {
    server.signedInBefore();
    me = makeMe({ role: 'trader', must_change_password: true });
    renderApp('/');
    await screen.findByText(FORCED_PROMPT);
    await fillPasswords('Tmp-ada-7Qx', 'short');
    expect(screen.getByText('Password must be 8 to 128 characters')).toBeInTheDocument();
    expect(server.callsTo(CHANGE)).toHaveLength(0);
  });
});

describe('changing a password from the header', SLOW, () => {
  beforeEach(() => {
    server.signedInBefore();
  });

  it('opens from the header and confirms the change', async () => {
    const user = userEvent.setup();
    renderApp('/');
    await user.click(await screen.findByRole('link', { name: 'Change password' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Change password' })).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeInTheDocument();
    await fillPasswords('demo-trader-2026', 'a-new-secret-1');
    expect(await screen.findByText(PASSWORD_CHANGED)).toBeInTheDocument();
    expect(window.location.pathname).toBe('/account/password');
  });

  it("shows the server's refusal", async () => {
    server.script(CHANGE, {
      status: 400,
      body: { success: false, error: 'Current password is wrong', code: 'VALIDATION_ERROR' },
    });
    renderApp('/account/password');
    await screen.findByRole('heading', { level: 1, name: 'Change password' });
    await fillPasswords('not-it-at-all', 'a-new-secret-1');
    const form = screen.getByRole('form', { name: 'Change password' });
    await waitFor(() => expect(within(form).getByRole('alert')).toHaveTextContent('Current password is wrong'));
  });
});
