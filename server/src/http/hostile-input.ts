import { isSafeText, UNSAFE_TEXT_MESSAGE } from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';

/**
 * The safety net of docs/api.md#hostile-input. Every input schema of the contract already
 * rejects NUL and unpaired surrogates (`text()`); this hook checks the same before any
 * route runs, over the parsed query, the path parameters, the JSON body (values and keys)
 * and the headers, so a route that reads a field without the contract (a path symbol, a
 * new call) still never hands such a string to the database. The answer is the same 400
 * the contract gives: `VALIDATION_ERROR` naming the field.
 *
 * `authorization` is left to the token check: any odd bearer token is a 401 (docs/api.md).
 */
export function installHostileInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const field = firstUnsafeField(request);
    if (field !== undefined)
      throw errors.validation(`${field}: ${UNSAFE_TEXT_MESSAGE}`, [{ field, message: UNSAFE_TEXT_MESSAGE }]);
  });
}

/** Headers read as tokens: a bad one is the token check's 401, not a 400. */
const HEADERS_LEFT_TO_AUTH = new Set(['authorization']);

/** The name of the first field holding an unsafe string, or undefined when every one is safe. */
export function firstUnsafeField(request: Pick<FastifyRequest, 'query' | 'params' | 'body' | 'headers'>): string | undefined {
  for (const [name, value] of Object.entries(request.headers)) {
    if (HEADERS_LEFT_TO_AUTH.has(name)) continue;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && !isSafeText(v))) return name;
  }
  return unsafePath(request.params) ?? unsafePath(request.query) ?? unsafePath(request.body);
}

/**
 * Walks a parsed value without recursion (a JSON body may nest thousands deep within the body
 * limit) and returns the dotted path of the first unsafe string, key or value.
 */
export function unsafePath(root: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path } = item;
    if (typeof value === 'string') {
      if (!isSafeText(value)) return path || 'body';
    } else if (value !== null && typeof value === 'object') {
      // Pushed last to first, so fields are met in the order they were sent.
      for (const [key, child] of Object.entries(value).reverse()) {
        const childPath = path ? `${path}.${readable(key)}` : readable(key);
        if (!isSafeText(key)) return childPath;
        stack.push({ value: child, path: childPath });
      }
    }
  }
  return undefined;
}

/** A field name as it may be echoed in the answer: its unsafe characters replaced by U+FFFD. */
function readable(key: string): string {
  return isSafeText(key)
    ? key
    : key.replace(/\0/g, '\uFFFD').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
