import { z } from 'zod';
import { text } from './common.js';
import {
  ORDER_SIDES,
  ORDER_STATUSES,
  ORDER_TYPES,
  ORDERING_VALUES,
  ORDERS_MAX_PAGE_SIZE,
  PENDING_ORDER_TYPES,
  TIME_IN_FORCE,
  TRAILING_STOP_MAX_PIPS,
  TRAILING_STOP_MIN_PIPS,
} from './trading.js';

// The trading calls' request bodies and the order list's query (docs/api.md, docs/orders.md#validation):
// what the schemas check; the rules that need the pair or the quote are the server's.

export const symbolField = text()
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
export const priceField = z
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
export const optionalText = <T extends z.ZodType>(schema: T) =>
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

export const positiveIntText = (max?: number) =>
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
