import { authOperations, type UserDto } from '@pipdesk/contract';
import { type ApiClient, anyAnswer, NetworkError, type TokenChange, type TokenStore } from '../api';
import { isAccessTokenUsable, isRefreshTokenUsable, REFRESH_RETRY_MS, refreshDelay } from './tokenRules';

/**
 * `loggedOut`: the trader pressed Logout (here or in another tab of this browser), so the next
 * sign-in starts on the dashboard, not on the page they left: it may be someone else.
 */
export type SessionState =
  | { status: 'checking' }
  | { status: 'signed-out'; loggedOut?: boolean }
  | { status: 'signed-in'; user: UserDto; mustChangePassword?: boolean };

/** Logout gets a few seconds; the tokens are already gone locally by then. */
const LOGOUT_TIMEOUT_MS = 5_000;

/**
 * The trader's session (docs/screens.md#sign-in-and-session): checks the stored tokens at start-up, signs in and out,
 * and renews the access token 10 minutes before it expires. Framework-free so the rules
 * read in one place; `SessionProvider` exposes it to React.
 */
export class SessionController {
  private state: SessionState = { status: 'checking' };
  private readonly listeners = new Set<() => void>();
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private stopListening: (() => void)[] = [];
  /** Bumped by `stop()` so answers to a stopped controller's calls are ignored. */
  private generation = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly tokens: TokenStore,
  ) {}

  getState = (): SessionState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Checks the stored tokens: a usable access token, else a refresh, else the login screen. */
  async start(): Promise<void> {
    this.stop();
    const generation = this.generation;
    this.stopListening = [
      this.api.onSessionEnded(() => this.signedOut()),
      this.tokens.subscribe((change) => this.onTokensChanged(change)),
    ];
    this.setState({ status: 'checking' });
    const { access, refresh } = this.tokens.read();
    const now = Date.now();
    try {
      if (access && isAccessTokenUsable(access, now)) {
        this.scheduleRefresh();
      } else if (refresh && isRefreshTokenUsable(refresh, now)) {
        await this.api.refreshTokens();
      } else {
        this.tokens.clear();
        this.signedOut();
        return;
      }
      const user = await this.api.call(authOperations.me);
      if (generation === this.generation) this.setState({ status: 'signed-in', user });
    } catch (err) {
      if (generation !== this.generation) return;
      // The server refused the tokens: forget them. Without an answer, keep them so a reload can resume.
      if (!(err instanceof NetworkError)) this.tokens.clear();
      this.signedOut();
    }
  }

  /** Stops timers and listeners (the provider unmounted). */
  stop(): void {
    this.generation++;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    for (const stop of this.stopListening) stop();
    this.stopListening = [];
  }

  /** Signs in; throws the call's error for the login screen to word. */
  async login(email: string, password: string): Promise<void> {
    // A 401 here is the answer (wrong credentials), not an expired session.
    const data = await this.api.call(authOperations.login, { body: { email, password } }, { renewOn401: false });
    this.tokens.save({ access: data.token, refresh: data.refresh });
    // A temporary password: the change-password screen comes first (docs/screens.md#change-password).
    this.setState(
      data.must_change_password
        ? { status: 'signed-in', user: data.user, mustChangePassword: true }
        : { status: 'signed-in', user: data.user },
    );
  }

  /** The password was changed: the session goes on without the change-password screen. */
  passwordChanged(): void {
    if (this.state.status === 'signed-in' && this.state.mustChangePassword)
      this.setState({ status: 'signed-in', user: this.state.user });
  }

  /** Signs out at once locally; the server is told on the way, and its failure is ignored (docs/screens.md#sign-in-and-session). */
  async logout(): Promise<void> {
    const { access, refresh } = this.tokens.read();
    // Signed out before the tokens go: clearing them would otherwise sign out as "expired" first.
    this.signedOut(true);
    this.tokens.clear();
    if (!access && !refresh) return;
    try {
      // The answer is not read: whatever it says, this browser is signed out.
      await this.api.call(
        authOperations.logout,
        { body: refresh ? { refresh } : {} },
        { answer: anyAnswer, bearer: access, renewOn401: false, keepalive: true, signal: AbortSignal.timeout(LOGOUT_TIMEOUT_MS) },
      );
    } catch {
      // docs/screens.md#sign-in-and-session: a failed logout call is ignored; the tokens are already gone from this browser.
    }
  }

  private onTokensChanged(change: TokenChange): void {
    if (change.access) {
      this.scheduleRefresh();
      // Another tab signed in while this one showed the login screen.
      if (change.external && this.state.status === 'signed-out') void this.start();
    } else {
      clearTimeout(this.refreshTimer);
      // Cleared here or in another tab (logout there): this tab is signed out too. From another
      // tab it counts as a logout: that tab may have been a Logout, and the next trader's
      // sign-in must not open the last one's page.
      if (this.state.status === 'signed-in') this.signedOut(change.external);
    }
  }

  private scheduleRefresh(delay?: number): void {
    clearTimeout(this.refreshTimer);
    const { access } = this.tokens.read();
    const wait = delay ?? (access ? refreshDelay(access, Date.now()) : null);
    if (wait === null) return;
    this.refreshTimer = setTimeout(() => void this.autoRefresh(), wait);
  }

  private async autoRefresh(): Promise<void> {
    const generation = this.generation;
    try {
      await this.api.refreshTokens(); // the new tokens reschedule through onTokensChanged
    } catch (err) {
      if (generation !== this.generation) return;
      // No answer: try again shortly. Refused: the session is over (docs/screens.md#sign-in-and-session).
      if (err instanceof NetworkError) this.scheduleRefresh(REFRESH_RETRY_MS);
      else this.api.endSession();
    }
  }

  private signedOut(loggedOut = false): void {
    clearTimeout(this.refreshTimer);
    this.setState(loggedOut ? { status: 'signed-out', loggedOut } : { status: 'signed-out' });
  }

  private setState(next: SessionState): void {
    const same =
      this.state.status === next.status &&
      next.status !== 'signed-in' &&
      (next.status !== 'signed-out' || (this.state as { loggedOut?: boolean }).loggedOut === next.loggedOut);
    if (same) return;
    this.state = next;
    for (const l of [...this.listeners]) l();
  }
}
