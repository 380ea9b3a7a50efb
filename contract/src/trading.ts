import { z } from 'zod';
import { userSchema } from './auth.js';
import { orderRejectionCodeSchema } from './errors.js';
import { fxPairSchema, pairSnapshotSchema } from './market.js';

// Contract of the trading module (docs/trading-rules.md, docs/api.md): its constants and the
// schemas of its answers. The requests are trading-requests.ts, the /ws/trading/ socket
// trading-socket.ts, the math trading-math.ts and ticket-math.ts.
// Numbers in answers are rounded for display (money 2 decimals, prices the pair's digits,
// lots 2 decimals); the server keeps the exact values.

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
  // an evaluation's loss limit was breached: the attempt ended and its positions closed (docs/evaluations.md)
  'challenge_breach',
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

/** What an account is for (docs/accounts.md): the spec's one, an evaluation attempt's, a replay session's. */
export const ACCOUNT_KINDS = ['primary', 'challenge', 'practice'] as const;
export const accountKindSchema = z.enum(ACCOUNT_KINDS);
export type AccountKind = z.infer<typeof accountKindSchema>;

/** One of the trader's accounts as GET trading/accounts/ lists them (docs/accounts.md#the-accounts-call). */
export const accountSummarySchema = z.object({
  id: z.number().int(),
  kind: accountKindSchema,
  /** What the account switcher shows. */
  name: z.string(),
  currency: z.string(),
  balance: z.number(),
  equity: z.number(),
  margin_used: z.number(),
  free_margin: z.number(),
  leverage: z.number().int(),
  /** `ACTIVE`, `SUSPENDED` or `CLOSED`. */
  status: z.string(),
  created_at: isoTime,
  /** The evaluation attempt a `challenge` account belongs to; null otherwise. */
  challenge: z.object({ attempt_id: z.number().int(), status: z.string() }).nullable(),
  /** The replay session a `practice` account belongs to; null otherwise. */
  replay: z.object({ id: z.number().int(), status: z.string() }).nullable(),
});
export type AccountSummaryDto = z.infer<typeof accountSummarySchema>;
export const accountsListSchema = z.array(accountSummarySchema);

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

/**
 * GET trading/orders/: no envelope (docs/api.md#envelope, docs/api.md#order-list). `next`/`previous`
 * are relative URLs carrying the same query.
 */
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
