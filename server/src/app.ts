import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { createAcademyModule } from './academy/index.js';
import { createAccountGate } from './accounts/index.js';
import { createAlertsModule } from './alerts/index.js';
import { type AuthModule, createAuthModule } from './auth/index.js';
import { createChartingModule } from './charting/index.js';
import type { Config } from './config.js';
import { type Clock, systemClock } from './core/clock.js';
import type { AppContext } from './core/context.js';
import { openDatabase } from './db/database.js';
import { observeTransactions } from './db/transaction.js';
import { registerDemoRoutes } from './demo/routes.js';
import { seedDemo } from './demo/seed.js';
import { answerFrameworkError, errors, installErrorHandler } from './errors.js';
import {
  attemptsOfAccounts,
  createEvaluationsModule,
  EvaluationBook,
  type EvaluationsModule,
  rosterAttempts,
} from './evaluations/index.js';
import { registerHealthRoutes } from './health/routes.js';
import { createHealthService } from './health/service.js';
import { answerClientError } from './http/client-errors.js';
import { installHostileInputGuard } from './http/hostile-input.js';
import { installOverloadGuard } from './http/overload.js';
import { installRateLimits } from './http/rate-limit.js';
import { installRequestLog } from './http/request-log.js';
import { installSecurityHeaders } from './http/security.js';
import { installShutdownGuard } from './http/shutdown.js';
import { installSocketRoutesGuard } from './http/socket-routes.js';
import { createMarketModule, type MarketModule, type PriceSource } from './market/index.js';
import { createMetrics, instrumentSockets, noMetrics, registerMetricsRoute, startMetricsServer } from './metrics/index.js';
import { migrateToLatest } from './migrations.js';
import { createNewsModule } from './news/index.js';
import { installApiDocs } from './openapi/index.js';
import { type Bus, MemoryBus } from './realtime/bus.js';
import { createRedisBus } from './realtime/redis-bus.js';
import { createReplayModule, type ReplayModule, sessionsOfAccounts } from './replay/index.js';
import { createTradingModule, type TradingModule } from './trading/index.js';

/** How long the shutdown waits for admitted requests before it closes the modules (main.ts exits by force at 10 s). */
const SHUTDOWN_DRAIN_MS = 6_000;

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
  /** Orders, positions and the live book; tests read its in-memory caches (docs/operations.md#memory). */
  trading: TradingModule;
  /** Programs, attempts and their engine (docs/evaluations.md); tests drive its day checks. */
  evaluations: EvaluationsModule;
  /** Replay sessions (docs/replay.md); tests move their clocks. */
  replay: ReplayModule;
  /** The `METRICS_PORT` listener's port, when one was asked for (docs/operations.md#metrics). */
  metricsPort?: number;
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
              paths: [
                'req.headers.authorization',
                'req.headers.cookie',
                'body.password',
                'body.current_password',
                'body.new_password',
                'body.refresh',
                'body.token',
              ],
              censor: '[redacted]',
            },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    // One line per request from http/request-log.ts instead of Fastify's two (docs/operations.md#logs).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // Symbols are case-insensitive in paths; trailing slashes are part of the contract.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    trustProxy: config.trustProxy,
    forceCloseConnections: 'idle',
    // The shutdown guard answers requests that arrive while closing, in the envelope with Retry-After.
    return503OnClosing: false,
    frameworkErrors: answerFrameworkError,
    // Node's parser-level errors (malformed head, 431) in the envelope too (docs/api.md#hostile-input).
    clientErrorHandler: answerClientError,
  });

  const db = openDatabase(config.database, {
    ...(options.pgSchema ? { schema: options.pgSchema } : {}),
    connectTimeoutMs: config.dbConnectTimeoutMs,
    // A dropped connection outside any query: the pool replaces it (docs/operations.md#database-outages).
    onConnectionError: (err) => app.log.warn({ reason: (err as Error)?.message }, 'database connection lost'),
    onReachabilityChange: (reachable, err) => {
      if (reachable) app.log.info('database reachable again');
      else app.log.error({ reason: (err as Error)?.message }, 'database unreachable: answering 503 until it is back');
    },
    checkpointer: { onWarning: (message) => app.log.warn(message) },
    onDurabilityLost: (err) => {
      // Like PostgreSQL's data_sync_retry=off: never acknowledge anything again; a restart
      // recovers from what is on disk.
      app.log.fatal({ err }, 'Writing the database to disk failed; stopping');
      process.exit(1);
    },
  });
  // Off unless asked for (docs/operations.md#metrics): then a registry of this app's own.
  const metrics = config.metricsToken !== undefined || config.metricsPort !== undefined ? createMetrics() : noMetrics;
  if (metrics.enabled) observeTransactions(db, metrics.transaction);
  let bus: Bus;
  try {
    await migrateToLatest(db);
    bus = config.redisUrl
      ? await createRedisBus(config.redisUrl, config.redisChannelPrefix, app.log, metrics.enabled ? metrics.busDelay : undefined)
      : new MemoryBus();
  } catch (err) {
    metrics.close();
    await db.close();
    throw err;
  }
  const ctx: AppContext = { config, db, bus, clock: options.clock ?? systemClock, log: app.log, metrics };

  const webDist = config.webDist ?? path.resolve(import.meta.dirname, '../../web/dist');
  const serveSpa = existsSync(path.join(webDist, 'index.html'));
  installSecurityHeaders(app);
  installErrorHandler(app, { spaFallback: serveSpa });
  // Graceful shutdown (docs/operations.md#shutdown): a request after it began is refused 503 with
  // Retry-After, one admitted is finished before the modules and the database close.
  const shutdown = installShutdownGuard(app);
  installHostileInputGuard(app);
  installSocketRoutesGuard(app);
  installRequestLog(app, metrics);
  // Overload answers 503 at once rather than queueing without bound (docs/operations.md#overload).
  installOverloadGuard(app, config.overload);
  await installRateLimits(app, config);
  if (config.metricsToken !== undefined && config.metricsPort === undefined)
    registerMetricsRoute(app, metrics, config.metricsToken);
  // /api/openapi.json and /api/docs/ (docs/api.md#openapi).
  installApiDocs(app);
  if (serveSpa) {
    await app.register(fastifyStatic, {
      root: webDist,
      prefix: '/',
      wildcard: false,
      index: ['index.html'],
      cacheControl: false,
      // The build wrote .br and .gz copies beside every text asset (docs/operations.md#transfer).
      preCompressed: true,
      // Source maps only when the operator asks: they publish the app's source.
      allowedPath: (pathName) => config.serveSourcemaps || !pathName.endsWith('.map'),
      // Vite fingerprints everything under assets/; index.html must always be revalidated.
      setHeaders: (res, filePath) => {
        res.setHeader(
          'cache-control',
          filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
        // One URL, several encodings: a cache in between must key on what the browser accepts.
        res.setHeader('vary', 'accept-encoding');
        // The bundles name no map (built "hidden"); with maps served, this header lets devtools find them.
        if (config.serveSourcemaps && filePath.endsWith('.js')) res.setHeader('sourcemap', `${path.basename(filePath)}.map`);
      },
    });
  }
  await app.register(fastifyWebsocket, {
    options: {
      maxPayload: 64 * 1024,
      perMessageDeflate: false,
      verifyClient: (info, done) => done(originAllowed(info.origin, info.req.headers.host, config.allowedOrigins)),
    },
  });
  if (metrics.enabled) {
    instrumentSockets(app.websocketServer, metrics);
    bus.subscribe('tick', (tick) => metrics.tick(tick.symbol));
  }

  const signIn = await createAuthModule(ctx);
  // Every signed-in call checks the account it names, if any, is the caller's (docs/accounts.md).
  const gate = createAccountGate(db);
  const auth: AuthModule = { ...signIn, authenticate: gate.gated(signIn.authenticate) };
  // The price socket's `account` is checked as `?account=` is: the signed-in trader's only.
  const market = await createMarketModule(ctx, options.priceSource ? { priceSource: options.priceSource } : {}, {
    auth,
    accountOwner: gate.ownerOf,
  });
  // Every node's book of active evaluation attempts: trading reads their order rules, evaluations keep it (docs/evaluations.md).
  const evaluationBook = new EvaluationBook(ctx);
  const trading = await createTradingModule(ctx, {
    auth,
    market,
    challengeRules: evaluationBook,
    accountAttempts: { ofAccounts: (userId) => attemptsOfAccounts(db.kysely, userId) },
    accountReplays: { ofAccounts: (userId) => sessionsOfAccounts(db.kysely, userId) },
  });
  const news = await createNewsModule(ctx, { auth, market });
  // The roster shows each student's attempt (docs/evaluations.md); academy reads it through evaluations.
  const academy = createAcademyModule(ctx, { auth, trading, attempts: { ofCohort: (id) => rosterAttempts(db.kysely, id) } });
  const alerts = createAlertsModule(ctx, { auth, market, sockets: trading.live });
  const charting = createChartingModule(ctx, { auth, market, trading });
  const evaluations = createEvaluationsModule(ctx, { auth, trading, book: evaluationBook, isLeader: () => market.isLeader() });
  // Practice accounts on real past markets (docs/replay.md): trading binds them through replay's sessions.
  const replay = createReplayModule(ctx, { auth, market, trading });
  if (config.seedDemo) await seedDemo(ctx);

  await app.register(
    async (api) => {
      await registerHealthRoutes(
        api,
        createHealthService({ db, bus, priceSource: () => market.health(), news: () => news.health() }),
      );
      await auth.registerRoutes(api);
      await market.registerRoutes(api);
      await trading.registerRoutes(api);
      await news.registerRoutes(api);
      await academy.registerRoutes(api);
      await alerts.registerRoutes(api);
      await charting.registerRoutes(api);
      await evaluations.registerRoutes(api);
      await replay.registerRoutes(api);
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
  await evaluations.start();
  await alerts.start();
  await replay.start();

  // Runs once the listener is closed and every connection ended (Fastify's own onClose comes first).
  app.addHook('onClose', async () => {
    // Requests whose client went away hold no connection but may be mid-transaction: they finish
    // before anything they use stops. Then the writers of the database (alerts, triggers and
    // stop-outs, equity samples, candles, the leader's lock), then the bus, the database last.
    const left = await shutdown.drained(SHUTDOWN_DRAIN_MS);
    if (left > 0) app.log.warn({ requests: left }, 'shutdown: requests still running after the drain bound; closing anyway');
    await replay.stop();
    await alerts.stop();
    await evaluations.stop();
    await trading.stop();
    await news.stop();
    await market.stop();
    await bus.close();
    await db.close();
    metrics.close();
  });
  if (config.metricsPort === undefined) return { app, ctx, market, trading, evaluations, replay };
  try {
    const metricsServer = await startMetricsServer(metrics, {
      port: config.metricsPort,
      host: config.host,
      token: config.metricsToken,
    });
    app.addHook('onClose', () => metricsServer.close());
    return { app, ctx, market, trading, evaluations, replay, metricsPort: metricsServer.port };
  } catch (err) {
    // The port is taken: stop what was started rather than run without the metrics asked for.
    await app.close();
    throw err;
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
