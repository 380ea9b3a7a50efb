import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { operationRoutes, pageAnswer } from '../http/operation-route.js';
import type { Bus } from '../realtime/bus.js';
import { StandingsCache } from './standings.js';
import {
  type ConsoleDeps,
  commentOnTrade,
  leaderboardOf,
  resetStudent,
  rosterOf,
  studentDashboard,
  studentJournal,
  studentOrders,
  studentPerformance,
} from './students.js';

/**
 * The instructor's console (docs/academy.md#the-instructors-console, docs/api.md#academy): the
 * live roster, the leaderboard, a student's read-only data, reset and comments. Routes only parse
 * and answer; scope and rules are in students.ts.
 */
export async function registerConsoleRoutes(
  api: FastifyInstance,
  deps: { auth: Pick<AuthModule, 'authenticate'>; console: ConsoleDeps; bus?: Pick<Bus, 'subscribe'> },
): Promise<void> {
  let c = deps.console;
  const { bus } = deps;
  if (bus) {
    // The roster's and leaderboard's database part changes only when money or orders move, which
    // every node hears on the bus (standings.ts): the cache forgets everything at each such event.
    const cache = new StandingsCache();
    const forget = () => cache.invalidate();
    const unsubscribe = [bus.subscribe('execution', forget), bus.subscribe('message', forget), bus.subscribe('resync', forget)];
    api.addHook('onClose', async () => {
      for (const off of unsubscribe) off();
    });
    c = { ...c, cache };
  }
  const route = operationRoutes(api, deps.auth);

  route(ops.cohortRoster, async ({ ids }, { request }) => rosterOf(c, request.auth, ids.id));
  route(ops.cohortLeaderboard, async ({ ids }, { request }) => leaderboardOf(c, request.auth, ids.id));
  // `account`: one of the student's accounts (docs/accounts.md), checked after the caller's scope.
  route(ops.studentDashboard, async ({ ids, account }, { request }) => studentDashboard(c, request.auth, ids.id, account));
  // Like trading/orders/ and trading/journal/: the page shape, no envelope.
  route(ops.studentOrders, async ({ ids, query, account }, { request }) =>
    pageAnswer(request, await studentOrders(c, request.auth, ids.id, query, account)),
  );
  route(ops.studentPerformance, async ({ ids, account }, { request }) => studentPerformance(c, request.auth, ids.id, account));
  route(ops.studentJournal, async ({ ids, query, account }, { request }) =>
    pageAnswer(request, await studentJournal(c, request.auth, ids.id, query, account)),
  );
  route(ops.resetStudent, async ({ ids, idempotencyKey }, { request }) => {
    const { response, replayed } = await resetStudent(c, request.auth, ids.id, idempotencyKey);
    return { data: response, replayed };
  });
  route(ops.commentOnTrade, async ({ ids, body }, { request }) => commentOnTrade(c, request.auth, ids.id, body));
}
