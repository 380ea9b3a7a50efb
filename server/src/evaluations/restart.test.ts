import { meterSchema, programSchema } from '@pipdesk/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { academyCast, api } from '../test/academy.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';

/**
 * An evaluation across a restart (docs/evaluations.md#on-many-nodes): a day that began while no
 * server ran is recorded when one starts, once; a failed attempt stays failed and its account
 * read-only; an active one is judged again from its recorded floors.
 */
describe('evaluations across a restart', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('records the day that began while stopped, keeps a failure, and judges the active attempt from its floors', async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    const clock = new ManualClock(Date.UTC(2026, 10, 2, 10, 0, 0));
    const prices = new ScriptedPriceSource();
    const quote = (bid: number) => prices.push({ symbol: 'EURUSD', bid, ask: bid + 0.0002, timestamp: clock.now() });
    const start = () =>
      startTestApp({
        clock,
        priceSource: prices,
        dataDir: db.dataDir,
        ...(db.pgSchema ? { pgSchema: db.pgSchema } : {}),
        keep: true,
        env: { ACCESS_TOKEN_TTL_MINUTES: '1000000' },
      });
    quote(1.1);
    let t: TestApp = await start();
    const cast = await academyCast(t);
    const created = await api(t, cast.instructorA, 'POST', `/api/academy/cohorts/${cast.cohortA.id}/programs/`, {
      name: 'Across a restart',
      initial_balance: 100,
      leverage: 100,
      allow_self_start: true,
      time_zone: 'Europe/Prague',
      phases: [{ name: 'Challenge', profit_target_pct: 10, max_daily_loss_pct: 5, max_loss_pct: 10 }],
    });
    const programId = programSchema.parse(created.json().data).id;
    const started = await api(t, cast.instructorA, 'POST', `/api/academy/programs/${programId}/attempts/`, {
      user_ids: [cast.memberA.userId, cast.memberB.userId, cast.instructorB.userId],
    });
    const [a] = started.json().data.started as Array<{ account_id: number }>;
    const account = a!.account_id;
    const meter = async () =>
      meterSchema.parse((await api(t, cast.memberA, 'GET', `/api/trading/challenge/?account=${account}`)).json().data);
    // Today: a profit of 3.00 closed, so tomorrow's basis is 103.00 and its floor 98.00.
    const on = `/api/trading/place-market-order/?account=${account}`;
    expect((await api(t, cast.memberA, 'POST', on, { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 })).statusCode).toBe(201);
    quote(1.1032);
    expect((await api(t, cast.memberA, 'POST', on, { symbol: 'EURUSD', side: 'SELL', quantity: 0.01 })).statusCode).toBe(201);
    expect((await meter()).daily_loss_floor).toBe(95);
    await t.close();

    // Stopped over midnight in Prague (23:00 UTC).
    clock.set(Date.UTC(2026, 10, 3, 8, 0, 0));
    quote(1.1032);
    t = await start();
    const after = await meter();
    expect(after).toMatchObject({
      day_basis: 103,
      daily_loss_floor: 98,
      status: 'active',
      day_ends_at: '2026-11-03T23:00:00.000Z',
    });

    // A loss of 5.00 today is a breach now (103 − 5 = 98), judged from the recorded floor.
    expect((await api(t, cast.memberA, 'POST', on, { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 })).statusCode).toBe(201);
    quote(1.0984); // bought at 1.1034: −5.00
    await expect.poll(async () => (await meter()).status, { timeout: 5_000 }).toBe('failed');
    expect((await meter()).failure).toMatchObject({ rule: 'daily_loss', floor: 98 });
    await t.close();

    t = await start();
    cleanups.push(() => t.close());
    expect((await meter()).status).toBe('failed');
    const refused = await api(t, cast.memberA, 'POST', on, { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 });
    expect(refused.json().code).toBe('CHALLENGE_CLOSED');
  });
});
