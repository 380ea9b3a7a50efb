import { IDEMPOTENCY_KEY_MAX_LENGTH } from '@pipdesk/contract';
import { errors } from '../errors.js';

/** Reads the optional `Idempotency-Key` header: 1 to 255 visible characters, else 400. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header))
    throw errors.validation('Idempotency-Key: send the header once', [
      { field: 'Idempotency-Key', message: 'send the header once' },
    ]);
  const key = header.trim();
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    const message = `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`;
    throw errors.validation(`Idempotency-Key: ${message}`, [{ field: 'Idempotency-Key', message }]);
  }
  return key;
}
