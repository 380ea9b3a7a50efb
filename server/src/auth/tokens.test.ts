import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { addTrader, signIn } from '../test/traders.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('tokens (docs/operations.md#tokens-and-sessions)', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let trader: Awaited<ReturnType<typeof addTrader>>;

  const me = (token?: string, scheme = 'Bearer') =>
    t.app.inject({
      method: 'GET',
      url: '/api/auth/me/',
      headers: token === undefined ? {} : { authorization: `${scheme} ${token}` },
    });
  const refresh = (token: string) => t.app.inject({ method: 'POST', url: '/api/auth/refresh/', payload: { refresh: token } });
  const logout = (options: { bearer?: string; refresh?: string; noBody?: boolean }) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/logout/',
      headers: options.bearer ? { authorization: `Bearer ${options.bearer}` } : {},
      ...(options.noBody ? {} : { payload: options.refresh ? { refresh: options.refresh } : {} }),
    });
  const newSession = () => signIn(t, trader.email, trader.password);

  /** A token with our claims, signed as the caller says. */
  const forge = async (secret: string, alg = 'HS256', claims: Record<string, unknown> = {}) => {
    const session = await newSession();
    const [, payload] = session.token.split('.');
    const original = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    return new SignJWT({ ...original, ...claims }).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));
  };

  beforeAll(async () => {
    t = await startTestApp({ clock });
    trader = await addTrader(t, { fullName: 'Token Tester' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('no token, another scheme or garbage: 401', async () => {
    const none = await me();
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ success: false, code: 'UNAUTHENTICATED' });
    const session = await newSession();
    expect((await me(session.token, 'Basic')).statusCode).toBe(401);
    expect((await me('not.a.jwt')).statusCode).toBe(401);
    expect((await me(`${session.token}x`)).statusCode).toBe(401);
    expect((await me(session.token)).statusCode).toBe(200);
  });

  it('a token signed with another key: 401', async () => {
    const token = await forge('another-secret-another-secret-another-secret-42');
    const res = await me(token);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ success: false, code: 'INVALID_TOKEN' });
  });

  it('alg:none and algorithms outside the allowlist (HS512 with the right key): 401', async () => {
    const session = await newSession();
    const [, payload] = session.token.split('.');
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`;
    expect((await me(unsigned)).statusCode).toBe(401);
    const noneWithSignature = `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.${session.token.split('.')[2]}`;
    expect((await me(noneWithSignature)).statusCode).toBe(401);
    const hs512 = await forge(t.config.jwtSecret, 'HS512');
    expect((await me(hs512)).statusCode).toBe(401);
    // Control: the same forging with the real key and algorithm is accepted, so the 401s above are the algorithm's.
    expect((await me(await forge(t.config.jwtSecret, 'HS256'))).statusCode).toBe(200);
  });

  it('a tampered payload (another user id) breaks the signature: 401', async () => {
    const session = await newSession();
    const [header, payload, signature] = session.token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const tampered = `${header}.${b64({ ...claims, sub: String(Number(claims.sub) + 1) })}.${signature}`;
    expect((await me(tampered)).statusCode).toBe(401);
  });

  it('an access token expires after ACCESS_TOKEN_TTL (60 minutes); a refresh token after 7 days', async () => {
    const session = await newSession();
    clock.advance(60 * 60 * 1000 - 1000);
    expect((await me(session.token)).statusCode).toBe(200);
    clock.advance(1000);
    const expired = await me(session.token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().code).toBe('INVALID_TOKEN');

    const other = await newSession();
    clock.advance(7 * 86_400 * 1000);
    expect((await refresh(other.refresh)).statusCode).toBe(401);
  });

  it('a refresh token used as a bearer, and an access token sent to refresh: 401', async () => {
    const session = await newSession();
    expect((await me(session.refresh)).statusCode).toBe(401);
    const res = await refresh(session.token);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ success: false, code: 'INVALID_TOKEN' });
    // Neither mistake ended the session.
    expect((await me(session.token)).statusCode).toBe(200);
    expect((await refresh(session.refresh)).statusCode).toBe(200);
  });

  it('refresh rotates: new tokens work, the access token carries the same identity', async () => {
    const session = await newSession();
    clock.advance(1000);
    const res = await refresh(session.refresh);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(Object.keys(data).sort()).toEqual(['access', 'refresh']);
    expect(data.refresh).not.toBe(session.refresh);
    const who = await me(data.access);
    expect(who.json().data).toEqual({ id: trader.userId, email: trader.email, full_name: 'Token Tester' });
    expect((await refresh(data.refresh)).statusCode).toBe(200);
  });

  it('a reused refresh token answers 401 and revokes its whole family, not other sessions', async () => {
    const session = await newSession();
    const bystander = await newSession();
    const first = (await refresh(session.refresh)).json().data;
    const second = (await refresh(first.refresh)).json().data;
    expect((await me(second.access)).statusCode).toBe(200);

    const reuse = await refresh(session.refresh); // a thief replays the first token
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().code).toBe('INVALID_TOKEN');
    expect((await refresh(second.refresh)).statusCode).toBe(401);
    expect((await me(second.access)).statusCode).toBe(401);
    expect((await me(session.token)).statusCode).toBe(401);

    expect((await me(bystander.token)).statusCode).toBe(200);
    expect((await refresh(bystander.refresh)).statusCode).toBe(200);
  });

  it('20 concurrent refreshes of one token: exactly one succeeds', async () => {
    const session = await newSession();
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(session.refresh)));
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(19);
    // The other 19 are reuse: the family ends, including what the winner received.
    const winner = answers.find((r) => r.statusCode === 200)!.json().data;
    expect((await refresh(winner.refresh)).statusCode).toBe(401);
    expect((await me(winner.access)).statusCode).toBe(401);
  });

  it('logout kills the access token at once, and the refresh token with it', async () => {
    const session = await newSession();
    const other = await newSession();
    expect((await me(session.token)).statusCode).toBe(200);
    const res = await logout({ bearer: session.token, refresh: session.refresh });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { logged_out: true } });
    expect((await me(session.token)).statusCode).toBe(401);
    expect((await refresh(session.refresh)).statusCode).toBe(401);
    // Logging out one session leaves the trader's other sign-ins alone.
    expect((await me(other.token)).statusCode).toBe(200);
  });

  it('logout with only the refresh token, or only the bearer, ends that session', async () => {
    const a = await newSession();
    expect((await logout({ refresh: a.refresh })).statusCode).toBe(200);
    expect((await me(a.token)).statusCode).toBe(401);
    const b = await newSession();
    expect((await logout({ bearer: b.token, noBody: true })).statusCode).toBe(200);
    expect((await refresh(b.refresh)).statusCode).toBe(401);
  });

  it('logout after the access token expired still ends the session', async () => {
    const session = await newSession();
    clock.advance(2 * 60 * 60 * 1000);
    expect((await me(session.token)).statusCode).toBe(401);
    expect((await logout({ bearer: session.token, noBody: true })).statusCode).toBe(200);
    expect((await refresh(session.refresh)).statusCode).toBe(401);
  });

  it('logout always answers 200: no token, garbage, twice', async () => {
    expect((await logout({ noBody: true })).statusCode).toBe(200);
    expect((await logout({ bearer: 'garbage', refresh: 'garbage' })).statusCode).toBe(200);
    const session = await newSession();
    expect((await logout({ bearer: session.token, refresh: session.refresh })).statusCode).toBe(200);
    expect((await logout({ bearer: session.token, refresh: session.refresh })).statusCode).toBe(200);
  });
});
