import { type ErrorCode, type ErrorEnvelope, errorCodeSchema, type OrderRejectionCode } from '@pipdesk/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, retryAfterSeconds } from './db/availability.js';
import { setSecurityHeaders } from './http/security.js';

/**
 * The one error type the server throws on purpose. Every failure a client can see is made
 * by a factory of the catalogue below, so codes and statuses stay consistent; the central
 * handler in `installErrorHandler` turns it into the envelope (docs/api.md#envelope).
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** Extra fields placed beside `error` in the envelope (a rejected order's `data`). */
    readonly body?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** The error catalogue: one factory per code of the contract's `ERROR_CODES`, with its HTTP status. */
export const errors = {
  validation: (message: string, details?: unknown) => new AppError(400, 'VALIDATION_ERROR', message, details),
  /** Any other malformed request (Fastify's own client errors keep their 4xx status). */
  badRequest: (message: string, status = 400) => new AppError(status, 'BAD_REQUEST', message),
  malformedUrl: (status = 400) => new AppError(status, 'MALFORMED_URL', 'Malformed URL: invalid percent-encoding'),
  pathSegmentTooLong: (status = 414) => new AppError(status, 'PATH_SEGMENT_TOO_LONG', 'URL path segment is too long'),
  invalidJson: () => new AppError(400, 'INVALID_JSON', 'Request body is not valid JSON'),
  emptyBody: () => new AppError(400, 'EMPTY_BODY', 'Request body is empty: send a JSON object'),
  unsupportedMediaType: (status = 415) =>
    new AppError(status, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type: send application/json'),
  demoNotImplemented: () => new AppError(400, 'DEMO_NOT_IMPLEMENTED', 'Demo trading mode not yet implemented'),

  unauthenticated: (message = 'Authentication required') => new AppError(401, 'UNAUTHENTICATED', message),
  invalidCredentials: () => new AppError(401, 'INVALID_CREDENTIALS', 'Invalid email or password'),
  invalidToken: (message = 'Invalid or expired token') => new AppError(401, 'INVALID_TOKEN', message),

  /** An academy call for another role (a trader on an instructor's call, anyone but an admin on an admin's): 403 (docs/academy.md#scope). */
  forbidden: (message = 'This call is for instructors and admins') => new AppError(403, 'FORBIDDEN', message),
  /** Signed in with a temporary password: only change-password, the me calls, refresh and logout answer (docs/academy.md#temporary-passwords). */
  passwordChangeRequired: () =>
    new AppError(403, 'PASSWORD_CHANGE_REQUIRED', 'Change your temporary password to continue (POST /api/auth/change-password/)'),

  notFound: (message = 'Not found') => new AppError(404, 'NOT_FOUND', message),
  routeNotFound: (method: string, path: string) => new AppError(404, 'NOT_FOUND', `No route for ${method} ${path}`),
  pairNotFound: (symbol: string) => new AppError(404, 'PAIR_NOT_FOUND', `Currency pair ${symbol} not found`),
  tradingAccountNotFound: () => new AppError(404, 'NOT_FOUND', 'Trading account not found'),
  positionNotFound: () => new AppError(404, 'POSITION_NOT_FOUND', 'Position not found'),
  orderNotFound: () => new AppError(404, 'ORDER_NOT_FOUND', 'Order not found'),
  traderNotFound: (email: string) => new AppError(404, 'TRADER_NOT_FOUND', `No trader with e-mail ${email}`),
  /** Also a cohort outside the caller's scope: 404, never 403 (docs/academy.md#scope). */
  cohortNotFound: () => new AppError(404, 'COHORT_NOT_FOUND', 'Cohort not found'),
  /** Also a student outside the caller's scope: 404, never 403 (docs/academy.md#scope). */
  studentNotFound: () => new AppError(404, 'STUDENT_NOT_FOUND', 'Student not found'),
  drawingNotFound: () => new AppError(404, 'DRAWING_NOT_FOUND', 'Drawing not found'),
  alertNotFound: () => new AppError(404, 'ALERT_NOT_FOUND', 'Alert not found'),
  accountNotFound: () => new AppError(404, 'ACCOUNT_NOT_FOUND', 'Trading account not found'),
  programNotFound: () => new AppError(404, 'PROGRAM_NOT_FOUND', 'Program not found'),
  attemptNotFound: () => new AppError(404, 'ATTEMPT_NOT_FOUND', 'This account is not an evaluation attempt’s'),
  replayNotFound: () => new AppError(404, 'REPLAY_NOT_FOUND', 'Replay session not found'),
  replayFinished: () => new AppError(409, 'REPLAY_FINISHED', 'This replay session has reached the end of its data'),
  replayBusy: (playing: boolean) =>
    new AppError(
      409,
      'REPLAY_BUSY',
      playing
        ? 'This replay session is playing on another server: pause it first'
        : 'Another server is moving this replay session: try again',
    ),
  challengeClosed: () => new AppError(409, 'CHALLENGE_CLOSED', 'This evaluation has ended: its account is read-only'),
  attemptActive: () => new AppError(409, 'ATTEMPT_ACTIVE', 'An attempt of this program is already under way'),
  programArchived: () => new AppError(409, 'PROGRAM_ARCHIVED', 'This program is archived'),
  selfStartNotAllowed: () =>
    new AppError(403, 'SELF_START_NOT_ALLOWED', 'This program does not let students start attempts themselves'),
  stopLossRequired: () =>
    new AppError(400, 'STOP_LOSS_REQUIRED', 'stop_loss: this evaluation requires a stop loss on every position', [
      { field: 'stop_loss', message: 'is required by this evaluation' },
    ]),
  maxLotsExceeded: (max: string) =>
    new AppError(400, 'MAX_LOTS_EXCEEDED', `quantity: this evaluation allows at most ${max} lots`, [
      { field: 'quantity', message: `must be at most ${max}` },
    ]),

  positionClosed: () => new AppError(409, 'POSITION_CLOSED', 'Position is already closed'),
  orderNotPending: (status: string) =>
    new AppError(409, 'ORDER_NOT_PENDING', `Order is ${status}: only a PENDING order can be changed or cancelled`),
  noTradingAccount: () =>
    new AppError(
      409,
      'NO_TRADING_ACCOUNT',
      'Trading Not Available: Please complete your registration process to access trading.',
    ),
  traderExists: (email: string) => new AppError(409, 'TRADER_EXISTS', `A trader with e-mail ${email} already exists`),
  /** A trader is in at most one active cohort (docs/academy.md#cohorts). */
  alreadyInCohort: (message: string) => new AppError(409, 'ALREADY_IN_COHORT', message),
  limitReached: (message: string) => new AppError(409, 'LIMIT_REACHED', message),
  alertNotActive: (status: string) => new AppError(409, 'ALERT_NOT_ACTIVE', `Alert is ${status}, not ACTIVE`),
  idempotencyKeyInFlight: () =>
    new AppError(409, 'IDEMPOTENCY_KEY_IN_FLIGHT', 'A request with this Idempotency-Key is still being processed; retry shortly'),

  payloadTooLarge: (status = 413) => new AppError(status, 'PAYLOAD_TOO_LARGE', 'Request body is too large'),
  /** Node's parser refused the request head before Fastify saw it (docs/api.md#hostile-input). */
  headersTooLarge: () => new AppError(431, 'HEADERS_TOO_LARGE', 'Request headers are too large'),
  requestTimeout: () => new AppError(408, 'REQUEST_TIMEOUT', 'The request did not arrive in time'),
  malformedRequest: () => new AppError(400, 'BAD_REQUEST', 'Malformed HTTP request'),

  /** A business rejection: the order is stored REJECTED and the answer carries it as `data.order`. */
  orderRejected: (code: OrderRejectionCode, message: string, order: unknown) =>
    new AppError(422, code, message, undefined, { data: { order } }),
  idempotencyKeyReused: () =>
    new AppError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request'),

  tooManyRequests: (retryAfterSeconds: number, message?: string) =>
    new AppError(
      429,
      'TOO_MANY_REQUESTS',
      message ?? `Too many attempts. Try again in ${formatWait(retryAfterSeconds)}.`,
      { retry_after_seconds: retryAfterSeconds },
      undefined,
      { 'retry-after': String(retryAfterSeconds) },
    ),

  /** Over an HTTP rate limit (docs/operations.md#rate-limits); the same code as login throttling. */
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(
      429,
      'TOO_MANY_REQUESTS',
      `Too many requests. Try again in ${formatWait(retryAfterSeconds)}.`,
      { retry_after_seconds: retryAfterSeconds },
      undefined,
      { 'retry-after': String(retryAfterSeconds) },
    ),

  internal: () => new AppError(500, 'INTERNAL', 'Internal server error'),
  unavailable: (message: string) => new AppError(503, 'UNAVAILABLE', message),
  /** `health/ready/` when a check failed: the failed checks name themselves, the report is in `details`. */
  notReady: (failed: readonly string[], report: unknown) =>
    new AppError(503, 'UNAVAILABLE', `Not ready: ${failed.join(', ')}`, report),
  /**
   * This node is stopping (docs/operations.md#shutdown): the request arrived after the shutdown
   * began and nothing was done; a retry after the wait reaches another node (or this one restarted).
   */
  shuttingDown: (retryAfterSeconds: number) =>
    new AppError(
      503,
      'UNAVAILABLE',
      `The server is shutting down. Try again in ${formatWait(retryAfterSeconds)}.`,
      { retry_after_seconds: retryAfterSeconds },
      undefined,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  /** The database could not be reached (docs/operations.md#database-outages); a retry after the wait may succeed. */
  databaseUnavailable: (retryAfterSeconds: number) =>
    new AppError(
      503,
      'DATABASE_UNAVAILABLE',
      `The database is unavailable. Try again in ${formatWait(retryAfterSeconds)}.`,
      { retry_after_seconds: retryAfterSeconds },
      undefined,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  /** This node is over its load limits (docs/operations.md#overload): nothing was done; a retry after the wait may succeed. */
  serverBusy: (retryAfterSeconds: number) =>
    new AppError(
      503,
      'SERVER_BUSY',
      `The server is busy. Try again in ${formatWait(retryAfterSeconds)}.`,
      { retry_after_seconds: retryAfterSeconds },
      undefined,
      { 'retry-after': String(retryAfterSeconds) },
    ),

  /**
   * A stored answer replayed for a retried Idempotency-Key: the same status, code, text and
   * data as the first answer, marked `idempotent-replayed`.
   */
  replayed: (status: number, envelope: { error?: string; code?: string; data?: unknown }) =>
    new AppError(
      status,
      errorCodeSchema.safeParse(envelope.code).data ?? 'INTERNAL',
      envelope.error ?? 'Order rejected',
      undefined,
      envelope.data === undefined ? undefined : { data: envelope.data },
      { 'idempotent-replayed': 'true' },
    ),
} as const;

/** The envelope of a failure: the one place its shape is written (the handler and stored idempotent answers use it). */
export function errorEnvelope(err: AppError): ErrorEnvelope & Record<string, unknown> {
  return {
    success: false,
    error: err.message,
    code: err.code,
    ...(err.details === undefined ? {} : { details: err.details }),
    ...err.body,
  };
}

function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

interface ZodLikeIssue {
  path: PropertyKey[];
  message: string;
  code?: string;
  keys?: string[];
}

/** Turns zod issues into one readable sentence that names the field, plus the details list. */
export function validationFromIssues(issues: readonly ZodLikeIssue[], where = 'body'): AppError {
  const details = issues.map((i) => ({
    field: i.code === 'unrecognized_keys' && i.keys ? i.keys.join(',') : i.path.map(String).join('.') || where,
    message:
      i.code === 'unrecognized_keys' && i.keys ? `Unknown field${i.keys.length > 1 ? 's' : ''}: ${i.keys.join(', ')}` : i.message,
  }));
  const first = details[0];
  const message = first
    ? first.message.startsWith('Unknown field')
      ? first.message
      : `${first.field}: ${first.message}`
    : 'Invalid request';
  return errors.validation(message, details);
}

/**
 * One central handler: every failure leaves the server as `{success:false,error,code,details?}`.
 * With `spaFallback`, unknown GET paths outside /api and /ws answer the SPA's index.html
 * (client-side routes such as /pair/EURUSD); `reply.sendFile` comes from @fastify/static.
 */
export function installErrorHandler(app: FastifyInstance, options: { spaFallback?: boolean } = {}): void {
  const send = (reply: FastifyReply, err: AppError) => {
    if (err.headers) void reply.headers(err.headers);
    return reply.status(err.status).send(errorEnvelope(err));
  };
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    if (err instanceof AppError) return send(reply, err);
    // `?? {}`: a library may throw null or undefined; that is a 500 too, not a crash of this handler.
    const fe = (err ?? {}) as FastifyError;
    const status = fe.statusCode ?? 500;
    if (status >= 400 && status < 500) return send(reply, fromFastifyClientError(fe, status, err instanceof SyntaxError));
    if (isDatabaseUnavailable(err)) {
      // An outage, not a bug: no stack; the pool logs the outage once (docs/operations.md#database-outages).
      request.log.debug({ reason: err.message }, 'database unavailable');
      return send(reply, errors.databaseUnavailable(retryAfterSeconds(err)));
    }
    request.log.error({ err }, 'unexpected error');
    return send(reply, errors.internal());
  });
  app.setNotFoundHandler((request, reply) => {
    // The SPA owns its client routes, which never name a file: a missing asset, a source map
    // that is not served, /metrics when metrics are off, /api/… and /ws/… are 404s, not the app's page.
    const pathname = request.url.split('?')[0] ?? '/';
    const isAppPage =
      request.method === 'GET' &&
      !pathname.startsWith('/api/') &&
      !pathname.startsWith('/ws/') &&
      pathname !== '/metrics' &&
      !/\.[a-z0-9]+$/i.test(pathname);
    if (options.spaFallback && isAppPage)
      return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
    return send(reply, errors.routeNotFound(request.method, request.url.split('?')[0] ?? '/'));
  });
}

/** Fastify's own client errors (malformed JSON, body too large, bad content type) as catalogue errors. */
function fromFastifyClientError(fe: FastifyError, status: number, isSyntaxError: boolean): AppError {
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(status);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(status);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.emptyBody();
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.invalidJson();
    default:
      return isSyntaxError ? errors.invalidJson() : errors.badRequest(fe.message, status);
  }
}

/**
 * Fastify's `frameworkErrors`: it answers a malformed URL (`/api/%ZZ`) or an over-long path
 * parameter before any hook runs, in its own shape and without the security headers; this
 * gives those answers the envelope and the headers like every other.
 */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  setSecurityHeaders(request, reply);
  const status = err.statusCode ?? 500;
  if (status >= 500) request.log.error({ err }, 'unexpected error');
  const answer =
    status >= 500
      ? errors.internal()
      : err.code === 'FST_ERR_BAD_URL'
        ? errors.malformedUrl(status)
        : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? errors.pathSegmentTooLong(status)
          : errors.badRequest('Bad request', status);
  void reply.status(answer.status).send(errorEnvelope(answer));
}
