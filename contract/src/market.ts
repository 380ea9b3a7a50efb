// Contract of the market module: pairs, prices, chart candles and the /ws/prices/ socket.
import { z } from 'zod';
import { text } from './common.js';

/** Query strings arrive as text; an empty value means "no filter". */
const optionalQuery = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' || v === undefined ? undefined : v), schema.optional());

import { type ParseResult, type PayloadMap, type SocketMessage, socketCodec, socketMessage } from './socket-codec.js';

/** A catalogue pair exactly as the API answers it (docs/trading-rules.md#pairs). */
export const fxPairSchema = z.object({
  id: z.number().int(),
  /** Six letters, e.g. EURUSD. */
  symbol: z.string().regex(/^[A-Z]{6}$/),
  /** "Euro / US Dollar". */
  name: z.string(),
  base_currency: z.string().length(3),
  quote_currency: z.string().length(3),
  min_lot_size: z.number(),
  max_lot_size: z.number(),
  /** Units of the base currency in one lot. */
  contract_size: z.number().int(),
  /** Typical spread in pips. */
  spread: z.number(),
  /** 0.0001; 0.01 for JPY-quoted pairs. */
  pip_size: z.number(),
  /** Decimals of a quote: 5; 3 for JPY-quoted pairs. */
  digits: z.number().int(),
  is_active: z.boolean(),
});
export type FxPair = z.infer<typeof fxPairSchema>;

/** A price as the calls answer it; `price` is the mid. Timestamps are ISO 8601 UTC. */
export const priceSchema = z.object({
  bid: z.number(),
  ask: z.number(),
  mid: z.number(),
  price: z.number(),
  timestamp: z.string(),
});
export type Price = z.infer<typeof priceSchema>;

/** GET trading/current-prices/: symbol → price. */
export const currentPricesSchema = z.record(z.string(), priceSchema);
export type CurrentPrices = z.infer<typeof currentPricesSchema>;

/** GET trading/pair/{symbol}/price/. */
export const pairPriceSchema = priceSchema;
export type PairPrice = Price;

/**
 * GET trading/pair/{symbol}/: the market part. The trading module adds `positions`,
 * `recent_orders` and `trading_account` to the same answer (its schema extends this one).
 */
export const pairSnapshotSchema = z.object({ pair: fxPairSchema, price: priceSchema.nullable() });
export type PairSnapshot = z.infer<typeof pairSnapshotSchema>;

/** A chart candle of mid prices; `time` is its open time in epoch ms, `volume` the number of ticks. */
export const candleSchema = z.object({
  time: z.number().int(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number().int(),
});
export type Candle = z.infer<typeof candleSchema>;

// ---------------------------------------------------------------------------------------
// Timeframes

/** The chart's timeframes, smallest first; every one is aggregated from one-minute candles, aligned to UTC. */
export const TIMEFRAMES = ['m1', 'm5', 'm15', 'm30', 'h1', 'h4', 'd1'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];
/** Minutes in a candle of each timeframe. */
export const TIMEFRAME_MINUTES: Readonly<Record<Timeframe, number>> = {
  m1: 1,
  m5: 5,
  m15: 15,
  m30: 30,
  h1: 60,
  h4: 240,
  d1: 1440,
};
export const timeframeSchema = z.enum(TIMEFRAMES, { error: `must be one of ${TIMEFRAMES.join(', ')}` });
/** Candles a chart-data call with a timeframe answers: `limit` defaults to this, at most CHART_MAX_LIMIT. */
export const CHART_DEFAULT_LIMIT = 300;
export const CHART_MAX_LIMIT = 1000;

/** A whole number from a query string (`before`, `limit`). */
const wholeText = (min: number, max: number) =>
  text()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** The query chart-data adds beside the spec's `range` (DESIGN §18): used only with `timeframe`. */
export const chartTimeframeQueryFields = {
  timeframe: optionalQuery(timeframeSchema),
  /** Epoch ms: only candles that open before it. */
  before: optionalQuery(wholeText(0, 8_640_000_000_000_000)),
  limit: optionalQuery(wholeText(1, CHART_MAX_LIMIT)),
};

export const CHART_RANGE_VALUES = ['1h', '24h', '1w', '1m'] as const;
export type ChartRange = (typeof CHART_RANGE_VALUES)[number];

/** What each chart range answers: the candle size and exactly how many candles (docs/api.md#chart-data). */
export const CHART_RANGES: Readonly<Record<ChartRange, { timeframeMinutes: number; count: number }>> = {
  '1h': { timeframeMinutes: 1, count: 60 },
  '24h': { timeframeMinutes: 15, count: 96 },
  '1w': { timeframeMinutes: 60, count: 168 },
  '1m': { timeframeMinutes: 240, count: 180 },
};
export const DEFAULT_CHART_RANGE: ChartRange = '1h';

export const chartRangeSchema = z.enum(CHART_RANGE_VALUES, { error: `must be one of ${CHART_RANGE_VALUES.join(', ')}` });

/** Query of GET trading/pair/{symbol}/chart-data/. */
export const chartDataQuerySchema = z.object({
  range: chartRangeSchema.default(DEFAULT_CHART_RANGE),
  ...chartTimeframeQueryFields,
});
export type ChartDataQuery = z.infer<typeof chartDataQuerySchema>;

/** Answer of chart-data: candles oldest first, the last one still forming. */
export const chartDataSchema = z.array(candleSchema);

// ---------------------------------------------------------------------------------------
// /ws/prices/ (docs/api.md#price-socket). Messages are JSON objects with a `type`; the payload sits beside it.

/** The socket's timeframe by default: one-minute candles, named as the spec names them. */
export const PRICE_SOCKET_TIMEFRAME = '1m';
/** What `subscribe_prices` accepts as `timeframe`: the spec's '1m' (the same as m1) and every chart timeframe. */
export const SOCKET_TIMEFRAMES = [PRICE_SOCKET_TIMEFRAME, ...TIMEFRAMES] as const;
export type SocketTimeframe = (typeof SOCKET_TIMEFRAMES)[number];

/** A live quote, as both sockets send it (`price_update` on /ws/prices/ and /ws/trading/). */
export const priceUpdateSchema = z.object({
  symbol: z.string(),
  /** The mid. */
  price: z.number(),
  bid: z.number(),
  ask: z.number(),
  timestamp: z.string(),
});
export type PriceUpdate = z.infer<typeof priceUpdateSchema>;

/** Client → server messages, `type → payload`. */
export const pricesClientPayloads = {
  /**
   * Start receiving a pair. `last_chart_time` is the open time (epoch ms) of the newest candle
   * the client already has: closed candles after it are sent first (gap fill).
   */
  subscribe_prices: z.object({
    symbol: text().min(1).max(20),
    timeframe: z.enum(SOCKET_TIMEFRAMES, { error: `must be one of ${SOCKET_TIMEFRAMES.join(', ')}` }).default('1m'),
    last_chart_time: z.number().nonnegative().nullable().optional(),
  }),
  unsubscribe_prices: z.object({ symbol: text().min(1).max(20) }),
  /**
   * Signs the socket in, as an `Authorization: Bearer` header does (a browser cannot send one);
   * again with a refreshed token to keep it open. `account`: one of the trader's accounts, fixed by
   * the first `authenticate` that names it, before any `subscribe_prices`: a practice account's
   * socket then carries its replay session's prices and candles, never the live market's
   * (docs/replay.md#the-price-socket-of-a-practice-account).
   */
  authenticate: z.object({
    token: text().min(1).max(4096),
    account: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  }),
  /** Keep-alive; `ts` (any number) comes back in the pong. */
  ping: z.object({ ts: z.number().optional() }),
} as const;

/** Server → client messages, `type → payload`. */
export const pricesServerPayloads = {
  /** The price source is up (sent on connect while it is, and whenever it comes back). */
  external_feed_connected: z.object({ source: z.string() }),
  /** The price source stopped delivering (no tick for the configured time). */
  external_feed_disconnected: z.object({ source: z.string() }),
  price_update: priceUpdateSchema,
  /** The live candle of the subscribed timeframe, or a closed one the client missed (gap fill); `timeframe` as subscribed. */
  chart_update: z.object({ symbol: z.string(), timeframe: z.enum(SOCKET_TIMEFRAMES), candle: candleSchema }),
  error: z.object({ message: z.string() }),
  pong: z.object({ ts: z.number().optional() }),
} as const;

export type PricesClientMessages = PayloadMap<typeof pricesClientPayloads>;
export type PricesServerMessages = PayloadMap<typeof pricesServerPayloads>;
export type PricesClientMessage = SocketMessage<PricesClientMessages>;
export type PricesServerMessage = SocketMessage<PricesServerMessages>;

/** The wording of /ws/prices/ for a bad message (the server answers it in an `error`). */
const MALFORMED_JSON = 'Malformed message: expected a JSON object';
const pricesWording = {
  notJson: MALFORMED_JSON,
  notObject: MALFORMED_JSON,
  missingType: () => 'Malformed message: missing "type"',
  unknownType: (type: string) => `Unknown message type: ${type.slice(0, 40)}`,
  invalidPayload: (type: string, issue: z.core.$ZodIssue | undefined) => {
    const field = issue?.path.map(String).join('.') ?? '';
    return `Invalid ${type}: ${field ? `${field} ` : ''}${issue?.message ?? 'is invalid'}`;
  },
};

/** The codec of what clients send on /ws/prices/ (the server decodes, the web encodes). */
export const pricesClientCodec = socketCodec(pricesClientPayloads, pricesWording);
/** The codec of what the server sends on /ws/prices/ (the web decodes). */
export const pricesServerCodec = socketCodec(pricesServerPayloads, pricesWording);

/** Builds a typed socket message: `pricesMessage('price_update', {...})`. */
export function pricesMessage<K extends keyof PricesServerMessages>(
  type: K,
  payload: PricesServerMessages[K],
): { type: K } & PricesServerMessages[K] {
  return socketMessage(type, payload);
}

/** Builds a typed client message: `pricesClientMessage('subscribe_prices', {...})`. */
export function pricesClientMessage<K extends keyof PricesClientMessages>(
  type: K,
  payload: z.input<(typeof pricesClientPayloads)[K]>,
): { type: K } & z.input<(typeof pricesClientPayloads)[K]> {
  return socketMessage(type, payload);
}

/** Parses a client message (text or object); never throws. */
export function parsePricesClientMessage(raw: unknown): ParseResult<PricesClientMessage> {
  return typeof raw === 'string' ? pricesClientCodec.decode(raw) : pricesClientCodec.parse(raw);
}

/** Parses a server message (text or object); never throws. */
export function parsePricesServerMessage(raw: unknown): ParseResult<PricesServerMessage> {
  return typeof raw === 'string' ? pricesServerCodec.decode(raw) : pricesServerCodec.parse(raw);
}

/** Handlers per message type, for `dispatchPricesMessage`. */
export type PricesServerHandlers = {
  [K in keyof PricesServerMessages]?: (message: { type: K } & PricesServerMessages[K]) => void;
};

/** Parses a server message and calls the handler of its type; returns false when it was not valid. */
export function dispatchPricesMessage(raw: unknown, handlers: PricesServerHandlers): boolean {
  const result = parsePricesServerMessage(raw);
  if (!result.ok) return false;
  const handler = handlers[result.message.type] as ((m: PricesServerMessage) => void) | undefined;
  handler?.(result.message);
  return true;
}
