import { vi } from 'vitest';

/** An unsigned JWT with these claims: the client only reads `exp` (and `iat`), it never verifies. */
export function makeJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

export const DEMO_USER = { id: 1, email: 'demo@pipdesk.dev', full_name: 'Demo Trader' };
export const DEMO_PASSWORD = 'demo-trader-2026';
const MINUTE = 60_000;

export interface RecordedCall {
  method: string;
  path: string;
  /** The query string's parameters (`?account=2` → `{account: '2'}`). */
  query: Record<string, string>;
  authorization: string | null;
  contentType: string | null;
  body: unknown;
}

/** An answer: a status with a JSON body, or no answer at all. */
export type Reply = { status: number; body?: unknown } | 'network-error';

/**
 * A stand-in for the server's auth calls (docs/api.md#auth-calls), installed as `fetch`: it issues JWTs
 * with real `exp` claims from the (possibly fake) clock, rotates single-use refresh tokens,
 * and records every request so tests can assert what the app sent.
 */
export class FakeAuthServer {
  readonly calls: RecordedCall[] = [];
  accessTtlMs = 60 * MINUTE;
  refreshTtlMs = 7 * 24 * 60 * MINUTE;
  private readonly access = new Set<string>();
  private readonly refresh = new Set<string>();
  private serial = 0;
  /** Per-path overrides: the next answers for a path, used before the normal behaviour. */
  private readonly scripted = new Map<string, Array<Reply | (() => Promise<Reply>)>>();
  /** Per-path handlers for calls beyond auth (feature tests add their endpoints here). */
  private readonly handlers = new Map<string, (call: RecordedCall, signedIn: boolean) => Reply>();

  readonly fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => this.handle(input, init));

  install(): this {
    vi.stubGlobal('fetch', this.fetch);
    return this;
  }

  /**
   * Issues a token pair as the login would. `remainingMs` makes the access token one issued
   * earlier, with that much of its `accessTtlMs` life left.
   */
  issue(remainingMs = this.accessTtlMs): { access: string; refresh: string } {
    const now = Date.now();
    const issuedAt = now - (this.accessTtlMs - remainingMs);
    this.serial++;
    const access = makeJwt({
      sub: DEMO_USER.id,
      typ: 'access',
      iat: Math.floor(issuedAt / 1000),
      exp: Math.floor((now + remainingMs) / 1000),
      n: this.serial,
    });
    const refresh = makeJwt({
      sub: DEMO_USER.id,
      typ: 'refresh',
      iat: Math.floor(issuedAt / 1000),
      exp: Math.floor((issuedAt + this.refreshTtlMs) / 1000),
      n: this.serial,
    });
    this.access.add(access);
    this.refresh.add(refresh);
    return { access, refresh };
  }

  /** Issues a pair and stores it as an earlier visit to the app would have left it. */
  signedInBefore(remainingMs = this.accessTtlMs): { access: string; refresh: string } {
    const tokens = this.issue(remainingMs);
    localStorage.setItem('pipdesk.accessToken', tokens.access);
    localStorage.setItem('pipdesk.refreshToken', tokens.refresh);
    return tokens;
  }

  /** Makes the server forget every access token (as after a restart with a new key). */
  revokeAccessTokens(): void {
    this.access.clear();
  }

  /** Queues answers for the next calls to `path` (e.g. '/api/auth/refresh/'). */
  script(path: string, ...replies: Array<Reply | (() => Promise<Reply>)>): void {
    this.scripted.set(path, [...(this.scripted.get(path) ?? []), ...replies]);
  }

  /**
   * Answers every call to `path` (e.g. '/api/trading/platform-data/') with `handler`, which is
   * told whether the call carried a valid access token; scripted answers still come first.
   */
  on(path: string, handler: (call: RecordedCall, signedIn: boolean) => Reply): void {
    this.handlers.set(path, handler);
  }

  callsTo(path: string): RecordedCall[] {
    return this.calls.filter((c) => c.path === path);
  }

  private async handle(input: RequestInfo | URL, init: RequestInit): Promise<Response> {
    const url = new URL(String(input), 'http://pipdesk.test');
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const call: RecordedCall = {
      method: init.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: headers.get('authorization'),
      contentType: headers.get('content-type'),
      body,
    };
    this.calls.push(call);
    const queue = this.scripted.get(url.pathname);
    const next = queue?.shift();
    const handler = this.handlers.get(url.pathname);
    const reply = next
      ? typeof next === 'function'
        ? await next()
        : next
      : handler
        ? handler(call, this.bearerValid(call))
        : this.answer(call);
    if (reply === 'network-error') throw new TypeError('Failed to fetch');
    return new Response(reply.body === undefined ? '' : JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json' },
    });
  }

  private bearerValid(call: RecordedCall): boolean {
    const token = call.authorization?.replace(/^Bearer /, '');
    if (!token || !this.access.has(token)) return false;
    const exp = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).exp as number;
    return exp * 1000 > Date.now();
  }

  private answer(call: RecordedCall): Reply {
    const unauthorized = { status: 401, body: { success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' } };
    switch (call.path) {
      case '/api/auth/login/': {
        const { email, password } = call.body as { email: string; password: string };
        if (email !== DEMO_USER.email || password !== DEMO_PASSWORD)
          return { status: 401, body: { success: false, error: 'Invalid email or password', code: 'INVALID_CREDENTIALS' } };
        const { access, refresh } = this.issue();
        return {
          status: 200,
          body: { success: true, data: { token: access, refresh, user: DEMO_USER, expires_in: this.accessTtlMs / 1000 } },
        };
      }
      case '/api/auth/refresh/': {
        const { refresh } = call.body as { refresh: string };
        // Single use, as on the real server.
        if (!this.refresh.delete(refresh)) return unauthorized;
        const next = this.issue();
        return { status: 200, body: { success: true, data: { access: next.access, refresh: next.refresh } } };
      }
      case '/api/auth/logout/':
        return { status: 200, body: { success: true, data: {} } };
      case '/api/auth/me/':
        return this.bearerValid(call) ? { status: 200, body: { success: true, data: DEMO_USER } } : unauthorized;
      default:
        return this.bearerValid(call) ? { status: 200, body: { success: true, data: { path: call.path } } } : unauthorized;
    }
  }
}
