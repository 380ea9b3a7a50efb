import { z } from 'zod';

// Contract of the health probes (docs/api.md#health, docs/operations.md#health): their answers'
// `data`, so the API document (server/src/openapi/) describes them from the same schemas.

export const dbHealthSchema = z.object({ kind: z.enum(['sqlite', 'postgres']), ok: z.boolean() });
export const busHealthSchema = z.object({ kind: z.enum(['memory', 'redis']), ok: z.boolean() });
export const priceSourceHealthSchema = z.object({
  name: z.string(),
  connected: z.boolean(),
  /** Null before the first tick. */
  last_tick_age_ms: z.number().nullable(),
  /** The stale limit (EXTERNAL_FEED_STALE_MS): no order fills on a quote older than this (docs/trading-rules.md#no-fill-on-a-stale-quote). */
  stale_after_ms: z.number(),
  /**
   * The active pairs whose quote on this node is older than `stale_after_ms` (age_ms null: none
   * yet): their orders, triggers and closes are rejected "No price available" until a new tick.
   */
  stale_pairs: z.array(z.object({ symbol: z.string(), age_ms: z.number().nullable() })),
});
export type PriceSourceHealthDto = z.infer<typeof priceSourceHealthSchema>;
export const newsSourceHealthSchema = z.object({
  ok: z.boolean(),
  last_error: z.string().nullable(),
  last_success_at: z.string().nullable(),
});

/** GET health/ (200 when `ok`, 503 when `degraded`, same shape). */
export const healthReportSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  db: dbHealthSchema,
  bus: busHealthSchema,
  price_source: priceSourceHealthSchema,
  /** Per news source, by its id. */
  news: z.record(z.string(), newsSourceHealthSchema),
});
export type HealthReportDto = z.infer<typeof healthReportSchema>;

/** GET health/live/: the process answers. */
export const healthLiveSchema = z.object({ status: z.literal('live') });

/** GET health/ready/ when every check passed (otherwise 503 `UNAVAILABLE` with the report in `details`). */
export const healthReadySchema = z.object({
  status: z.literal('ready'),
  db: dbHealthSchema,
  bus: busHealthSchema,
  price_source: priceSourceHealthSchema,
});
