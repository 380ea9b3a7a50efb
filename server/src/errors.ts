import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { setSecurityHeaders } from './http/security.js';

/**
 * The one error type the server throws on purpose. Every failure a client can see is made
 * by a factory below, so codes and statuses stay consistent; the central handler in
 * `installErrorHandler` turns it into DESIGN §4's envelope.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
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

/** The error catalogue: stable codes with their HTTP statuses. */
export const errors = {
  validation: (message: string, details?: unknown) => new AppError(400, 'VALIDATION_ERROR', message, details),
  badRequest: (message: string, code = 'BAD_REQUEST') => new AppError(400, code, message),
  unauthenticated: (message = 'Authentication required') => new AppError(401, 'UNAUTHENTICATED', message),
  invalidCredentials: () => new AppError(401, 'INVALID_CREDENTIALS', 'Invalid email or password'),
  invalidToken: (message = 'Invalid or expired token') => new AppError(401, 'INVALID_TOKEN', message),
  notFound: (message = 'Not found', code = 'NOT_FOUND') => new AppError(404, code, message),
  pairNotFound: (symbol: string) => new AppError(404, 'PAIR_NOT_FOUND', `Currency pair ${symbol} not found`),
  conflict: (message: string, code = 'CONFLICT') => new AppError(409, code, message),
  unprocessable: (message: string, code = 'UNPROCESSABLE', body?: Record<string, unknown>) =>
    new AppError(422, code, message, undefined, body),
  tooManyRequests: (retryAfterSeconds: number, message?: string) =>
    new AppError(
      429,
      'TOO_MANY_REQUESTS',
      message ?? `Too many attempts. Try again in ${formatWait(retryAfterSeconds)}.`,
      { retry_after_seconds: retryAfterSeconds },
      undefined,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  demoNotImplemented: () => new AppError(400, 'DEMO_NOT_IMPLEMENTED', 'Demo trading mode not yet implemented'),
  unavailable: (message: string) => new AppError(503, 'UNAVAILABLE', message),
} as const;

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
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    if (err instanceof AppError) {
      if (err.headers) void reply.headers(err.headers);
      return reply.status(err.status).send({
        success: false,
        error: err.message,
        code: err.code,
        ...(err.details === undefined ? {} : { details: err.details }),
        ...err.body,
      });
    }
    // `?? {}`: a library may throw null or undefined; that is a 500 too, not a crash of this handler.
    const fe = (err ?? {}) as FastifyError;
    const status = fe.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: malformed JSON, body too large, bad content type.
      const message =
        fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 'Request body is too large'
          : fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? 'Unsupported content type: send application/json'
            : fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
              ? 'Request body is empty: send a JSON object'
              : fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
                ? 'Request body is not valid JSON'
                : fe.message;
      return reply.status(status).send({ success: false, error: message, code: fe.code ?? 'BAD_REQUEST' });
    }
    request.log.error({ err }, 'unexpected error');
    return reply.status(500).send({ success: false, error: 'Internal server error', code: 'INTERNAL' });
  });
  app.setNotFoundHandler((request, reply) => {
    const isAppPage = request.method === 'GET' && !request.url.startsWith('/api/') && !request.url.startsWith('/ws/');
    if (options.spaFallback && isAppPage)
      return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
    return reply
      .status(404)
      .send({ success: false, error: `No route for ${request.method} ${request.url.split('?')[0]}`, code: 'NOT_FOUND' });
  });
}

/**
 * Fastify's `frameworkErrors`: it answers a malformed URL (`/api/%ZZ`) or an over-long path
 * parameter before any hook runs, in its own shape and without the security headers; this
 * gives those answers the envelope and the headers like every other.
 */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  setSecurityHeaders(request, reply);
  const status = err.statusCode ?? 500;
  if (status >= 500) {
    request.log.error({ err }, 'unexpected error');
    void reply.status(500).send({ success: false, error: 'Internal server error', code: 'INTERNAL' });
    return;
  }
  const message =
    err.code === 'FST_ERR_BAD_URL'
      ? 'Malformed URL: invalid percent-encoding'
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'URL path segment is too long'
        : 'Bad request';
  void reply.status(status).send({ success: false, error: message, code: err.code ?? 'BAD_REQUEST' });
}
