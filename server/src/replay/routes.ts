import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import { studentForCaller } from '../academy/scope.js';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import { operationRoutes } from '../http/operation-route.js';
import type { BarSeries, PairCatalog } from '../market/index.js';
import { replayDataPairs } from './data-range.js';
import type { ReplaySessions } from './sessions.js';

/** The replay calls (DESIGN §19, docs/replay.md#sessions-and-their-calls); the rules are in sessions.ts. */
export async function registerReplayRoutes(
  api: FastifyInstance,
  deps: {
    auth: Pick<AuthModule, 'authenticate'>;
    ctx: Pick<AppContext, 'db'>;
    sessions: ReplaySessions;
    /** Every pair's real series and the catalogue: which pairs a session can play. */
    data: ReadonlyMap<string, BarSeries>;
    pairs: PairCatalog;
  },
): Promise<void> {
  const route = operationRoutes(api, deps.auth);
  const { sessions } = deps;
  route(ops.createReplay, async ({ body }, { request }) => ({ replay: await sessions.create(request.auth.userId, body) }));
  // Data only: the series are loaded once per process, so the answer is the same for every trader.
  const iso = (ms: number) => new Date(ms).toISOString();
  const dataPairs = replayDataPairs(deps.data, (s) => deps.pairs.get(s)?.isActive === true).map((p) => ({
    symbol: p.symbol,
    data_from: iso(p.from),
    data_to: iso(p.to),
  }));
  route(ops.replayData, async () => ({ pairs: dataPairs }));
  route(ops.listReplays, async (_input, { request }) => ({ replays: await sessions.list(request.auth.userId) }));
  route(ops.getReplay, async ({ ids }, { request }) => sessions.get(request.auth.userId, ids.id));
  route(ops.deleteReplay, async ({ ids }, { request }) => ({ replay: await sessions.remove(request.auth.userId, ids.id) }));
  route(ops.playReplay, async ({ ids, body }, { request }) => ({
    replay: await sessions.play(request.auth.userId, ids.id, body.speed),
  }));
  route(ops.pauseReplay, async ({ ids }, { request }) => ({ replay: await sessions.pause(request.auth.userId, ids.id) }));
  route(ops.stepReplay, async ({ ids, body }, { request }) => ({
    replay: await sessions.step(request.auth.userId, ids.id, body.minutes),
  }));
  route(ops.seekReplay, async ({ ids, body }, { request }) => ({
    replay: await sessions.seek(request.auth.userId, ids.id, body.to),
  }));
  // The instructors' read-only view (DESIGN §19): the caller's scope as every student call checks it (docs/academy.md#scope).
  route(ops.studentReplays, async ({ ids }, { request }) => {
    const student = await studentForCaller(deps.ctx.db.kysely, request.auth, ids.id);
    return { replays: await sessions.ofStudent(student.userId) };
  });
}
