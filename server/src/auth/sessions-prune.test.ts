import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { addTrader, signIn } from '../test/traders.js';

const DAY = 86_400_000;

describe('expired sessions are pruned', () => {
  let t: TestApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(async () => {
    await t.close();
  });

  const rows = async () => {
    const sessions = await sql<{ n: number }>`select count(*) as n from sessions`.execute(t.ctx.db.kysely);
    const tokens = await sql<{ n: number }>`select count(*) as n from refresh_tokens`.execute(t.ctx.db.kysely);
    return { sessions: Number(sessions.rows[0]!.n), tokens: Number(tokens.rows[0]!.n) };
  };

  it('a sign-in deletes sessions and refresh tokens that expired over a day ago, and keeps live ones', async () => {
    const trader = await addTrader(t);
    const old = await signIn(t, trader.email, trader.password);
    const refreshDays = t.ctx.config.refreshTokenTtlSeconds / 86_400;
    expect(await rows()).toEqual({ sessions: 1, tokens: 1 });

    // Still inside the lifetime plus a day: kept.
    clock.advance((refreshDays + 1) * DAY - 60_000);
    const recent = await signIn(t, trader.email, trader.password);
    expect(await rows()).toEqual({ sessions: 2, tokens: 2 });

    // Past the old session's lifetime plus a day (and an hour since the last prune): gone.
    clock.advance(2 * 3_600_000);
    const fresh = await signIn(t, trader.email, trader.password);
    expect(await rows()).toEqual({ sessions: 2, tokens: 2 });

    // The pruned session's tokens are refused; the live ones still work.
    const me = (token: string) =>
      t.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Bearer ${token}` } });
    const refresh = (token: string) => t.app.inject({ method: 'POST', url: '/api/auth/refresh/', payload: { refresh: token } });
    expect((await refresh(old.refresh)).statusCode).toBe(401);
    expect((await me(fresh.token)).statusCode).toBe(200);
    expect((await refresh(recent.refresh)).statusCode).toBe(200);
  });

  it('a refresh prunes too: tokens spent over a day ago go, and reusing one still ends its session', async () => {
    const trader = await addTrader(t);
    const session = await signIn(t, trader.email, trader.password);
    const refresh = (token: string) => t.app.inject({ method: 'POST', url: '/api/auth/refresh/', payload: { refresh: token } });
    const spentTokens = async () => {
      const r = await sql<{ n: number }>`select count(*) as n from refresh_tokens where used_at is not null`.execute(
        t.ctx.db.kysely,
      );
      return Number(r.rows[0]!.n);
    };
    // A session that only refreshes (nobody signs in): three tokens spent, one live.
    let current = session.refresh;
    const spent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await refresh(current);
      expect(res.statusCode).toBe(200);
      spent.push(current);
      current = res.json().data.refresh;
      clock.advance(60_000);
    }
    expect(await spentTokens()).toBeGreaterThanOrEqual(3);

    // Over a day later (and an hour since the last prune), well inside the tokens' lifetime, a refresh prunes.
    clock.advance(DAY + 2 * 3_600_000);
    const res = await refresh(current);
    expect(res.statusCode).toBe(200);
    current = res.json().data.refresh;
    expect(await spentTokens()).toBe(1); // the one this refresh spent
    const live = await sql<{ n: number }>`select count(*) as n from refresh_tokens where used_at is null`.execute(
      t.ctx.db.kysely,
    );
    expect(Number(live.rows[0]!.n)).toBeGreaterThanOrEqual(1);

    // A pruned spent token is still refused, and its reuse ends the session: the live token dies with it.
    expect((await refresh(spent[0]!)).statusCode).toBe(401);
    expect((await refresh(current)).statusCode).toBe(401);
  });
});
