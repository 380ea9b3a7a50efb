import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { Redis } from 'ioredis';
import type { AuthUser } from '../auth/index.js';
import type { Config } from '../config.js';
import { errors } from '../errors.js';

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/** Header on a news answer whose `refresh=true` was over the limit and came from the cache (docs/operations.md#rate-limits). */
export const NEWS_REFRESH_HEADER = 'x-news-refresh';

/**
 * HTTP rate limits (docs/operations.md#rate-limits), with @fastify/rate-limit's stores (in
 * memory, or Redis shared by every node when `REDIS_URL` is set):
 * - every /api call except the health probes: per signed-in user, or per address without a session;
 * - calls that place or change orders and positions (writes under /api/trading/): per trader;
 * - news with `refresh=true`: per user per minute; beyond it the call is not refused but
 *   answered from the cache, marked with `x-news-refresh: cached`.
 * A refusal is the catalogue's 429 with `Retry-After`. The check runs after the route's own
 * `authenticate`, so a signed-in user is counted by id wherever they connect from.
 *
 * Call before the routes are registered (it follows them with an `onRoute` hook).
 */
export async function installRateLimits(app: FastifyInstance, config: Config): Promise<void> {
  const limits = config.rateLimits;
  if (!limits.enabled) return;
  let redis: Redis | undefined;
  if (config.redisUrl) {
    // No queue and one try: while Redis is down a request is let through (skipOnError), never held.
    redis = new Redis(config.redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    // Errors surface through each command (and are skipped); this only keeps ioredis from printing every retry.
    redis.on('error', () => {});
    app.addHook('onClose', async () => {
      await redis?.quit().catch(() => redis?.disconnect());
    });
  }
  await app.register(fastifyRateLimit, {
    global: false,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: `${config.redisChannelPrefix}rate-limit:` } : {}),
  });

  const everyCall = app.createRateLimit({
    timeWindow: 1000,
    keyGenerator: (request) => callerKey('call', request),
    max: (_request, key) => (key.startsWith('call:user:') ? limits.requestsPerSecond : limits.addressRequestsPerSecond),
  });
  const orders = app.createRateLimit({
    timeWindow: 1000,
    max: limits.ordersPerSecond,
    keyGenerator: (request) => callerKey('orders', request),
  });
  const newsRefresh = app.createRateLimit({
    timeWindow: 60_000,
    max: limits.newsRefreshesPerMinute,
    keyGenerator: (request) => callerKey('news-refresh', request),
  });

  app.addHook('onRoute', (route) => {
    const url = route.url ?? route.path;
    if (!url.startsWith('/api/') || url.startsWith('/api/health')) return;
    // The extra limits a call counts against are its contract entry's (docs/api.md#how-a-call-is-declared).
    const extra = route.config?.operation?.rateLimits ?? [];
    const changesOrders = extra.includes('orders');
    const news = extra.includes('news-refresh');
    const check: preHandlerAsyncHookHandler = async (request, reply) => {
      await refuseOver(everyCall, request);
      if (changesOrders && request.method !== 'GET' && request.method !== 'HEAD') await refuseOver(orders, request);
      if (news && asksRefresh(request)) {
        const result = await newsRefresh(request);
        if (!result.isAllowed && result.isExceeded) {
          (request.query as Record<string, unknown>).refresh = 'false';
          void reply.header(NEWS_REFRESH_HEADER, 'cached');
        }
      }
    };
    const existing = route.preHandler;
    route.preHandler = existing === undefined ? [check] : Array.isArray(existing) ? [...existing, check] : [existing, check];
  });
}

/** A signed-in caller by user id (the same on every node and address); otherwise by address. */
function callerKey(limit: string, request: FastifyRequest): string {
  const user = request.auth as AuthUser | undefined;
  return user ? `${limit}:user:${user.userId}` : `${limit}:address:${normalizeIP(request.ip)}`;
}

async function refuseOver(limiter: Limiter, request: FastifyRequest): Promise<void> {
  const result = await limiter(request);
  if (!result.isAllowed && result.isExceeded) throw errors.rateLimited(Math.max(1, result.ttlInSeconds));
}

function asksRefresh(request: FastifyRequest): boolean {
  const refresh = (request.query as Record<string, unknown> | undefined)?.refresh;
  return refresh === 'true' || refresh === '1';
}
