import { meterSchema, programSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRole } from '../auth/service.js';
import { ScriptedPriceSource } from '../market/index.js';
import { insertSignedInTrader } from '../test/factories.js';
import type { TestApp } from '../test/helpers.js';
import { clustered, startNodes, type TestNodes } from '../test/nodes.js';
import { TradingSocketClient } from '../test/trading-socket-client.js';
import { auditAccount } from '../trading/audit.js';

/**
 * Evaluations on two nodes (docs/evaluations.md#on-many-nodes, PostgreSQL + Redis): an attempt
 * started on one node is known to the other's book (its order rules apply there), and a breach
 * caused by the leader's tick while the trader trades on the other node is applied once: one
 * failure, one close, the ledger exact, the trader's socket on the other node told. Without
 * PostgreSQL and Redis it runs on one node.
 */
describe(
  clustered ? 'evaluations across two nodes' : 'evaluations on one node (two nodes need PostgreSQL and TEST_REDIS_URL)',
  () => {
    let nodes: TestNodes;
    const sources = [new ScriptedPriceSource('first'), new ScriptedPriceSource('second')];
    let leader: TestApp;
    let follower: TestApp;
    const tick = (bid: number) => sources[0]!.push({ symbol: 'EURUSD', bid, ask: bid + 0.0002, timestamp: Date.now() });

    beforeAll(async () => {
      tick(1.1);
      nodes = await startNodes(sources, { listen: true });
      ({ leader, follower } = nodes);
    });
    afterAll(async () => {
      await nodes?.close();
    });

    const call = (app: TestApp, headers: Record<string, string>, method: 'GET' | 'POST', url: string, payload?: unknown) =>
      app.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    it('knows the attempt on both nodes, and applies a breach once while the trader is on the other node', async () => {
      const admin = await insertSignedInTrader(leader, { withAccount: false });
      await setRole(leader.ctx, admin.email, 'admin');
      const student = await insertSignedInTrader(leader);
      const cohort = (
        await call(leader, admin.headers, 'POST', '/api/academy/cohorts/', {
          name: 'Two nodes',
          starting_balance: 100,
          leverage: 100,
        })
      ).json().data;
      await call(leader, admin.headers, 'POST', `/api/academy/cohorts/${cohort.id}/members/`, {
        students: [{ email: student.email, full_name: student.fullName }],
      });
      const program = programSchema.parse(
        (
          await call(leader, admin.headers, 'POST', `/api/academy/cohorts/${cohort.id}/programs/`, {
            name: 'Across nodes',
            initial_balance: 100,
            leverage: 100,
            phases: [{ name: 'Challenge', profit_target_pct: 10, max_daily_loss_pct: 5, max_loss_pct: 10, max_lots: 0.05 }],
          })
        ).json().data,
      );
      const started = await call(leader, admin.headers, 'POST', `/api/academy/programs/${program.id}/attempts/`, {
        all_members: true,
      });
      const account = started.json().data.started[0].account_id as number;
      const order = (quantity: number) =>
        call(follower, student.headers, 'POST', `/api/trading/place-market-order/?account=${account}`, {
          symbol: 'EURUSD',
          side: 'BUY',
          quantity,
        });

      // The other node's book has the attempt: its order rules apply there.
      await expect.poll(async () => (await order(0.06)).json().code, { timeout: 10_000 }).toBe('MAX_LOTS_EXCEEDED');
      const socket = await TradingSocketClient.signedIn(follower, student.token, account);
      try {
        // The other node quotes the leader's ticks from the bus: one now, so it has a fresh price.
        tick(1.1);
        await expect
          .poll(
            async () => (await call(follower, student.headers, 'GET', '/api/trading/current-prices/')).json().data?.EURUSD?.bid,
            {
              timeout: 10_000,
            },
          )
          .toBe(1.1);
        const opened = await order(0.01);
        expect(opened.statusCode, opened.body).toBe(201);
        const from = socket.mark();
        // Bought at 1.1002: a bid of 1.0952 is a loss of 5.00, the daily floor of 95.00.
        tick(1.0952);
        const failed = await socket.next('challenge_update', {
          from,
          where: (m) => m.data.status === 'failed',
          timeoutMs: 10_000,
        });
        expect(failed.data.failure).toMatchObject({ rule: 'daily_loss', equity: 95, floor: 95 });
        const meter = async (app: TestApp) =>
          meterSchema.parse((await call(app, student.headers, 'GET', `/api/trading/challenge/?account=${account}`)).json().data);
        await expect.poll(async () => (await meter(follower)).balance, { timeout: 10_000 }).toBe(95);
        expect((await meter(leader)).status).toBe('failed');
        const closes = await leader.ctx.db.kysely
          .selectFrom('orders')
          .select(['id', 'status'])
          .where('account_id', '=', account)
          .where('reason', '=', 'challenge_breach')
          .execute();
        expect(closes).toHaveLength(1);
        expect(await auditAccount(leader.ctx.db, account)).toEqual([]);
        expect((await order(0.01)).json().code).toBe('CHALLENGE_CLOSED');
        expect(socket.of('challenge_update', from).filter((m) => m.data.status === 'failed')).toHaveLength(1);
      } finally {
        socket.close();
      }
    });
  },
);
