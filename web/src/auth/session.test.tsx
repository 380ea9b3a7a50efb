import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../test/fakeAuthServer';
import { renderApp } from '../test/render';

const MINUTE = 60_000;
const REFRESH = '/api/auth/refresh/';
const ME = '/api/auth/me/';

const START = new Date('2026-03-02T09:00:00Z').getTime();

/** Moves the fake clock and runs what became due, inside act so React settles. */
async function advance(ms: number) {
  await act(() => vi.advanceTimersByTimeAsync(ms));
}

/** Moves the fake clock to `ms` after the test's start (when the app read the stored tokens). */
async function advanceTo(ms: number) {
  const to = START + ms - Date.now();
  if (to < 0) throw new Error(`the clock is already ${-to} ms past that moment`);
  await advance(to);
}

function storedTokens() {
  return { access: localStorage.getItem('pipdesk.accessToken'), refresh: localStorage.getItem('pipdesk.refreshToken') };
}

describe('session (docs/screens.md#sign-in-and-session)', () => {
  let server: FakeAuthServer;

  // The sign-in and password screens are lazy routes. findBy* below moves the fake clock 50 ms a
  // poll, so its 5 s run out in a few real milliseconds: a module still loading on a busy machine
  // would fail the test. Loaded once here, a lazy route renders on the next microtask.
  beforeAll(async () => {
    await Promise.all([import('./LoginPage'), import('../features/account/ChangePasswordPage')]);
  });

  beforeEach(() => {
    // Only what the session uses is faked: the UI library's own polling keeps real intervals.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(START);
    // Testing Library drives fake timers only when it sees a `jest` global; its findBy* polls
    // then move the fake clock by 50 ms steps, which is why timings below count from START.
    vi.stubGlobal('jest', { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) });
    server = new FakeAuthServer().install();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  describe('at start-up', () => {
    it('shows the loading text while the stored tokens are checked, then the trader', async () => {
      server.signedInBefore();
      let answerMe: () => void = () => {};
      server.script(
        ME,
        () =>
          new Promise(
            (resolve) =>
              (answerMe = () =>
                resolve({
                  status: 200,
                  body: { success: true, data: { id: 1, email: 'demo@pipdesk.dev', full_name: 'Demo Trader' } },
                })),
          ),
      );
      renderApp('/orders');
      await advance(0);
      expect(screen.getByText('Loading trading platform...')).toBeInTheDocument();
      answerMe();
      expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
      // The screen itself loads with its route (code splitting): a moment after the header.
      expect(await screen.findByRole('heading', { name: 'Order History' })).toBeInTheDocument();
      expect(server.callsTo(REFRESH)).toHaveLength(0);
    });

    it('shows the login screen when nothing is stored', async () => {
      renderApp('/orders');
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      expect(window.location.pathname).toBe('/login');
      expect(server.calls).toHaveLength(0);
    });

    it('treats an access token within 5 minutes of expiry as expired and refreshes first', async () => {
      const old = server.signedInBefore(4 * MINUTE + 59_000);
      renderApp();
      expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
      expect(authCalls(server)).toEqual([REFRESH, ME]);
      expect(storedTokens().access).not.toBe(old.access);
      expect(server.callsTo(ME)[0]?.authorization).toBe(`Bearer ${storedTokens().access}`);
    });

    it('uses an access token with just over 5 minutes left without refreshing first', async () => {
      server.signedInBefore(5 * MINUTE + 2_000);
      renderApp();
      expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
      expect(authCalls(server)).toEqual([ME]);
    });

    it('goes to the login screen and forgets the tokens when the refresh fails', async () => {
      server.signedInBefore(2 * MINUTE);
      server.script(REFRESH, { status: 401, body: { success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' } });
      renderApp('/news');
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      expect(window.location.pathname).toBe('/login');
      expect(storedTokens()).toEqual({ access: null, refresh: null });
      expect(server.callsTo(ME)).toHaveLength(0);
    });

    it('goes to the login screen when the refresh token has expired too, without calling the server', async () => {
      server.refreshTtlMs = 30 * MINUTE;
      server.signedInBefore(3 * MINUTE); // issued 57 minutes ago: the refresh token expired 27 minutes ago
      renderApp();
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      expect(server.calls).toHaveLength(0);
    });
  });

  describe('automatic refresh', () => {
    it('renews the access token 10 minutes before it expires, then again for the new token', async () => {
      server.signedInBefore(60 * MINUTE);
      renderApp();
      expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
      await advanceTo(50 * MINUTE - 1);
      expect(server.callsTo(REFRESH)).toHaveLength(0);
      await advanceTo(50 * MINUTE);
      expect(server.callsTo(REFRESH)).toHaveLength(1);
      const renewed = storedTokens();
      // The new token lives 60 minutes from its issue: the next refresh is 50 minutes later.
      await advanceTo(100 * MINUTE - 1);
      expect(server.callsTo(REFRESH)).toHaveLength(1);
      await advanceTo(100 * MINUTE);
      expect(server.callsTo(REFRESH)).toHaveLength(2);
      expect(server.callsTo(REFRESH)[1]?.body).toEqual({ refresh: renewed.refresh });
      expect(screen.getByText('Demo Trader')).toBeInTheDocument();
    });

    it('renews after 1 second when the token expires in less than 10 minutes', async () => {
      server.signedInBefore(8 * MINUTE);
      renderApp();
      expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
      expect(server.callsTo(REFRESH)).toHaveLength(0);
      await advanceTo(999);
      expect(server.callsTo(REFRESH)).toHaveLength(0);
      await advanceTo(1_000);
      expect(server.callsTo(REFRESH)).toHaveLength(1);
      // The renewed token (60 minutes) is not renewed again a second later.
      await advance(10 * MINUTE);
      expect(server.callsTo(REFRESH)).toHaveLength(1);
    });

    it('refreshes tokens that live 10 minutes or less at three quarters of their life, not every second', async () => {
      server.accessTtlMs = 8 * MINUTE; // a server configured with very short access tokens
      server.signedInBefore(8 * MINUTE);
      renderApp();
      expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
      await advanceTo(6 * MINUTE - 1);
      expect(server.callsTo(REFRESH)).toHaveLength(0);
      await advanceTo(6 * MINUTE);
      expect(server.callsTo(REFRESH)).toHaveLength(1);
      await advanceTo(12 * MINUTE - 1);
      expect(server.callsTo(REFRESH)).toHaveLength(1);
      await advanceTo(12 * MINUTE);
      expect(server.callsTo(REFRESH)).toHaveLength(2);
    });

    it('ends the session when the automatic refresh is refused', async () => {
      server.signedInBefore(60 * MINUTE);
      server.script(REFRESH, { status: 401, body: { success: false, error: 'Session revoked', code: 'INVALID_TOKEN' } });
      renderApp('/orders');
      expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
      await advanceTo(50 * MINUTE);
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      expect(window.location.pathname).toBe('/login');
      expect(storedTokens()).toEqual({ access: null, refresh: null });
    });

    it('tries again 30 seconds later when the automatic refresh gets no answer', async () => {
      server.signedInBefore(60 * MINUTE);
      server.script(REFRESH, 'network-error');
      renderApp();
      expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
      await advanceTo(50 * MINUTE);
      expect(server.callsTo(REFRESH)).toHaveLength(1);
      expect(screen.getByText('Demo Trader')).toBeInTheDocument();
      await advanceTo(50 * MINUTE + 30_000 - 1);
      expect(server.callsTo(REFRESH)).toHaveLength(1);
      await advanceTo(50 * MINUTE + 30_000);
      expect(server.callsTo(REFRESH)).toHaveLength(2);
      expect(screen.getByText('Demo Trader')).toBeInTheDocument();
    });
  });

  describe('a 401 from the server', () => {
    it('refreshes once, retries once, and when that fails too goes to /login', async () => {
      server.signedInBefore(60 * MINUTE);
      // The server refuses this session's access tokens, even the renewed one.
      server.script(
        ME,
        { status: 401, body: { success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' } },
        { status: 401, body: {} },
      );
      renderApp('/orders');
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      expect(window.location.pathname).toBe('/login');
      expect(authCalls(server)).toEqual([ME, REFRESH, ME]);
      expect(storedTokens()).toEqual({ access: null, refresh: null });
    });

    it('stays signed in when the retry with the renewed token succeeds', async () => {
      server.signedInBefore(60 * MINUTE);
      server.revokeAccessTokens();
      renderApp('/orders');
      expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
      expect(authCalls(server)).toEqual([ME, REFRESH, ME]);
      expect(window.location.pathname).toBe('/orders');
    });
  });

  describe('logout', () => {
    it('clears the tokens and shows the login screen even when the server call fails; a reload stays there', async () => {
      const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
      const tokens = server.signedInBefore(60 * MINUTE);
      server.script('/api/auth/logout/', { status: 500, body: { success: false, error: 'Internal error', code: 'INTERNAL' } });
      const view = renderApp('/news');
      await user.click(await screen.findByRole('button', { name: 'Logout' }));
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      expect(window.location.pathname).toBe('/login');
      expect(storedTokens()).toEqual({ access: null, refresh: null });
      const [logout] = server.callsTo('/api/auth/logout/');
      expect(logout).toMatchObject({
        method: 'POST',
        authorization: `Bearer ${tokens.access}`,
        body: { refresh: tokens.refresh },
      });

      view.unmount(); // the reload
      renderApp('/login');
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      // No timer of the old session fires a refresh later.
      await advance(60 * MINUTE);
      expect(server.callsTo(REFRESH)).toHaveLength(0);
    });

    it('clears the tokens when the logout call gets no answer', async () => {
      const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
      server.signedInBefore(60 * MINUTE);
      server.script('/api/auth/logout/', 'network-error');
      renderApp();
      await user.click(await screen.findByRole('button', { name: 'Logout' }));
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      expect(storedTokens()).toEqual({ access: null, refresh: null });
    });
  });

  it('signs this tab out when another tab logs out', async () => {
    server.signedInBefore(60 * MINUTE);
    renderApp();
    expect(await screen.findByText('Demo Trader')).toBeInTheDocument();
    localStorage.clear();
    act(() => {
      window.dispatchEvent(new StorageEvent('storage', { key: 'pipdesk.accessToken', newValue: null }));
    });
    expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
  });
});

/** The session's own calls, in order (the screens behind the sign-in make theirs too). */
function authCalls(server: FakeAuthServer): string[] {
  return server.calls.filter((c) => c.path.startsWith('/api/auth/')).map((c) => c.path);
}
