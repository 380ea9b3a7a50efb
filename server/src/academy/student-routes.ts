import {
  type CommentResponse,
  commentRequestSchema,
  type JournalPage,
  journalQuerySchema,
  type LeaderboardDto,
  type OrdersPage,
  ordersQuerySchema,
  type PerformanceDto,
  type PlatformDataDto,
  type ResetResponse,
  type RosterDto,
} from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AuthModule } from '../auth/index.js';
import { parseInput } from '../core/validate.js';
import { errors } from '../errors.js';
import type { Bus } from '../realtime/bus.js';
import { parseIdempotencyKey } from '../trading/idempotency.js';
import { pageLink, pathId } from '../trading/routes.js';
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

type IdParams = { Params: { id: string } };

/** A page answer (orders/, journal/): the spec's shape, no envelope, links keeping the query. */
function pageAnswer<T>(request: FastifyRequest, page: { count: number; page: number; pageSize: number; results: T[] }) {
  const lastPage = Math.max(1, Math.ceil(page.count / page.pageSize));
  return {
    count: page.count,
    next: page.page < lastPage ? pageLink(request, page.page + 1) : null,
    previous: page.page > 1 ? pageLink(request, Math.min(page.page - 1, lastPage)) : null,
    results: page.results,
  };
}

/** A reset takes no fields; an empty body or none. */
const resetBodySchema = z.strictObject({});

/**
 * The instructor's console (docs/academy.md#the-instructors-console, docs/api.md#academy): the
 * live roster, the leaderboard, a student's read-only data, reset and comments. Routes only parse
 * and answer; scope and rules are in students.ts.
 */
export async function registerConsoleRoutes(
  api: FastifyInstance,
  deps: { auth: Pick<AuthModule, 'authenticate'>; console: ConsoleDeps; bus?: Pick<Bus, 'subscribe'> },
): Promise<void> {
  const preHandler = deps.auth.authenticate;
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
  const cohortId = (request: FastifyRequest<IdParams>) => pathId(request.params.id, errors.cohortNotFound);
  const studentId = (request: FastifyRequest<IdParams>) => pathId(request.params.id, errors.studentNotFound);

  api.get<IdParams>(
    '/academy/cohorts/:id/roster/',
    { preHandler },
    async (request): Promise<{ success: true; data: RosterDto }> => ({
      success: true,
      data: await rosterOf(c, request.auth, cohortId(request)),
    }),
  );

  api.get<IdParams>(
    '/academy/cohorts/:id/leaderboard/',
    { preHandler },
    async (request): Promise<{ success: true; data: LeaderboardDto }> => ({
      success: true,
      data: await leaderboardOf(c, request.auth, cohortId(request)),
    }),
  );

  api.get<IdParams>(
    '/academy/students/:id/',
    { preHandler },
    async (request): Promise<{ success: true; data: PlatformDataDto }> => ({
      success: true,
      data: await studentDashboard(c, request.auth, studentId(request)),
    }),
  );

  // Like trading/orders/: the spec's page shape, no envelope.
  api.get<IdParams>('/academy/students/:id/orders/', { preHandler }, async (request): Promise<OrdersPage> => {
    const id = studentId(request);
    const query = parseInput(ordersQuerySchema, request.query, 'query');
    return pageAnswer(request, await studentOrders(c, request.auth, id, query));
  });

  api.get<IdParams>(
    '/academy/students/:id/performance/',
    { preHandler },
    async (request): Promise<{ success: true; data: PerformanceDto }> => ({
      success: true,
      data: await studentPerformance(c, request.auth, studentId(request)),
    }),
  );

  // Like trading/journal/: the page shape, no envelope.
  api.get<IdParams>('/academy/students/:id/journal/', { preHandler }, async (request): Promise<JournalPage> => {
    const id = studentId(request);
    const query = parseInput(journalQuerySchema, request.query, 'query');
    return pageAnswer(request, await studentJournal(c, request.auth, id, query));
  });

  api.post<IdParams>(
    '/academy/students/:id/reset/',
    { preHandler },
    async (request, reply): Promise<{ success: true; data: ResetResponse }> => {
      const id = studentId(request);
      parseInput(resetBodySchema, request.body ?? {});
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const { response, replayed } = await resetStudent(c, request.auth, id, key);
      if (replayed) void reply.header('idempotent-replayed', 'true');
      return { success: true, data: response };
    },
  );

  api.post<IdParams>(
    '/academy/students/:id/comments/',
    { preHandler },
    async (request, reply): Promise<{ success: true; data: CommentResponse }> => {
      const id = studentId(request);
      const input = parseInput(commentRequestSchema, request.body);
      const data = await commentOnTrade(c, request.auth, id, input);
      return reply.status(201).send({ success: true, data });
    },
  );
}
