import { loginResponseSchema, userSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { addTrader, signIn } from '../test/traders.js';
import { disableTrader } from './service.js';

const login = (t: TestApp, payload: unknown, remoteAddress = '10.0.0.1') =>
  t.app.inject({ method: 'POST', url: '/api/auth/login/', payload: payload as object, remoteAddress });

describe('sign-in', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Many deliberate failures below: keep the throttle out of the way (throttle.test.ts covers it).
    t = await startTestApp({ env: { LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000', LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers token, refresh, the user and expires_in; the token opens /auth/me/', async () => {
    const trader = await addTrader(t, { email: 'ana.lima@example.com', fullName: 'Ana Lima' });
    const res = await login(t, { email: 'ana.lima@example.com', password: trader.password });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    const data = loginResponseSchema.parse(body.data);
    expect(data.user).toEqual({ id: trader.userId, email: 'ana.lima@example.com', full_name: 'Ana Lima' });
    expect(data.expires_in).toBe(60 * 60);
    expect(data.token).not.toBe(data.refresh);

    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Bearer ${data.token}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({
      success: true,
      data: { id: trader.userId, email: 'ana.lima@example.com', full_name: 'Ana Lima' },
    });
    expect(userSchema.strict().safeParse(me.json().data).success).toBe(true);
  });

  it('treats e-mails case-insensitively, both when creating and when signing in', async () => {
    const trader = await addTrader(t, { email: 'Mixed.Case@Example.COM' });
    expect(trader.email).toBe('mixed.case@example.com');
    const session = await signIn(t, '  MIXED.case@example.com ', trader.password);
    expect(session.user.email).toBe('mixed.case@example.com');
    await expect(addTrader(t, { email: 'mixed.CASE@example.com' })).rejects.toMatchObject({ status: 409 });
  });

  it('gives the same 401 for a wrong password, an unknown e-mail and a disabled trader', async () => {
    const trader = await addTrader(t);
    const disabled = await addTrader(t);
    await disableTrader(t.ctx, disabled.email);
    const answers = await Promise.all([
      login(t, { email: trader.email, password: 'not-the-password' }),
      login(t, { email: 'nobody-here@example.com', password: 'not-the-password' }),
      login(t, { email: disabled.email, password: disabled.password }),
    ]);
    for (const res of answers) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ success: false, error: 'Invalid email or password', code: 'INVALID_CREDENTIALS' });
    }
  });

  it('spends the same hashing time on an unknown e-mail as on a wrong password (no timing oracle)', async () => {
    const trader = await addTrader(t);
    const time = async (email: string) => {
      const started = performance.now();
      const res = await login(t, { email, password: 'wrong-password-123' });
      expect(res.statusCode).toBe(401);
      return performance.now() - started;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await time(trader.email));
      unknown.push(await time(`ghost-${i}@example.com`));
    }
    // A real scrypt at N=2^17 takes hundreds of ms; skipping it would take a few ms.
    expect(median(known)).toBeGreaterThan(50);
    // Wide bounds: the machine is shared; without the dummy hash the ratio would be about 0.01.
    expect(median(unknown) / median(known)).toBeGreaterThan(0.33);
    expect(median(unknown) / median(known)).toBeLessThan(3);
  });

  it('never truncates a password: 128 characters must all match', async () => {
    const long = `${'p'.repeat(100)}${'q'.repeat(28)}`;
    const trader = await addTrader(t, { password: long });
    expect((await login(t, { email: trader.email, password: long.slice(0, 127) })).statusCode).toBe(401);
    expect((await login(t, { email: trader.email, password: `${long.slice(0, 127)}x` })).statusCode).toBe(401);
    expect((await login(t, { email: trader.email, password: long })).statusCode).toBe(200);
  });

  it('rejects bad input with a 400 naming the field, never a 500', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ password: 'whatever-123' }, /^email: /],
      [{ email: 'a@example.com' }, /^password: /],
      [{ email: 'not-an-email', password: 'whatever-123' }, /^email: must be an e-mail address/],
      [{ email: 42, password: 'whatever-123' }, /^email: /],
      [{ email: 'a@example.com', password: ['x'] }, /^password: /],
      [{ email: 'a@example.com', password: '' }, /^password: is required/],
      [{ email: 'a@example.com', password: 'x'.repeat(129) }, /^password: must be at most 128 characters/],
      [{ email: `${'a'.repeat(250)}@example.com`, password: 'whatever-123' }, /^email: /],
      [{ email: 'a@example.com', password: 'whatever-123', remember: true }, /^Unknown field: remember/],
      [['a@example.com', 'whatever-123'], /./],
      ['email=a@example.com', /./],
      [null, /./],
    ];
    for (const [payload, message] of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login/',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const body = res.json();
      expect(body.success).toBe(false);
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.error, JSON.stringify(payload)).toMatch(message);
    }
    const noBody = await t.app.inject({ method: 'POST', url: '/api/auth/login/' });
    expect(noBody.statusCode).toBe(400);
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a@example.com&password=whatever-123',
    });
    expect(form.statusCode).toBe(415);
    const refresh = await t.app.inject({ method: 'POST', url: '/api/auth/refresh/', payload: { refresh: 7 } });
    expect(refresh.statusCode).toBe(400);
    expect(refresh.json().error).toMatch(/^refresh: /);
    const refreshExtra = await t.app.inject({
      method: 'POST',
      url: '/api/auth/refresh/',
      payload: { refresh: 'x', access: 'y' },
    });
    expect(refreshExtra.json()).toMatchObject({ error: 'Unknown field: access', code: 'VALIDATION_ERROR' });
  });

  it('ends the bearer session on logout even when the body is malformed (logout always answers 200)', async () => {
    const trader = await addTrader(t);
    const session = await signIn(t, trader.email, trader.password);
    const auth = { authorization: `Bearer ${session.token}` };
    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout/',
      headers: auth,
      payload: { refresh: 123, all: true },
    });
    expect(logout.statusCode).toBe(200);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me/', headers: auth });
    expect(me.statusCode).toBe(401);
  });

  it('answers the unused demo calls with the spec text once signed in', async () => {
    const trader = await addTrader(t);
    const session = await signIn(t, trader.email, trader.password);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/demo/account/create/',
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: 'Demo trading mode not yet implemented', code: 'DEMO_NOT_IMPLEMENTED' });
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/demo/account/status/',
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(status.json().error).toBe('Demo trading mode not yet implemented');
  });
});
