import { z } from 'zod';
import { text } from './common.js';
import { tradeSchema } from './trading.js';

// Contract of the performance statistics, the equity curve and the trade journal
// (docs/performance.md, docs/api.md#performance-and-the-trade-journal). Every figure is for the
// account's current period (from its creation or its last reset). Money in answers is a number
// rounded to 2 decimals, percentages to 2; the server computes them exactly.

export * from './performance-math.js';

/** docs/performance.md#the-journal: the journal's page size. */
export const JOURNAL_PAGE_SIZE = 20;
export const JOURNAL_NOTE_MAX_LENGTH = 5000;
export const JOURNAL_MAX_TAGS = 10;
export const JOURNAL_TAG_MAX_LENGTH = 32;
export const JOURNAL_RATING_MIN = 1;
export const JOURNAL_RATING_MAX = 5;
/** docs/performance.md#the-equity-curve: the curve's ranges (1 week, 1 month, the whole period). */
export const EQUITY_CURVE_RANGES = ['1w', '1m', 'all'] as const;
export type EquityCurveRange = (typeof EQUITY_CURVE_RANGES)[number];

const isoTime = z.string();

// ---------------------------------------------------------------- answers

/** One row of the per-pair table. */
export const pairPerformanceSchema = z.object({
  symbol: z.string(),
  /** Closed trades on the pair. */
  trades: z.number().int(),
  net_pnl: z.number(),
  /** Percent; null with no wins and no losses on the pair. */
  win_rate: z.number().nullable(),
});
export type PairPerformanceDto = z.infer<typeof pairPerformanceSchema>;

/**
 * GET trading/performance/. Losses are negative numbers (`average_loss`, `largest_loss`), as the
 * realized P&L they come from; a figure with nothing to measure is null.
 */
export const performanceSchema = z.object({
  /** When the current period started: the account's creation or its last reset. */
  period_start: isoTime,
  /** The balance at the period start plus deposits and adjustments since (the base of return %). */
  start_balance: z.number(),
  /** Balance + unrealized P&L at current prices. */
  equity: z.number(),
  /** Σ realized P&L of the period's closed trades. */
  net_pnl: z.number(),
  /** (equity − start) ÷ start × 100; null when start is not positive. */
  return_pct: z.number().nullable(),
  closed_trades: z.number().int(),
  wins: z.number().int(),
  losses: z.number().int(),
  breakevens: z.number().int(),
  /** wins ÷ (wins + losses) × 100; null with no wins and no losses. */
  win_rate: z.number().nullable(),
  /** gross profit ÷ |gross loss|; null with no loss. */
  profit_factor: z.number().nullable(),
  /** net P&L ÷ closed trades; null with no closed trade. */
  expectancy: z.number().nullable(),
  /** Null with no win. */
  average_win: z.number().nullable(),
  /** Negative; null with no loss. */
  average_loss: z.number().nullable(),
  largest_win: z.number().nullable(),
  /** The most negative closed trade; null with no loss. */
  largest_loss: z.number().nullable(),
  /** In closed trades; a breakeven ends neither streak. */
  longest_win_streak: z.number().int(),
  longest_loss_streak: z.number().int(),
  /** Largest (peak − later trough) ÷ peak × 100 over the equity curve; 0 with no drawdown. */
  max_drawdown_pct: z.number(),
  /** Pairs with at least one closed trade, by symbol. */
  by_pair: z.array(pairPerformanceSchema),
});
export type PerformanceDto = z.infer<typeof performanceSchema>;

/** A point of the equity curve. */
export const equityPointSchema = z.object({
  time: isoTime,
  equity: z.number(),
  balance: z.number(),
});
export type EquityPointDto = z.infer<typeof equityPointSchema>;

/** GET trading/equity-curve/?range=: the points, oldest first. */
export const equityCurveSchema = z.array(equityPointSchema);
export type EquityCurveDto = z.infer<typeof equityCurveSchema>;

export const journalCommentSchema = z.object({
  id: z.number().int(),
  author: z.object({ id: z.number().int(), full_name: z.string() }),
  text: z.string(),
  created_at: isoTime,
});
export type JournalCommentDto = z.infer<typeof journalCommentSchema>;

/** One closed trade with the trader's notes and the instructors' comments (oldest first). */
export const journalEntrySchema = z.object({
  trade: tradeSchema,
  /** Empty when the trader wrote none. */
  note: z.string(),
  tags: z.array(z.string()),
  /** 1–5 stars; null when not rated. */
  rating: z.number().int().nullable(),
  comments: z.array(journalCommentSchema),
});
export type JournalEntryDto = z.infer<typeof journalEntrySchema>;

/** GET trading/journal/: like orders/, no envelope; newest first. `next`/`previous` carry the same query. */
export const journalPageSchema = z.object({
  count: z.number().int(),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  results: z.array(journalEntrySchema),
});
export type JournalPage = z.infer<typeof journalPageSchema>;

/** GET trading/journal/tags/: the tags the trader has used, most used first (the tag chips' suggestions). */
export const journalTagsSchema = z.array(z.string());
export type JournalTagsDto = z.infer<typeof journalTagsSchema>;

// ---------------------------------------------------------------- requests

// Text a person typed goes through the contract's `text()` (no NUL, no lone surrogate: docs/api.md#hostile-input).
const noteField = text({ message: 'must be text' }).max(
  JOURNAL_NOTE_MAX_LENGTH,
  `must be at most ${JOURNAL_NOTE_MAX_LENGTH} characters`,
);

const tagField = text({ message: 'must be text' })
  .trim()
  .min(1, 'must not be empty')
  .max(JOURNAL_TAG_MAX_LENGTH, `must be at most ${JOURNAL_TAG_MAX_LENGTH} characters`);

/**
 * PUT trading/journal/{tradeId}/: fields left out keep their value (send all three to replace
 * the entry). Tags are trimmed and repeated tags kept once, in the order given; null clears the rating.
 */
export const journalEntryRequestSchema = z
  .strictObject({
    note: noteField.optional(),
    tags: z
      .array(tagField, 'must be a list of tags')
      .transform((tags) => [...new Set(tags)])
      .pipe(z.array(z.string()).max(JOURNAL_MAX_TAGS, `must have at most ${JOURNAL_MAX_TAGS} tags`))
      .optional(),
    rating: z
      .number('must be a number from 1 to 5 or null')
      .int('must be a whole number from 1 to 5')
      .min(JOURNAL_RATING_MIN, 'must be from 1 to 5')
      .max(JOURNAL_RATING_MAX, 'must be from 1 to 5')
      .nullable()
      .optional(),
  })
  .refine((v) => v.note !== undefined || v.tags !== undefined || v.rating !== undefined, 'send at least one field to change');
export type JournalEntryRequest = z.infer<typeof journalEntryRequestSchema>;

/** Query strings arrive as text; an empty value means "no filter". */
const optionalQueryText = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' || v === undefined ? undefined : v), schema.optional());

export const journalQuerySchema = z.strictObject({
  page: optionalQueryText(
    z
      .string()
      .trim()
      .regex(/^\d{1,9}$/, 'must be a positive integer')
      .transform(Number)
      .pipe(z.number().int().min(1, 'must be at least 1')),
  ),
  symbol: optionalQueryText(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z]{6}$/, 'must be a currency pair like EURUSD')
      .transform((s) => s.toUpperCase()),
  ),
  tag: optionalQueryText(tagField),
});
export type JournalQuery = z.infer<typeof journalQuerySchema>;

export const equityCurveQuerySchema = z.strictObject({
  range: optionalQueryText(z.enum(EQUITY_CURVE_RANGES, 'must be 1w, 1m or all')).transform((r) => r ?? 'all'),
});
export type EquityCurveQuery = z.infer<typeof equityCurveQuerySchema>;
