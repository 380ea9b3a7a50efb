import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** A configuration error names the variable so start-up can stop with one clear line. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'].includes(v), 'must be true or false')
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const positiveInt = z.coerce.number().int().positive();

/** Every variable the server reads, with its default (README.md#configuration). Strings come from the environment. */
const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .refine((v) => /^(postgres(ql)?:\/\/|sqlite:|file:)/.test(v), 'must start with postgres://, sqlite: or file:')
    .optional(),
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\//.test(v), 'must start with redis:// or rediss://')
    .optional(),
  REDIS_CHANNEL_PREFIX: z.string().min(1).max(64).default('pipdesk:'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL_MINUTES: positiveInt.default(60),
  REFRESH_TOKEN_TTL_DAYS: positiveInt.default(7),
  PRICE_SOURCE: z.enum(['simulator', 'replay', 'external']).default('simulator'),
  PRICE_SEED: z.coerce.number().int().default(20260401),
  CHART_HISTORY_DAYS: z.coerce.number().int().min(0).max(400).default(31),
  CHART_HOURLY_HISTORY_DAYS: z.coerce.number().int().min(0).max(3660).default(366),
  EXTERNAL_FEED_URL: z.string().url().optional(),
  EXTERNAL_FEED_STALE_MS: positiveInt.default(10_000),
  NEWS_FEEDS: z
    .string()
    .refine(
      (v) => listOf(v).every((url) => /^https?:\/\/[^\s]+$/i.test(url) && URL.canParse(url)),
      'must be a comma-separated list of http:// or https:// URLs',
    )
    .default(''),
  NEWS_API_KEY: z.string().optional(),
  NEWS_API_URL: z.string().url().default('https://api.polygon.io'),
  NEWS_CACHE_TTL_SECONDS: positiveInt.default(300),
  NEWS_SOURCE_TIMEOUT_MS: positiveInt.default(5000),
  SEED_DEMO: bool.optional(),
  // Compared as is with the browser's Origin header, so "https://x.example/" (a path) would never match.
  ALLOWED_ORIGINS: z
    .string()
    .refine(
      (v) => listOf(v).every((origin) => URL.canParse(origin) && new URL(origin).origin === origin),
      'must be a comma-separated list of origins such as https://trade.example.com (scheme, host and port only)',
    )
    .default(''),
  MARGIN_CALL_LEVEL: z.coerce.number().positive().default(100),
  STOP_OUT_LEVEL: z.coerce.number().positive().default(50),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: positiveInt.default(5),
  LOGIN_MAX_FAILURES_PER_ADDRESS: positiveInt.default(20),
  LOGIN_THROTTLE_WINDOW_MINUTES: positiveInt.default(15),
  TRUST_PROXY: bool.optional(),
  SERVE_SOURCEMAPS: bool.optional(),
  BODY_LIMIT_BYTES: positiveInt.default(64 * 1024),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST: z.string().optional(),
  DB_CONNECT_TIMEOUT_MS: positiveInt.max(60_000).default(3000),
  DB_POOL_SIZE: positiveInt.max(500).default(20),
  CANDLE_WRITE_BUFFER: positiveInt.default(50_000),
  // Metrics are off unless one of these is set (docs/operations.md#metrics).
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // HTTP rate limits (docs/operations.md#rate-limits).
  RATE_LIMITS: bool.optional(),
  RATE_LIMIT_REQUESTS_PER_SECOND: positiveInt.default(100),
  RATE_LIMIT_ADDRESS_REQUESTS_PER_SECOND: positiveInt.default(100),
  RATE_LIMIT_ORDERS_PER_SECOND: positiveInt.default(20),
  RATE_LIMIT_NEWS_REFRESH_PER_MINUTE: positiveInt.default(1),
  // Load shedding (docs/operations.md#overload); 0 turns each check off.
  OVERLOAD_MAX_IN_FLIGHT: z.coerce.number().int().min(0).default(1000),
  OVERLOAD_MAX_WRITES_IN_FLIGHT: z.coerce.number().int().min(0).default(200),
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(1000),
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: z.coerce.number().min(0).max(1).default(0),
  OVERLOAD_RETRY_AFTER_SECONDS: positiveInt.max(3600).default(1),
  // A diagnostic for soaks (docs/operations.md#memory): off in production.
  DIAGNOSTIC_HEAP_SIGNAL: bool.optional(),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL: `poolSize` connections at most (DB_POOL_SIZE; docs/order-engine.md#group-commit). */
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; poolSize?: number };
  redisUrl: string | undefined;
  /** Pub/sub channel prefix: deployments (or test runs) sharing one Redis stay apart. */
  redisChannelPrefix: string;
  /**
   * `JWT_SECRET`, or this node's generated candidate when unset (then `jwtSecretGenerated`, and
   * the database's shared secret wins: auth/shared-secret.ts).
   */
  jwtSecret: string;
  jwtSecretGenerated: boolean;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  priceSource: Env['PRICE_SOURCE'];
  priceSeed: number;
  /**
   * Days of one-minute chart history (with m5–m30) backfilled on a new database and kept
   * (docs/charting.md#timeframes-and-history); 0 backfills nothing (tests use 0 or 1).
   */
  chartHistoryDays: number;
  /** Days back a new database gets hourly, 4h and daily candles (at least `chartHistoryDays`); 366 by default. */
  chartHourlyHistoryDays: number;
  externalFeedUrl: string | undefined;
  externalFeedStaleMs: number;
  newsFeeds: string[];
  newsApiKey: string | undefined;
  newsApiUrl: string;
  newsCacheTtlSeconds: number;
  newsSourceTimeoutMs: number;
  seedDemo: boolean;
  allowedOrigins: string[];
  marginCallLevel: number;
  stopOutLevel: number;
  loginMaxFailuresPerAccount: number;
  loginMaxFailuresPerAddress: number;
  loginThrottleWindowSeconds: number;
  bodyLimitBytes: number;
  /** Behind a load balancer: take the client address from X-Forwarded-For (login throttling per address). */
  trustProxy: boolean;
  logLevel: Env['LOG_LEVEL'];
  /** Folder of the built SPA; unset or missing means the API runs without it. */
  webDist: string | undefined;
  /** Hand out the SPA's source maps (docs/operations.md#transfer); off, they answer 404. */
  serveSourcemaps: boolean;
  /** PostgreSQL: how long a request waits for a connection before it answers 503 (docs/operations.md#database-outages). */
  dbConnectTimeoutMs: number;
  /** Closed one-minute candles kept in memory while the database cannot take them (docs/operations.md#database-outages). */
  candleWriteBuffer: number;
  /** Bearer that `/metrics` requires (docs/operations.md#metrics); with `metricsPort` unset it is served on the main port. */
  metricsToken: string | undefined;
  /** A separate listener serving only `/metrics` (docs/operations.md#metrics). */
  metricsPort: number | undefined;
  /** HTTP rate limits (docs/operations.md#rate-limits); `enabled: false` only for measurements. */
  rateLimits: {
    enabled: boolean;
    /** Per signed-in user, every /api call. */
    requestsPerSecond: number;
    /** Per address, calls made without a session. */
    addressRequestsPerSecond: number;
    /** Per trader, calls that place or change orders and positions. */
    ordersPerSecond: number;
    /** Per user, news calls with `refresh=true`; beyond it they are answered from the cache. */
    newsRefreshesPerMinute: number;
  };
  /** Load shedding (docs/operations.md#overload): past a limit, new calls answer 503 at once; 0 turns a limit off. */
  overload: {
    /** `/api` calls (health probes aside) being handled at once on this node. */
    maxInFlight: number;
    /** Of those, the calls that write (any method but GET, HEAD and OPTIONS). */
    maxWritesInFlight: number;
    /** Mean event-loop delay of a sample, in milliseconds, over which (three samples in a row) calls are shed. */
    maxEventLoopDelayMs: number;
    /** Event-loop utilization of a sample, 0–1, likewise. */
    maxEventLoopUtilization: number;
    /** The `Retry-After` of a shed call. */
    retryAfterSeconds: number;
    /** How often the event loop is sampled (1 s; tests shorten it). */
    sampleIntervalMs: number;
  };
  /**
   * On SIGUSR2, collect garbage (when node runs with --expose-gc) and print the memory use as
   * one JSON line on stdout (docs/operations.md#memory); off by default, for bench/soak.mjs.
   */
  diagnosticHeapSignal: boolean;
}

/**
 * Parses the environment once at start-up. Throws ConfigError naming the first bad variable.
 * `overrides` lets tests and tools set values without touching process.env.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const raw = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(variable, `${issue?.message ?? 'is invalid'}${shownValue(variable, raw[variable])}`);
  }
  const env = parsed.data;
  const dataDir = path.resolve(env.DATA_DIR);
  const database: Config['database'] = env.DATABASE_URL?.startsWith('postgres')
    ? { kind: 'postgres', url: env.DATABASE_URL, poolSize: env.DB_POOL_SIZE }
    : {
        kind: 'sqlite',
        file: env.DATABASE_URL ? env.DATABASE_URL.replace(/^(sqlite|file):(\/\/)?/, '') : path.join(dataDir, 'pipdesk.sqlite'),
      };
  if (env.PRICE_SOURCE === 'external' && !env.EXTERNAL_FEED_URL) {
    throw new ConfigError('EXTERNAL_FEED_URL', 'is required when PRICE_SOURCE=external');
  }
  if (env.STOP_OUT_LEVEL >= env.MARGIN_CALL_LEVEL) {
    throw new ConfigError('STOP_OUT_LEVEL', `must be below MARGIN_CALL_LEVEL (${env.MARGIN_CALL_LEVEL})`);
  }
  const overriddenSecret = overrides.jwtSecret;
  let jwtSecret = env.JWT_SECRET ?? overriddenSecret;
  const jwtSecretGenerated = !jwtSecret;
  if (!jwtSecret) {
    if (env.NODE_ENV === 'production') throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production');
    jwtSecret = loadOrCreateSecret(dataDir);
  }
  const config: Config = {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    dataDir,
    database,
    redisUrl: env.REDIS_URL,
    redisChannelPrefix: env.REDIS_CHANNEL_PREFIX,
    jwtSecret,
    jwtSecretGenerated,
    accessTokenTtlSeconds: env.ACCESS_TOKEN_TTL_MINUTES * 60,
    refreshTokenTtlSeconds: env.REFRESH_TOKEN_TTL_DAYS * 86_400,
    priceSource: env.PRICE_SOURCE,
    priceSeed: env.PRICE_SEED,
    chartHistoryDays: env.CHART_HISTORY_DAYS,
    chartHourlyHistoryDays: env.CHART_HOURLY_HISTORY_DAYS,
    externalFeedUrl: env.EXTERNAL_FEED_URL,
    externalFeedStaleMs: env.EXTERNAL_FEED_STALE_MS,
    newsFeeds: listOf(env.NEWS_FEEDS),
    newsApiKey: env.NEWS_API_KEY,
    newsApiUrl: env.NEWS_API_URL,
    newsCacheTtlSeconds: env.NEWS_CACHE_TTL_SECONDS,
    newsSourceTimeoutMs: env.NEWS_SOURCE_TIMEOUT_MS,
    // The demo seed is on by default only for the embedded database.
    seedDemo: env.SEED_DEMO ?? database.kind === 'sqlite',
    allowedOrigins: listOf(env.ALLOWED_ORIGINS),
    marginCallLevel: env.MARGIN_CALL_LEVEL,
    stopOutLevel: env.STOP_OUT_LEVEL,
    loginMaxFailuresPerAccount: env.LOGIN_MAX_FAILURES_PER_ACCOUNT,
    loginMaxFailuresPerAddress: env.LOGIN_MAX_FAILURES_PER_ADDRESS,
    loginThrottleWindowSeconds: env.LOGIN_THROTTLE_WINDOW_MINUTES * 60,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    trustProxy: env.TRUST_PROXY ?? false,
    logLevel: env.LOG_LEVEL,
    webDist: env.WEB_DIST ? path.resolve(env.WEB_DIST) : undefined,
    serveSourcemaps: env.SERVE_SOURCEMAPS ?? false,
    dbConnectTimeoutMs: env.DB_CONNECT_TIMEOUT_MS,
    candleWriteBuffer: env.CANDLE_WRITE_BUFFER,
    metricsToken: env.METRICS_TOKEN,
    metricsPort: env.METRICS_PORT,
    rateLimits: {
      enabled: env.RATE_LIMITS ?? true,
      requestsPerSecond: env.RATE_LIMIT_REQUESTS_PER_SECOND,
      addressRequestsPerSecond: env.RATE_LIMIT_ADDRESS_REQUESTS_PER_SECOND,
      ordersPerSecond: env.RATE_LIMIT_ORDERS_PER_SECOND,
      newsRefreshesPerMinute: env.RATE_LIMIT_NEWS_REFRESH_PER_MINUTE,
    },
    overload: {
      maxInFlight: env.OVERLOAD_MAX_IN_FLIGHT,
      maxWritesInFlight: env.OVERLOAD_MAX_WRITES_IN_FLIGHT,
      maxEventLoopDelayMs: env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
      maxEventLoopUtilization: env.OVERLOAD_MAX_EVENT_LOOP_UTILIZATION,
      retryAfterSeconds: env.OVERLOAD_RETRY_AFTER_SECONDS,
      sampleIntervalMs: 1000,
    },
    diagnosticHeapSignal: env.DIAGNOSTIC_HEAP_SIGNAL ?? false,
    ...overrides,
  };
  return config;
}

/** A comma list from the environment, blanks dropped. */
function listOf(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Variables whose value is a secret: an error names them but never prints what they hold. */
const SECRET_VARIABLES = new Set(['JWT_SECRET', 'NEWS_API_KEY', 'METRICS_TOKEN']);

/**
 * The bad value for the error line, without secrets: URLs lose their user:password and query
 * (DATABASE_URL and REDIS_URL carry passwords, feed URLs may carry keys).
 */
function shownValue(variable: string, value: string | undefined): string {
  if (value === undefined || SECRET_VARIABLES.has(variable)) return '';
  const withoutCredentials = value.replace(/\/\/[^/@\s]*@/g, '//***@').replace(/\?[^,\s]*/g, '?***');
  return ` (got ${JSON.stringify(withoutCredentials)})`;
}

/** The embedded default keeps a generated secret beside its data, readable only by its owner. */
function loadOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      // 'wx': when two processes start on a new data directory, the first secret wins and both read it.
      writeFileSync(file, `${randomBytes(48).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const secret = readFileSync(file, 'utf8').trim();
  // An empty or truncated file would sign tokens with a guessable key (or fail every sign-in).
  if (secret.length < 32)
    throw new ConfigError('JWT_SECRET', `is unset and ${file} holds no usable secret: delete it or set JWT_SECRET`);
  return secret;
}
