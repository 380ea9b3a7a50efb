import { z } from 'zod';

/** Wraps a data schema in the success envelope. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}
export type Envelope<T> = { success: true; data: T };
