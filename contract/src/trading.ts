import { z } from 'zod';
import { userSchema } from './auth.js';
import { text } from './common.js';
import { orderRejectionCodeSchema } from './errors.js';
import { fxPairSchema, pairSnapshotSchema, priceUpdateSchema } from './market.js';
import { type PayloadMap, type SocketMessage, socketCodec, socketMessage } from './socket-codec.js';

// Contract of the trading module (docs/trading-rules.md, docs/api.md): request, answer and socket message schemas.
// Numbers in answers are rounded for display (money 2 decimals, prices the pair's digits,
// lots 2 decimals); the server keeps the exact values.

export * from './decimal.js';
export * from './trading-math.js';

export const ORDER_SIDES = ['BUY', 'SELL'] as const;
export const ORDER_TYPES = ['MARKET', 'LIMIT', 'STOP', 'STOP_LIMIT'] as const;
export const ORDER_STATUSES = ['PENDING', 'PARTIALLY_FILLED', 'FILLED', 'CANCELLED', 'REJECTED', 'EXPIRED'] as const;
/**
 * Why an order exists: the trader's own order (a pending order keeps `client` when it fills),
 * the trader closing a position, the risk engine's stop-out, a position's protection
 * triggering (`stop_loss`, `take_profit`, `trailing_stop`), and two reserved for later use
 * (`pending`, `reset`; nothing produces them yet). docs/orders.md.
 */
export const ORDER_REASONS = [
  'client',
  'close',
  'stop_out',
  'stop_loss',
  'take_profit',
  'trailing_stop',
  'pending',
  'reset',
] as const;
/** The order types a pending order may have (docs/orders.md). */
export const PENDING_ORDER_TYPES = ['LIMIT', 'STOP', 'STOP_LIMIT'] as const;
/** Good till cancelled, or good till `expires_at` (docs/orders.md). */
export const TIME_IN_FORCE = ['GTC', 'GTD'] as const;
/** docs/orders.md#validation: a trailing distance in whole pips. */
export const TRAILING_STOP_MIN_PIPS = 5;
export const TRAILING_STOP_MAX_PIPS = 1000;
/** docs/orders.md#validation: a GTD order expires at most this far ahead. */
export const MAX_GTD_DAYS = 90;
export const POSITION_SIDES = ['LONG', 'SHORT', 'FLAT'] as const;
export const POSITION_STATUSES = ['OPEN', 'CLOSED'] as const;
export const ORDERING_VALUES = [
  'created_at',
  '-created_at',
  'quantity',
  '-quantity',
  'average_fill_price',
  '-average_fill_price',
] as const;
/** docs/screens.md#constants: orders page size 20; docs/api.md#order-list: at most 100. */
export const ORDERS_PAGE_SIZE = 20;
export const ORDERS_MAX_PAGE_SIZE = 100;
/** docs/screens.md#constants. */
export const RECENT_ORDERS_LIMIT = 10;
export const RECENT_TRADES_LIMIT = 20;
/** docs/trading-rules.md#idempotency. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

export type OrderSide = (typeof ORDER_SIDES)[number];
export type OrderType = (typeof ORDER_TYPES)[number];
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type OrderReason = (typeof ORDER_REASONS)[number];
export type PendingOrderType = (typeof PENDING_ORDER_TYPES)[number];
export type TimeInForce = (typeof TIME_IN_FORCE)[number];
export type PositionSide = (typeof POSITION_SIDES)[number];
export type PositionStatus = (typeof POSITION_STATUSES)[number];
export type Ordering = (typeof ORDERING_VALUES)[number];

const isoTime = z.string();

// ---------------------------------------------------------------- answers

export const tradingAccountSchema = z.object({
  id: z.number().int(),
  balance: z.number(),
  equity: z.number(),
  margin_used: z.number(),
  free_margin: z.number(),
  /** Percent; null with no margin used. */
  margin_level: z.number().nullable(),
  leverage: z.number().int(),
  currency: z.string(),
});
export type TradingAccountDto = z.infer<typeof tradingAccountSchema>;

export const traderProfileSchema = z.object({ id: z.number().int(), user: userSchema });
export type TraderProfileDto = z.infer<typeof traderProfileSchema>;

export const positionSchema = z.object({
  id: z.number().int(),
  /** The pair's id. */
  fx_pair: z.number().int(),
  fx_pair_symbol: z.string(),
  side: z.enum(POSITION_SIDES),
  /** Signed lots: + long, − short, 0 once closed. */
  quantity: z.number(),
  status: z.enum(POSITION_STATUSES),
  average_entry_price: z.number(),
  /** Bid for a long, ask for a short; null when no price is available. */
  current_price: z.number().nullable(),
  /** USD at current prices (0 once closed). */
  unrealized_pnl: z.number(),
  /** USD booked to the balance by this position's closing fills. */
  realized_pnl: z.number(),
  /** USD at current rates (0 once closed). */
  margin_used: z.number(),
  created_at: isoTime,
  updated_at: isoTime,
  closed_at: isoTime.nullable(),
  /** The position's protection (docs/orders.md#protection-on-positions); null when none. */
  stop_loss: z.number().nullable(),
  take_profit: z.number().nullable(),
  /** Trailing distance in pips; null when none. */
  trailing_stop_pips: z.number().nullable(),
});
export type PositionDto = z.infer<typeof positionSchema>;

export const orderSchema = z.object({
  id: z.number().int(),
  fx_pair: z.number().int(),
  fx_pair_symbol: z.string(),
  order_type: z.enum(ORDER_TYPES),
  side: z.enum(ORDER_SIDES),
  quantity: z.number(),
  filled_quantity: z.number(),
  /** The limit price of a LIMIT, the trigger price of a STOP or STOP_LIMIT; null for market orders. */
  price: z.number().nullable(),
  average_fill_price: z.number().nullable(),
  status: z.enum(ORDER_STATUSES),
  rejection_reason: z.string().nullable(),
  reason: z.enum(ORDER_REASONS),
  /** The position the order filled into, when it filled. */
  position_id: z.number().int().nullable(),
  /** On a close: the price the trader saw, kept for the record only (never executed at). */
  current_price: z.number().nullable(),
  submitted_at: isoTime,
  created_at: isoTime,
  /** The last change of the order (placed, modified, triggered, filled, cancelled, expired). */
  updated_at: isoTime,
  time_in_force: z.enum(TIME_IN_FORCE),
  /** GTD: when the order expires; null for GTC. */
  expires_at: isoTime.nullable(),
  /** STOP_LIMIT only: the limit it rests at once its stop triggered. */
  limit_price: z.number().nullable(),
  /** STOP_LIMIT: when its stop triggered (it stays PENDING and rests as a LIMIT); otherwise null. */
  triggered_at: isoTime.nullable(),
  /** The protection the order sets on the position it leaves open (docs/orders.md#protection-on-positions). */
  stop_loss: z.number().nullable(),
  take_profit: z.number().nullable(),
  trailing_stop_pips: z.number().nullable(),
});
export type OrderDto = z.infer<typeof orderSchema>;

export const tradeSchema = z.object({
  id: z.number().int(),
  /** The order's id. */
  order: z.number().int(),
  /** The position's id. */
  position: z.number().int(),
  fx_pair_symbol: z.string(),
  side: z.enum(ORDER_SIDES),
  quantity: z.number(),
  price: z.number(),
  /** USD booked to the balance by this execution (0 when it only opened or added). */
  realized_pnl: z.number(),
  executed_at: isoTime,
});
export type TradeDto = z.infer<typeof tradeSchema>;

export const executionDetailsSchema = z.object({
  execution_price: z.number(),
  /** USD margin of the order's lots at execution (what the order form estimates). */
  margin_required: z.number(),
  units: z.number(),
  executed_at: isoTime,
});
export type ExecutionDetailsDto = z.infer<typeof executionDetailsSchema>;

export const platformDataSchema = z.object({
  trader_profile: traderProfileSchema.nullable(),
  trading_account: tradingAccountSchema.nullable(),
  fx_pairs: z.array(fxPairSchema),
  open_positions: z.array(positionSchema),
  recent_orders: z.array(orderSchema),
  recent_trades: z.array(tradeSchema),
  trading_mode: z.literal('live'),
  /** All the trader's PENDING orders, oldest first. */
  pending_orders: z.array(orderSchema),
});
export type PlatformDataDto = z.infer<typeof platformDataSchema>;

export const placeMarketOrderResponseSchema = z.object({
  order: orderSchema,
  position: positionSchema,
  execution_details: executionDetailsSchema,
});
export type PlaceMarketOrderResponse = z.infer<typeof placeMarketOrderResponseSchema>;

/** The 422 answer of a business rejection: the stored REJECTED order. */
export const orderRejectedSchema = z.object({
  success: z.literal(false),
  error: z.string(),
  code: orderRejectionCodeSchema,
  data: z.object({ order: orderSchema }),
});

export const closePositionResponseSchema = z.object({
  /** USD realized by this close. */
  profit_loss: z.number(),
  close_price: z.number(),
  order: orderSchema,
  position: positionSchema,
});
export type ClosePositionResponse = z.infer<typeof closePositionResponseSchema>;

/** The answer of place-pending-order (201), PATCH orders/{id}/ and orders/{id}/cancel/. */
export const orderResponseSchema = z.object({ order: orderSchema });
export type OrderResponse = z.infer<typeof orderResponseSchema>;
export const placePendingOrderResponseSchema = orderResponseSchema;
export type PlacePendingOrderResponse = OrderResponse;
export const modifyOrderResponseSchema = orderResponseSchema;
export type ModifyOrderResponse = OrderResponse;
export const cancelOrderResponseSchema = orderResponseSchema;
export type CancelOrderResponse = OrderResponse;

/** The answer of PATCH positions/{id}/. */
export const modifyPositionResponseSchema = z.object({ position: positionSchema });
export type ModifyPositionResponse = z.infer<typeof modifyPositionResponseSchema>;

/** Spec shape, no envelope. `next`/`previous` are relative URLs carrying the same query. */
export const ordersPageSchema = z.object({
  count: z.number().int(),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  results: z.array(orderSchema),
});
export type OrdersPage = z.infer<typeof ordersPageSchema>;

/** The trader part of GET trading/pair/{symbol}/ (beside the market's `pair` and `price`, see `pairPageSchema`). */
export const pairTradingSchema = z.object({
  positions: z.array(positionSchema),
  recent_orders: z.array(orderSchema),
  trading_account: tradingAccountSchema.nullable(),
  /** The trader's PENDING orders on the pair, oldest first. */
  pending_orders: z.array(orderSchema),
});
export type PairTradingDto = z.infer<typeof pairTradingSchema>;

/** GET trading/pair/{symbol}/: `{pair, price, positions, recent_orders, trading_account}`. */
export const pairPageSchema = pairSnapshotSchema.extend(pairTradingSchema.shape);
export type PairPageDto = z.infer<typeof pairPageSchema>;

// ---------------------------------------------------------------- requests

const symbolField = text()
  .trim()
  .min(1, 'is required')
  .max(12, 'is not a currency pair')
  .transform((s) => s.toUpperCase());
const sideField = z.enum(ORDER_SIDES, 'must be BUY or SELL');
const lotsField = z.number('must be a number').positive('must be greater than 0').finite();
/**
 * The largest price an order may carry: prices are stored as integers of 10⁻¹⁰
 * (docs/orders.md#the-model) and must stay safe integers; a larger one would be a 500.
 */
export const PRICE_MAX = 900_000;
/** A price: positive, at most PRICE_MAX; at most the pair's digits is checked by the server (400). */
const priceField = z
  .number('must be a number')
  .positive('must be greater than 0')
  .finite()
  .max(PRICE_MAX, `must be at most ${PRICE_MAX}`);
const trailingStopField = z
  .number('must be a number')
  .int('must be a whole number of pips')
  .min(TRAILING_STOP_MIN_PIPS, `must be at least ${TRAILING_STOP_MIN_PIPS}`)
  .max(TRAILING_STOP_MAX_PIPS, `must be at most ${TRAILING_STOP_MAX_PIPS}`);
const timeInForceField = z.enum(TIME_IN_FORCE, 'must be GTC or GTD');
/** An ISO 8601 date-time (no zone = UTC); the future and 90-day rules are checked by the server (400). */
const expiresAtField = text({ message: 'must be an ISO 8601 date-time' })
  .trim()
  .refine(
    (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(v) && !Number.isNaN(Date.parse(v)),
    'must be an ISO 8601 date-time',
  );

/**
 * Lots: a positive number; the 0.01 step and the pair's bounds are checked by the server (400).
 * Protection is optional: it sets the protection of the position the order leaves open (docs/orders.md#protection-on-positions).
 */
export const placeMarketOrderRequestSchema = z.strictObject({
  symbol: symbolField,
  side: sideField,
  quantity: lotsField,
  stop_loss: priceField.optional(),
  take_profit: priceField.optional(),
  trailing_stop_pips: trailingStopField.optional(),
});
export type PlaceMarketOrderRequest = z.infer<typeof placeMarketOrderRequestSchema>;

/** POST trading/place-pending-order/ (docs/orders.md#validation for the rules checked against the quote). */
export const placePendingOrderRequestSchema = z.strictObject({
  symbol: symbolField,
  side: sideField,
  order_type: z.enum(PENDING_ORDER_TYPES, 'must be LIMIT, STOP or STOP_LIMIT'),
  quantity: lotsField,
  /** The limit price of a LIMIT, the trigger price of a STOP or STOP_LIMIT. */
  price: priceField,
  /** STOP_LIMIT only (and required there). */
  limit_price: priceField.optional(),
  time_in_force: timeInForceField.optional(),
  /** GTD only (and required there). */
  expires_at: expiresAtField.optional(),
  stop_loss: priceField.optional(),
  take_profit: priceField.optional(),
  trailing_stop_pips: trailingStopField.optional(),
});
export type PlacePendingOrderRequest = z.infer<typeof placePendingOrderRequestSchema>;

/** At least one field: an empty change is a mistake of the caller. */
const someField = (v: Record<string, unknown>) => Object.values(v).some((x) => x !== undefined);

/** PATCH trading/orders/{id}/: fields left out keep their value; null clears protection (and expires_at when GTC). */
export const modifyOrderRequestSchema = z
  .strictObject({
    price: priceField.optional(),
    limit_price: priceField.optional(),
    time_in_force: timeInForceField.optional(),
    expires_at: expiresAtField.nullable().optional(),
    stop_loss: priceField.nullable().optional(),
    take_profit: priceField.nullable().optional(),
    trailing_stop_pips: trailingStopField.nullable().optional(),
  })
  .refine(someField, 'send at least one field to change');
export type ModifyOrderRequest = z.infer<typeof modifyOrderRequestSchema>;

/** PATCH trading/positions/{id}/: fields left out keep their value; null clears. */
export const modifyPositionRequestSchema = z
  .strictObject({
    stop_loss: priceField.nullable().optional(),
    take_profit: priceField.nullable().optional(),
    trailing_stop_pips: trailingStopField.nullable().optional(),
  })
  .refine(someField, 'send at least one field to change');
export type ModifyPositionRequest = z.infer<typeof modifyPositionRequestSchema>;

export const closePositionRequestSchema = z.strictObject({
  current_price: priceField.optional(),
  /** Lots to close (a multiple of 0.01, at most the position's size); default the whole position. */
  quantity: lotsField.optional(),
});
export type ClosePositionRequest = z.infer<typeof closePositionRequestSchema>;

/** Query strings arrive as text; an empty value means "no filter" (a cleared form field). */
const optionalText = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' || v === undefined ? undefined : v), schema.optional());

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** `YYYY-MM-DD` (a whole UTC day) or an ISO 8601 date-time. */
export const orderDateSchema = text()
  .trim()
  .refine((v) => {
    if (DATE_ONLY.test(v)) {
      const d = new Date(`${v}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
    }
    return ISO_DATE_TIME.test(v) && !Number.isNaN(Date.parse(v));
  }, 'must be a date YYYY-MM-DD or an ISO 8601 date-time');

const positiveIntText = (max?: number) =>
  text()
    .trim()
    .regex(/^\d+$/, 'must be a positive integer')
    .transform(Number)
    .pipe(
      max
        ? z.number().int().min(1, 'must be at least 1').max(max, `must be at most ${max}`)
        : z.number().int().min(1, 'must be at least 1'),
    );

export const ordersQuerySchema = z.strictObject({
  page: optionalText(positiveIntText()),
  page_size: optionalText(positiveIntText(ORDERS_MAX_PAGE_SIZE)),
  fx_pair: optionalText(text().trim().max(20, 'must be at most 20 characters')),
  side: optionalText(text().trim().toUpperCase().pipe(z.enum(ORDER_SIDES, 'must be BUY or SELL'))),
  status: optionalText(
    text()
      .trim()
      .toUpperCase()
      .pipe(z.enum(ORDER_STATUSES, `must be one of ${ORDER_STATUSES.join(', ')}`)),
  ),
  order_type: optionalText(
    text()
      .trim()
      .toUpperCase()
      .pipe(z.enum(ORDER_TYPES, `must be one of ${ORDER_TYPES.join(', ')}`)),
  ),
  date_from: optionalText(orderDateSchema),
  date_to: optionalText(orderDateSchema),
  ordering: optionalText(z.enum(ORDERING_VALUES, `must be one of ${ORDERING_VALUES.join(', ')}`)),
});
export type OrdersQuery = z.infer<typeof ordersQuerySchema>;

// ---------------------------------------------------------------- /ws/trading/ socket

export const accountUpdateDataSchema = z.object({
  balance: z.number(),
  equity: z.number(),
  margin_used: z.number(),
  free_margin: z.number(),
  margin_level: z.number().nullable(),
  leverage: z.number().int(),
});

export const orderConfirmationDataSchema = z.object({
  order: orderSchema,
  /** Null for a rejected order. */
  position: positionSchema.nullable(),
  execution_details: executionDetailsSchema.nullable(),
});

export const pnlTradeSchema = z.object({ trade_id: z.number().int(), position_id: z.number().int(), pnl: z.number() });

/** Every message the server sends on /ws/trading/: `type → payload` (the payload's fields sit beside `type`). */
export const tradingServerMessageSchemas = {
  auth_required: z.object({ message: z.string().optional() }),
  connection_established: z.object({ user: userSchema }),
  positions_update: z.object({ data: z.array(positionSchema) }),
  pnl_subscription_confirmed: z.object({ message: z.string().optional() }),
  pnl_batch_update: z.object({
    updates: z.array(z.object({ position_id: z.number().int(), unrealized_pnl: z.number(), current_price: z.number() })),
  }),
  account_update: z.object({ data: accountUpdateDataSchema }),
  price_update: priceUpdateSchema,
  order_confirmation: z.object({ data: orderConfirmationDataSchema }),
  /** Every change of one of the trader's orders: placed, modified, triggered, filled, cancelled, expired, rejected. */
  order_update: z.object({ data: z.object({ order: orderSchema }) }),
  pnl_update: z.object({ trades: z.array(pnlTradeSchema) }),
  margin_call: z.object({
    data: z.object({ margin_level: z.number(), equity: z.number(), margin_used: z.number(), message: z.string() }),
  }),
  pong: z.object({ timestamp: isoTime.optional() }),
  error: z.object({ message: z.string() }),
} as const;

/** Every message a client sends on /ws/trading/. */
export const tradingClientMessageSchemas = {
  authenticate: z.strictObject({ token: text().min(1).max(4096) }),
  get_positions_update: z.strictObject({}),
  subscribe_to_pnl: z.strictObject({}),
  ping: z.strictObject({ timestamp: z.union([text(), z.number()]).optional() }),
} as const;

export type TradingServerMessageMap = PayloadMap<typeof tradingServerMessageSchemas>;
export type TradingClientMessageMap = PayloadMap<typeof tradingClientMessageSchemas>;
export type TradingServerMessageType = keyof TradingServerMessageMap;
export type TradingClientMessageType = keyof TradingClientMessageMap;

/** A message on the wire: `{type, ...payload}`. */
export type TradingServerMessage<K extends TradingServerMessageType = TradingServerMessageType> = SocketMessage<
  TradingServerMessageMap,
  K
>;
export type TradingClientMessage<K extends TradingClientMessageType = TradingClientMessageType> = SocketMessage<
  TradingClientMessageMap,
  K
>;

/** Builds a typed server message (the server's `send<K>`). */
export function tradingServerMessage<K extends TradingServerMessageType>(
  type: K,
  payload: TradingServerMessageMap[K],
): TradingServerMessage<K> {
  return socketMessage(type, payload) as TradingServerMessage<K>;
}

/** Builds a typed client message (the web's `send<K>`). */
export function tradingClientMessage<K extends TradingClientMessageType>(
  type: K,
  payload: TradingClientMessageMap[K],
): TradingClientMessage<K> {
  return socketMessage(type, payload) as TradingClientMessage<K>;
}

/** The wording of /ws/trading/ for a bad message (the server answers it in an `error`). */
const tradingWording = {
  notJson: 'Invalid JSON',
  notObject: 'Message must be a JSON object',
  missingType: (type: unknown) => `Unknown message type: ${String(type)}`,
  unknownType: (type: string) => `Unknown message type: ${type}`,
  invalidPayload: (type: string, issue: z.core.$ZodIssue | undefined) =>
    `Invalid ${type} message: ${issue?.path.join('.') || 'payload'} ${issue?.message ?? ''}`.trim(),
};

/** The codec of what clients send on /ws/trading/ (the server decodes, the web encodes). */
export const tradingClientCodec = socketCodec(tradingClientMessageSchemas, tradingWording);
/** The codec of what the server sends on /ws/trading/ (the web decodes). */
export const tradingServerCodec = socketCodec(tradingServerMessageSchemas, tradingWording);

/** Parses a client message received by the server (already JSON-decoded). */
export function parseTradingClientMessage(
  raw: unknown,
): { ok: true; message: TradingClientMessage } | { ok: false; error: string } {
  return tradingClientCodec.parse(raw);
}

/** Parses a server message received by the web client (already JSON-decoded). */
export function parseTradingServerMessage(
  raw: unknown,
): { ok: true; message: TradingServerMessage } | { ok: false; error: string } {
  return tradingServerCodec.parse(raw);
}
