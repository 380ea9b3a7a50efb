import { z } from 'zod';

/** Wraps a data schema in the success envelope. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}
export type Envelope<T> = { success: true; data: T };

/** What a text input may not hold, as the 400 names it (docs/api.md#hostile-input). */
export const UNSAFE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when a string is safe to store and compare: no NUL (PostgreSQL refuses it in text,
 * SQLite truncates at it in places) and no unpaired UTF-16 surrogate (not encodable as UTF-8).
 * See docs/api.md#hostile-input.
 */
export function isSafeText(value: string): boolean {
  return !value.includes('\0') && !UNPAIRED_SURROGATE.test(value);
}

/**
 * The one text schema for every input field (body, query, path, headers): a string that
 * rejects NUL and unpaired surrogates before any other check (the check aborts, so the 400
 * names the field with this reason alone). Chain the usual string checks after it:
 * `text().trim().min(1, 'is required').max(20)`. Output schemas keep `z.string()`.
 */
export function text(params?: { message?: string }) {
  return z.string(params?.message).refine(isSafeText, { message: UNSAFE_TEXT_MESSAGE, abort: true });
}
