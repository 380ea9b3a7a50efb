import { z } from 'zod';

/**
 * Every machine code a failure answer can carry. The server's error catalogue
 * (`server/src/errors.ts`) has one factory per code and no other way to make an error answer,
 * so this list and the server cannot drift: the catalogue is typed by it.
 */
export const ERROR_CODES = [
  // 400: the request itself is wrong (nothing stored)
  'VALIDATION_ERROR',
  'BAD_REQUEST',
  'MALFORMED_URL',
  'PATH_SEGMENT_TOO_LONG',
  'INVALID_JSON',
  'EMPTY_BODY',
  'UNSUPPORTED_MEDIA_TYPE',
  'DEMO_NOT_IMPLEMENTED',
  // an evaluation's order rules (docs/evaluations.md#the-rules); nothing is stored
  'STOP_LOSS_REQUIRED',
  'MAX_LOTS_EXCEEDED',
  // 401
  'UNAUTHENTICATED',
  'INVALID_CREDENTIALS',
  'INVALID_TOKEN',
  // 403: only an academy call for another role (a trader on an instructor's call) and a temporary
  // password not yet changed (docs/academy.md#scope); anything outside the caller's scope is a 404
  'FORBIDDEN',
  'SELF_START_NOT_ALLOWED',
  'PASSWORD_CHANGE_REQUIRED',
  // 404: not found, or not the caller's
  'NOT_FOUND',
  'PAIR_NOT_FOUND',
  'POSITION_NOT_FOUND',
  'ORDER_NOT_FOUND',
  'TRADER_NOT_FOUND',
  'COHORT_NOT_FOUND',
  'STUDENT_NOT_FOUND',
  'DRAWING_NOT_FOUND',
  'ALERT_NOT_FOUND',
  'ACCOUNT_NOT_FOUND',
  'PROGRAM_NOT_FOUND',
  'ATTEMPT_NOT_FOUND',
  'REPLAY_NOT_FOUND',
  // 408: the request head or body did not arrive in time
  'REQUEST_TIMEOUT',
  // 409
  'POSITION_CLOSED',
  'ORDER_NOT_PENDING',
  'NO_TRADING_ACCOUNT',
  'TRADER_EXISTS',
  'IDEMPOTENCY_KEY_IN_FLIGHT',
  'ALREADY_IN_COHORT',
  // a per-trader limit of the chart tools (drawings per pair, active alerts)
  'LIMIT_REACHED',
  'ALERT_NOT_ACTIVE',
  // evaluations (docs/evaluations.md): an ended attempt's account, a second active attempt, an archived program
  'CHALLENGE_CLOSED',
  'ATTEMPT_ACTIVE',
  'PROGRAM_ARCHIVED',
  // replay (docs/replay.md): a session whose data is over; one another server is moving (docs/replay.md#many-nodes)
  'REPLAY_FINISHED',
  'REPLAY_BUSY',
  // 413
  'PAYLOAD_TOO_LARGE',
  // 431: the request's headers are larger than the server reads
  'HEADERS_TOO_LARGE',
  // 422: business rejections (the order is stored REJECTED) and a reused Idempotency-Key
  'ACCOUNT_NOT_ACTIVE',
  'NO_PRICE',
  'INSUFFICIENT_MARGIN',
  'IDEMPOTENCY_KEY_REUSED',
  // 429
  'TOO_MANY_REQUESTS',
  // 5xx
  'INTERNAL',
  'UNAVAILABLE',
  // 503 with Retry-After: the database cannot be reached; nothing was done, retry later
  'DATABASE_UNAVAILABLE',
  // 503 with Retry-After: this node is over its load limits; nothing was done, retry later
  'SERVER_BUSY',
] as const;
export const errorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

/** Why an order was stored REJECTED (the `code` of its 422 answer). */
export const ORDER_REJECTION_CODES = [
  'ACCOUNT_NOT_ACTIVE',
  'NO_PRICE',
  'INSUFFICIENT_MARGIN',
] as const satisfies readonly ErrorCode[];
export const orderRejectionCodeSchema = z.enum(ORDER_REJECTION_CODES);
export type OrderRejectionCode = z.infer<typeof orderRejectionCodeSchema>;

/** The failure envelope of every call (docs/api.md#envelope). */
export const errorEnvelopeSchema = z.object({
  success: z.literal(false),
  error: z.string(),
  code: errorCodeSchema,
  details: z.unknown().optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
