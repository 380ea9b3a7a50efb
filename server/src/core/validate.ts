import type { z } from 'zod';
import { validationFromIssues } from '../errors.js';

/**
 * Parses untrusted input with a contract schema; a failure becomes a 400 naming the field.
 * Routes call this for body, query and params so no handler sees unchecked data.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'params' = 'body',
): z.infer<S> {
  const result = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (!result.success) throw validationFromIssues(result.error.issues, where);
  return result.data;
}
