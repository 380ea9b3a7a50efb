import { z } from 'zod';
import { errorEnvelopeSchema } from '../errors.js';
import { orderRejectedSchema } from '../trading.js';
import type { ApiAnswer } from './define.js';

// The answers many calls share, worded once for the document.

export const error = (description: string): ApiAnswer => ({ description, json: errorEnvelopeSchema });
export const validation400 = error('Validation failed: `error` names the field, `details` lists `{field, message}`.');
export const noAccount409 = error('`NO_TRADING_ACCOUNT`: the trader has no trading account.');
export const forbidden403 = error('`FORBIDDEN`: the call is for another role (docs/academy.md#scope).');
export const cohort404 = error('`COHORT_NOT_FOUND`: no such cohort, or outside the caller’s scope.');
export const student404 = error('`STUDENT_NOT_FOUND`: no such student, or outside the caller’s scope.');
export const tooMany429 = (what: string): ApiAnswer => ({
  ...error(`\`TOO_MANY_REQUESTS\`: ${what}.`),
  headers: { 'Retry-After': 'Seconds to wait.' },
});

export const rejected422: ApiAnswer = {
  description:
    'Business rejection: the order is stored REJECTED and carried as `data.order` (`ACCOUNT_NOT_ACTIVE`, `NO_PRICE`, `INSUFFICIENT_MARGIN`); or `IDEMPOTENCY_KEY_REUSED`.',
  json: z.union([orderRejectedSchema, errorEnvelopeSchema]),
};

/**
 * A pair in a path. Any text up to 200 characters, not the catalogue's symbols: the catalogue is
 * the server's (pairs can be added), and an unknown pair must answer 404 `PAIR_NOT_FOUND` naming
 * it, not a 400 (docs/api.md#market-calls).
 */
export const symbolParams = z.object({ symbol: z.string().min(1).max(200) });
