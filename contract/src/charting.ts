// Contract of the chart tools (docs/charting.md): timeframes, drawings, chart layouts, price
// alerts and position size from risk. The calls are declared in operations/charting.ts.
import { z } from 'zod';
import { text } from './common.js';
import { timeframeSchema } from './market.js';
import { optionalText, PRICE_MAX, priceField, symbolField } from './trading-requests.js';

// ---------------------------------------------------------------------------------------
// Drawings

export const DRAWING_KINDS = ['hline', 'trend', 'ray', 'rect', 'fib', 'text'] as const;
export type DrawingKind = (typeof DRAWING_KINDS)[number];
/** How many points each kind is anchored by. */
export const DRAWING_POINTS: Readonly<Record<DrawingKind, 1 | 2>> = {
  hline: 1,
  text: 1,
  trend: 2,
  ray: 2,
  rect: 2,
  fib: 2,
};
/** The retracement levels a Fibonacci drawing shows, in per cent. */
export const FIB_LEVELS = [0, 23.6, 38.2, 50, 61.8, 78.6, 100] as const;
/** The most drawings a trader keeps on one pair (409 `LIMIT_REACHED` beyond). */
export const MAX_DRAWINGS_PER_PAIR = 500;
export const DRAWING_TEXT_MAX = 200;

export const drawingPointSchema = z.strictObject({
  /** Epoch ms. */
  time: z.number('must be a number').int('must be a whole number of milliseconds').min(0).max(8_640_000_000_000_000),
  price: z.number('must be a number').positive('must be greater than 0').finite().max(PRICE_MAX),
});
export type DrawingPoint = z.infer<typeof drawingPointSchema>;

const colorField = text().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #1f77b4');
const drawingTextField = text().trim().max(DRAWING_TEXT_MAX, `must be at most ${DRAWING_TEXT_MAX} characters`);

export const createDrawingRequestSchema = z
  .strictObject({
    symbol: symbolField,
    kind: z.enum(DRAWING_KINDS, `must be one of ${DRAWING_KINDS.join(', ')}`),
    points: z.array(drawingPointSchema).min(1, 'must have at least one point').max(2, 'must have at most two points'),
    text: drawingTextField.optional(),
    color: colorField.optional(),
  })
  .superRefine((d, ctx) => {
    const wanted = DRAWING_POINTS[d.kind];
    if (d.points.length !== wanted)
      ctx.addIssue({
        code: 'custom',
        path: ['points'],
        message: `a ${d.kind} has exactly ${wanted} point${wanted === 1 ? '' : 's'}`,
      });
    if (d.kind === 'text' && !d.text) ctx.addIssue({ code: 'custom', path: ['text'], message: 'is required for a text note' });
  });
export type CreateDrawingRequest = z.infer<typeof createDrawingRequestSchema>;

/** PATCH: fields left out keep their value; `points` must keep the kind's count (checked by the server). */
export const updateDrawingRequestSchema = z
  .strictObject({
    points: z.array(drawingPointSchema).min(1, 'must have at least one point').max(2, 'must have at most two points').optional(),
    text: drawingTextField.nullable().optional(),
    color: colorField.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'send at least one field to change');
export type UpdateDrawingRequest = z.infer<typeof updateDrawingRequestSchema>;

export const drawingSchema = z.object({
  id: z.number().int(),
  symbol: z.string(),
  kind: z.enum(DRAWING_KINDS),
  points: z.array(z.object({ time: z.number().int(), price: z.number() })),
  text: z.string().nullable(),
  color: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Drawing = z.infer<typeof drawingSchema>;
export const drawingsSchema = z.array(drawingSchema);

export const drawingsQuerySchema = z.strictObject({ symbol: symbolField });

// ---------------------------------------------------------------------------------------
// Chart layout, indicators and settings

export const INDICATOR_KINDS = ['sma', 'ema', 'bb', 'rsi', 'macd', 'stoch', 'atr'] as const;
export type IndicatorKind = (typeof INDICATOR_KINDS)[number];
/** Overlays draw on the price pane; the others in a pane of their own. */
export const OVERLAY_INDICATORS: readonly IndicatorKind[] = ['sma', 'ema', 'bb'];

const period = (fallback: number) =>
  z.number().int('must be a whole number').min(1, 'must be at least 1').max(500, 'must be at most 500').default(fallback);

/** Each indicator with its parameters and the usual defaults (MT5, TradingView). */
export const indicatorSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('sma'), period: period(20) }),
  z.strictObject({ kind: z.literal('ema'), period: period(20) }),
  z.strictObject({
    kind: z.literal('bb'),
    period: period(20),
    stddev: z.number().positive('must be greater than 0').max(10, 'must be at most 10').default(2),
  }),
  z.strictObject({ kind: z.literal('rsi'), period: period(14) }),
  z.strictObject({ kind: z.literal('macd'), fast: period(12), slow: period(26), signal: period(9) }),
  z.strictObject({ kind: z.literal('stoch'), k: period(14), d: period(3), smooth: period(3) }),
  z.strictObject({ kind: z.literal('atr'), period: period(14) }),
]);
export type Indicator = z.infer<typeof indicatorSchema>;
export const MAX_INDICATORS_PER_CHART = 8;

export const CHART_LAYOUTS = [1, 2, 4] as const;
export const chartPanelSchema = z.strictObject({
  symbol: symbolField,
  timeframe: timeframeSchema,
  indicators: z.array(indicatorSchema).max(MAX_INDICATORS_PER_CHART, `must have at most ${MAX_INDICATORS_PER_CHART}`).default([]),
});
export type ChartPanel = z.infer<typeof chartPanelSchema>;

export const chartSettingsSchema = z.strictObject({
  /** One-click trading (DESIGN §18): off by default. */
  one_click: z.boolean().default(false),
  /** The lot size the one-click buttons trade. */
  one_click_lots: z.number().positive().max(100).default(0.01),
});
export type ChartSettings = z.infer<typeof chartSettingsSchema>;

/** GET/PUT trading/chart-layout/: `charts` has exactly `layout` panels. */
export const chartLayoutSchema = z
  .strictObject({
    layout: z.union([z.literal(1), z.literal(2), z.literal(4)], { error: 'must be 1, 2 or 4' }),
    charts: z.array(chartPanelSchema).min(1).max(4),
    settings: chartSettingsSchema.default({ one_click: false, one_click_lots: 0.01 }),
  })
  .refine((l) => l.charts.length === l.layout, { path: ['charts'], message: 'must have one chart per place of the layout' });
export type ChartLayout = z.infer<typeof chartLayoutSchema>;

/** What a trader who never saved a layout gets. */
export const DEFAULT_CHART_LAYOUT: ChartLayout = {
  layout: 1,
  charts: [{ symbol: 'EURUSD', timeframe: 'h1', indicators: [] }],
  settings: { one_click: false, one_click_lots: 0.01 },
};

// ---------------------------------------------------------------------------------------
// Price alerts

export const ALERT_CONDITIONS = ['bid_above', 'bid_below', 'ask_above', 'ask_below'] as const;
export type AlertCondition = (typeof ALERT_CONDITIONS)[number];
export const ALERT_STATUSES = ['ACTIVE', 'TRIGGERED', 'EXPIRED'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
/** The most ACTIVE alerts a trader keeps (409 `LIMIT_REACHED` beyond). */
export const MAX_ACTIVE_ALERTS = 200;
export const ALERT_NOTE_MAX = 200;

const alertNoteField = text().trim().max(ALERT_NOTE_MAX, `must be at most ${ALERT_NOTE_MAX} characters`);
const isoDateTimeField = text()
  .trim()
  .refine((v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date-time');

export const createAlertRequestSchema = z.strictObject({
  symbol: symbolField,
  condition: z.enum(ALERT_CONDITIONS, `must be one of ${ALERT_CONDITIONS.join(', ')}`),
  price: priceField,
  note: alertNoteField.optional(),
  /** Must be in the future (checked by the server against its clock). */
  expires_at: isoDateTimeField.optional(),
});
export type CreateAlertRequest = z.infer<typeof createAlertRequestSchema>;

/** PATCH: only an ACTIVE alert changes (409 `ALERT_NOT_ACTIVE`); null clears note or expiry. */
export const updateAlertRequestSchema = z
  .strictObject({
    condition: z.enum(ALERT_CONDITIONS, `must be one of ${ALERT_CONDITIONS.join(', ')}`).optional(),
    price: priceField.optional(),
    note: alertNoteField.nullable().optional(),
    expires_at: isoDateTimeField.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'send at least one field to change');
export type UpdateAlertRequest = z.infer<typeof updateAlertRequestSchema>;

export const alertSchema = z.object({
  id: z.number().int(),
  symbol: z.string(),
  condition: z.enum(ALERT_CONDITIONS),
  price: z.number(),
  note: z.string().nullable(),
  status: z.enum(ALERT_STATUSES),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  triggered_at: z.string().nullable(),
  /** The bid or ask of the tick that fired it. */
  triggered_price: z.number().nullable(),
});
export type Alert = z.infer<typeof alertSchema>;
export const alertsSchema = z.array(alertSchema);
export const alertAnswerSchema = z.object({ alert: alertSchema });

export const alertsQuerySchema = z.strictObject({
  status: optionalText(
    text()
      .trim()
      .toUpperCase()
      .pipe(z.enum(ALERT_STATUSES, `must be one of ${ALERT_STATUSES.join(', ')}`)),
  ),
});

// ---------------------------------------------------------------------------------------
// Position size from risk

const positiveNumberText = (max: number) =>
  text()
    .trim()
    .regex(/^\d+(\.\d+)?$/, 'must be a positive number')
    .transform(Number)
    .pipe(z.number().positive('must be greater than 0').max(max, `must be at most ${max}`));

/** GET trading/position-size/: exactly one of `stop_pips` and `stop_price`. */
export const positionSizeQuerySchema = z
  .strictObject({
    symbol: symbolField,
    risk_pct: positiveNumberText(100),
    stop_pips: optionalText(positiveNumberText(10_000)),
    stop_price: optionalText(positiveNumberText(PRICE_MAX)),
    /** With `stop_price`: the side the stop protects (BUY enters at the ask, SELL at the bid); default from where the stop is. */
    side: optionalText(
      text()
        .trim()
        .toUpperCase()
        .pipe(z.enum(['BUY', 'SELL'], 'must be BUY or SELL')),
    ),
  })
  .refine((q) => (q.stop_pips === undefined) !== (q.stop_price === undefined), {
    path: ['stop_pips'],
    message: 'send exactly one of stop_pips and stop_price',
  });
export type PositionSizeQuery = z.infer<typeof positionSizeQuerySchema>;

export const positionSizeSchema = z.object({
  /** The largest multiple of 0.01 whose loss at the stop is within the risk, inside the pair's lot bounds (0 when even the minimum risks more). */
  lots: z.number(),
  /** `risk_pct` % of equity in USD: the most the trade may lose at the stop. */
  risk_amount: z.number(),
  /** What one pip is worth for one lot, in USD at current rates. */
  pip_value_per_lot: z.number(),
  /** The stop's distance in pips (from `stop_price`, or `stop_pips` as sent). */
  stop_pips: z.number(),
});
export type PositionSize = z.infer<typeof positionSizeSchema>;
