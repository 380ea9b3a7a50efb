import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { createAuthModule } from './auth/index.js';
import type { Config } from './config.js';
import { type Clock, systemClock } from './core/clock.js';
import type { AppContext } from './core/context.js';
import { openDatabase } from './db/database.js';
import { registerDemoRoutes } from './demo/routes.js';
import { seedDemo } from './demo/seed.js';
import { answerFrameworkError, errors, installErrorHandler } from './errors.js';
import { installSecurityHeaders } from './http/security.js';
import { createMarketModule, type MarketModule, type PriceSource } from './market/index.js';
import { migrateToLatest } from './migrations.js';
import { createNewsModule } from './news/index.js';
import { type Bus, MemoryBus } from './realtime/bus.js';
import { createRedisBus } from './realtime/redis-bus.js';
import { createTradingModule } from './trading/index.js';

export interface BuildOptions {
  clock?: Clock;
  /** Replaces the configured price source (tests script prices). */
  priceSource?: PriceSource;
  /** Postgres schema to use (tests isolate themselves). */
  pgSchema?: string;
  /** Logger off by default in tests. */
  logger?: boolean;
  /** Where the log lines go instead of stdout (tests read them). */
  logStream?: NodeJS.WritableStream;
}

export interface PipdeskApp {
  app: FastifyInstance;
  ctx: AppContext;
  market: MarketModule;
}

/** Builds the whole server: used by main.ts and by tests (which call `app.inject` or listen on port 0). */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<PipdeskApp> {
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            // Tokens and passwords never reach the log.
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'body.password', 'body.refresh', 'body.token'],
              censor: '[redacted]',
            },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    bodyLimit: config.bodyLimitBytes,
    // Symbols are case-insensitive in paths; trailing slashes are part of the contract.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    trustProxy: config.trustProxy,
    forceCloseConnections: 'idle',
    frameworkErrors: answerFrameworkError,
  });

  const db = openDatabase(config.database, {
    ...(options.pgSchema ? { schema: options.pgSchema } : {}),
    checkpointer: { onWarning: (message) => app.log.warn(message) },
    onDurabilityLost: (err) => {
      // Like PostgreSQL's data_sync_retry=off: never acknowledge anything again; a restart
      // recovers from what is on disk.
      app.log.fatal({ err }, 'Writing the database to disk failed; stopping');
      process.exit(1);
    },
  });
  let bus: Bus;
  try {
    await migrateToLatest(db);
    bus = config.redisUrl ? await createRedisBus(config.redisUrl, config.redisChannelPrefix) : new MemoryBus();
  } catch (err) {
    await db.close();
    throw err;
  }
  const ctx: AppContext = { config, db, bus, clock: options.clock ?? systemClock, log: app.log };

  const webDist = config.webDist ?? path.resolve(import.meta.dirname, '../../web/dist');
  const serveSpa = existsSync(path.join(webDist, 'index.html'));
  installSecurityHeaders(app);
  installErrorHandler(app, { spaFallback: serveSpa });
  // Graceful shutdown: Node closes only the connections idle when close() starts; a response
  // finished afterwards says `Connection: close`, so its keep-alive socket cannot hold the exit.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) void reply.header('connection', 'close');
    return payload;
  });
  if (serveSpa) {
    await app.register(fastifyStatic, {
      root: webDist,
      prefix: '/',
      wildcard: false,
      index: ['index.html'],
      cacheControl: false,
      // Vite fingerprints everything under assets/; index.html must always be revalidated.
      setHeaders: (res, filePath) =>
        res.setHeader(
          'cache-control',
          filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        ),
    });
  }
  await app.register(fastifyWebsocket, {
    options: {
      maxPayload: 64 * 1024,
      perMessageDeflate: false,
      verifyClient: (info, done) => done(originAllowed(info.origin, info.req.headers.host, config.allowedOrigins)),
    },
  });

  const auth = await createAuthModule(ctx);
  const market = await createMarketModule(ctx, options.priceSource ? { priceSource: options.priceSource } : {}, { auth });
  const trading = await createTradingModule(ctx, { auth, market });
  const news = await createNewsModule(ctx, { auth, market });
  if (config.seedDemo) await seedDemo(ctx);

  await app.register(
    async (api) => {
      api.get('/health/', async () => {
        const dbOk = await pingDb(ctx);
        return {
          success: true,
          data: {
            status: dbOk ? 'ok' : 'degraded',
            db: { kind: db.kind, ok: dbOk },
            bus: { kind: bus.name, ok: bus.healthy() },
            price_source: market.health(),
            news: news.health(),
          },
        };
      });
      await auth.registerRoutes(api);
      await market.registerRoutes(api);
      await trading.registerRoutes(api);
      await news.registerRoutes(api);
      await registerDemoRoutes(api, auth);
      api.all('/*', async (request) => {
        throw errors.routeNotFound(request.method, request.url.split('?')[0] ?? '/');
      });
    },
    { prefix: '/api' },
  );
  await market.registerSockets(app);
  await trading.registerSockets(app);

  await market.start();
  await trading.start();

  app.addHook('onClose', async () => {
    await trading.stop();
    await news.stop();
    await market.stop();
    await bus.close();
    await db.close();
  });
  return { app, ctx, market };
}

async function pingDb(ctx: AppContext): Promise<boolean> {
  try {
    await ctx.db.kysely.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
    return true;
  } catch {
    return false;
  }
}

/** Browsers send Origin on socket upgrades; accept our own host and the configured origins. */
export function originAllowed(origin: string | undefined, host: string | undefined, allowed: string[]): boolean {
  if (!origin) return true; // non-browser clients (tests, bots with a token) send none
  if (allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
