import { z } from 'zod';
import { userSchema } from './auth.js';
import { alertSchema } from './charting.js';
import { text } from './common.js';
import type { MeterDto } from './evaluation-meter.js';
import { priceUpdateSchema } from './market.js';
import { type PayloadMap, type SocketMessage, socketCodec, socketMessage } from './socket-codec.js';
import { executionDetailsSchema, orderSchema, positionSchema } from './trading.js';

// The /ws/trading/ socket (docs/api.md): every message each side sends, their codecs and the
// wording of a bad message.

const isoTime = z.string();

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
  /** A price alert of the trader's fired or expired (docs/charting.md#alerts). */
  alert_update: z.object({ data: z.object({ alert: alertSchema }) }),
  /**
   * The meter of the evaluation attempt of the socket's account (docs/evaluations.md#the-meter),
   * whenever more than its equity changed: a fill, a day start, a breach, a pass. Its equity and
   * room left between them follow from `account_update`'s equity and the meter's floors. Its data
   * is `meterSchema`'s, checked by the screen that shows it rather than here: every socket message
   * is decoded in the web's first load, and a trader without a challenge account never needs it.
   */
  challenge_update: z.object({ data: z.custom<MeterDto>((v) => typeof v === 'object' && v !== null) }),
  pong: z.object({ timestamp: isoTime.optional() }),
  error: z.object({ message: z.string() }),
} as const;

/** Every message a client sends on /ws/trading/. */
export const tradingClientMessageSchemas = {
  /**
   * `account`: which of the trader's accounts the socket serves (docs/accounts.md), fixed by the
   * first `authenticate`; the primary one without it. A client switches by opening another socket.
   */
  authenticate: z.strictObject({
    token: text().min(1).max(4096),
    account: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  }),
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
