import { loginResponseSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { signedInWithRole } from '../test/academy.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { signedInTrader, signIn } from '../test/traders.js';

// docs/academy.md#temporary-passwords and POST auth/change-password/.

describe('change-password and temporary passwords', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ listen: true });
  });
  afterAll(async () => {
    await t.close();
  });

  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

  /** What the trading socket answers to `authenticate` with this token: the first message after it, or the close code. */
  async function socketAnswer(token: string): Promise<{ type?: string; code?: number }> {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws/trading/`);
    try {
      return await new Promise((resolve, reject) => {
        ws.on('message', (data) => {
          const message = JSON.parse(String(data)) as { type: string };
          if (message.type === 'auth_required') ws.send(JSON.stringify({ type: 'authenticate', token }));
          else if (message.type === 'connection_established') resolve({ type: message.type });
        });
        ws.once('close', (code) => resolve({ code }));
        ws.once('error', reject);
      });
    } finally {
      ws.close();
    }
  }

  it('a temporary password: login says so, every other call is 403 until it is changed, then all works', async () => {
    const admin = await signedInWithRole(t, 'admin');
    const cohort = await call(admin.session.token, 'POST', '/api/academy/cohorts/', {
      name: 'Temp',
      starting_balance: 1000,
      leverage: 10,
    });
    const email = `temp.${process.pid}@example.com`;
    const imported = await call(admin.session.token, 'POST', `/api/academy/cohorts/${cohort.json().data.id}/members/`, {
      students: [{ email, full_name: 'Tess Temp' }],
    });
    const temporary: string = imported.json().data.created[0].temporary_password;

    const first = await signIn(t, email, temporary);
    const second = await signIn(t, email, temporary);
    expect(first.must_change_password).toBe(true);

    // Blocked: trading, performance, the academy's other calls; open: me, academy/me, change-password.
    for (const url of ['/api/trading/platform-data/', '/api/trading/performance/', '/api/academy/cohorts/', '/api/news/']) {
      const res = await call(first.token, 'GET', url);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().code, url).toBe('PASSWORD_CHANGE_REQUIRED');
    }
    expect((await call(first.token, 'GET', '/api/auth/me/')).json().data.email).toBe(email);
    expect((await call(first.token, 'GET', '/api/academy/me/')).json().data).toMatchObject({
      must_change_password: true,
      role: 'trader',
    });
    expect(await socketAnswer(first.token)).toEqual({ code: 4001 });

    // Refused changes keep the flag: a wrong current password, the same password, a too short one.
    const refusals: Array<[object, RegExp]> = [
      [{ current_password: 'not-the-password', new_password: 'a-new-password-2027' }, /^current_password: /],
      [{ current_password: temporary, new_password: temporary }, /^new_password: must differ/],
      [{ current_password: temporary, new_password: 'short' }, /^new_password: must be 8 to 128/],
      [{ current_password: temporary }, /^new_password: /],
    ];
    for (const [body, message] of refusals) {
      const res = await call(first.token, 'POST', '/api/auth/change-password/', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatch(message);
    }
    expect((await call(first.token, 'GET', '/api/trading/platform-data/')).statusCode).toBe(403);

    const changed = await call(first.token, 'POST', '/api/auth/change-password/', {
      current_password: temporary,
      new_password: 'my own password 2027',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().data).toEqual({ changed: true, ended_sessions: 1 });

    // This session goes on, now unblocked; the other one ended; the temporary password is dead.
    const dashboard = await call(first.token, 'GET', '/api/trading/platform-data/');
    expect(dashboard.statusCode).toBe(200);
    expect(dashboard.json().data.trading_account.balance).toBe(1000);
    expect((await call(second.token, 'GET', '/api/auth/me/')).statusCode).toBe(401);
    const refresh = await t.app.inject({ method: 'POST', url: '/api/auth/refresh/', payload: { refresh: second.refresh } });
    expect(refresh.statusCode).toBe(401);
    expect(await socketAnswer(first.token)).toEqual({ type: 'connection_established' });
    const old = await t.app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email, password: temporary } });
    expect(old.statusCode).toBe(401);
    const fresh = await signIn(t, email, 'my own password 2027');
    expect(loginResponseSchema.parse(fresh).must_change_password).toBe(false);
    const user = await t.ctx.db.kysely.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    expect(user.must_change_password).toBe(0);
    // The password the student set is hashed at the full cost (docs/operations.md#passwords).
    expect(user.password_hash).toMatch(/^\$scrypt\$ln=17,/);
  });

  it('any user may change their password; it ends every other session, and needs a bearer', async () => {
    const trader = await signedInTrader(t);
    expect(trader.session.must_change_password).toBe(false);
    const other = await signIn(t, trader.email, trader.password);
    const res = await call(trader.session.token, 'POST', '/api/auth/change-password/', {
      current_password: trader.password,
      new_password: 'another long password',
    });
    expect(res.json().data).toEqual({ changed: true, ended_sessions: 1 });
    expect((await call(other.token, 'GET', '/api/trading/platform-data/')).statusCode).toBe(401);
    expect((await call(trader.session.token, 'GET', '/api/trading/platform-data/')).statusCode).toBe(200);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/auth/change-password/',
      payload: { current_password: 'x', new_password: 'another long password' },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('wrong current passwords count as failed sign-ins of the account: 429 after too many', async () => {
    const trader = await signedInTrader(t);
    let last = 0;
    for (let i = 0; i < 30 && last !== 429; i++) {
      last = (
        await call(trader.session.token, 'POST', '/api/auth/change-password/', {
          current_password: `wrong guess ${i}`,
          new_password: 'another long password',
        })
      ).statusCode;
      if (last !== 429) expect(last).toBe(400);
    }
    expect(last).toBe(429);
  });
});
