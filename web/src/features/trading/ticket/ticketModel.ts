import {
  Dec,
  executionPrice,
  type FxPair,
  MAX_GTD_DAYS,
  type OrderSide,
  type OrderType,
  type PendingOrderType,
  priceAtPips,
  type TimeInForce,
} from '@pipdesk/contract';
import { readTrailingPips } from '../orderRulesText';
import { expiryProblem, parsePrice, pendingPriceError, protectionSideErrors, TICKET_TEXT } from './ticketChecks';
import {
  type AccountAfter,
  accountAfter,
  type DistanceUnit,
  type ProtectionFigure,
  protectionFigure,
  type TicketContext,
} from './ticketFigures';

// The order ticket's model (docs/screens.md#order-ticket): what each order type needs and what
// the ticket shows and sends. The checks before submit are ticketChecks.ts (the contract's rules
// of docs/orders.md#validation), the protection's money and the account after the order
// ticketFigures.ts. Pure: the component passes the prices and the clock.

/** What the trader typed beside the spec's side and lot size. */
export interface TicketState {
  orderType: OrderType;
  /** A LIMIT's limit price, a STOP's or STOP_LIMIT's trigger price. */
  priceText: string;
  /** A STOP_LIMIT's limit price. */
  limitPriceText: string;
  timeInForce: TimeInForce;
  /** GTD: a `datetime-local` value, in the trader's zone. */
  expiresText: string;
  stopLossText: string;
  stopLossUnit: DistanceUnit;
  takeProfitText: string;
  takeProfitUnit: DistanceUnit;
  trailingText: string;
}

/** The spec's default is a market order (docs/screens.md#order-forms): nothing else is set. */
export const EMPTY_TICKET: TicketState = {
  orderType: 'MARKET',
  priceText: '',
  limitPriceText: '',
  timeInForce: 'GTC',
  expiresText: '',
  stopLossText: '',
  stopLossUnit: 'price',
  takeProfitText: '',
  takeProfitUnit: 'price',
  trailingText: '',
};

/** docs/screens.md#order-ticket: a pending price is pre-filled this many pips from the market, on the side it must be. */
export const PREFILL_PIPS = 10;
/** docs/screens.md#order-ticket: a GTD order is pre-filled to expire a day from now. */
export const PREFILL_EXPIRY_MS = 86_400_000;

/** The hint under the expiry (docs/orders.md#validation). */
export const MAX_GTD_TEXT = `Your local time, at most ${MAX_GTD_DAYS} days ahead`;

/** The labels of the ticket's price fields, by what the price is for. */
export const PRICE_LABEL = { limit: 'Limit Price', stop: 'Stop Price' } as const;

export function isPending(type: OrderType): type is PendingOrderType {
  return type !== 'MARKET';
}

/** The label of a pending order's `price`: a LIMIT's is its limit, a STOP's and STOP_LIMIT's their trigger. */
export function priceLabel(type: OrderType): string {
  return type === 'LIMIT' ? PRICE_LABEL.limit : PRICE_LABEL.stop;
}

/**
 * Prices pre-filled near the market, on the side the server accepts (docs/orders.md#validation):
 * a BUY LIMIT below the ask, a SELL LIMIT above the bid, a BUY STOP above the ask, a SELL STOP
 * below the bid; a STOP_LIMIT's limit at its trigger.
 */
export function prefilledPrices(
  type: OrderType,
  side: OrderSide,
  quote: { bid: number; ask: number } | undefined,
  pair: Pick<FxPair, 'pip_size' | 'digits'>,
): { priceText: string; limitPriceText: string } {
  if (!isPending(type) || !quote) return { priceText: '', limitPriceText: '' };
  const from = side === 'BUY' ? quote.ask : quote.bid;
  // A limit waits for a better price, a stop for a breakout: BUY LIMIT below, BUY STOP above.
  const up = (type === 'LIMIT') === (side === 'SELL');
  const price = priceAtPips(from, up ? PREFILL_PIPS : -PREFILL_PIPS, pair.pip_size, pair.digits).toFixed(pair.digits);
  return { priceText: price, limitPriceText: type === 'STOP_LIMIT' ? price : '' };
}

/** A `datetime-local` value (the trader's zone) for an instant. */
export function localDateTimeText(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

export type TicketField = 'price' | 'limitPrice' | 'expiresAt' | 'stopLoss' | 'takeProfit' | 'trailing';

/** What the ticket adds to the request: a market order's protection, or a pending order's whole terms. */
export type TicketExtras =
  | { order_type: 'MARKET'; stop_loss?: number; take_profit?: number; trailing_stop_pips?: number }
  | {
      order_type: PendingOrderType;
      price: number;
      limit_price?: number;
      time_in_force: TimeInForce;
      expires_at?: string;
      stop_loss?: number;
      take_profit?: number;
      trailing_stop_pips?: number;
    };

export interface TicketEvaluation {
  errors: Partial<Record<TicketField, string>>;
  /** The price the order fills at: the ask or bid for a market order, its own price (a STOP_LIMIT's limit) for a pending one. */
  entry: Dec | undefined;
  /** What protection is judged by: the closing price for a market order (bid for a BUY), the entry for a pending one. */
  reference: Dec | undefined;
  stopLoss: ProtectionFigure | null;
  takeProfit: ProtectionFigure | null;
  /** The loss at the stop as a percent of equity. */
  riskPercent: Dec | null;
  after: AccountAfter | null;
  /** What to send beside symbol, side and quantity; null while anything is wrong. */
  extras: TicketExtras | null;
}

const long = (side: OrderSide) => side === 'BUY';

/**
 * Everything the ticket shows and sends, from what was typed and the current prices: the
 * server's rules checked the same way (its message may still differ when the market moved),
 * the stop and target as price, pips and money, and the account after the order.
 */
export function evaluateTicket(state: TicketState, ctx: TicketContext): TicketEvaluation {
  const errors: Partial<Record<TicketField, string>> = {};
  const { pair, side } = ctx;
  const empty: TicketEvaluation = {
    errors,
    entry: undefined,
    reference: undefined,
    stopLoss: null,
    takeProfit: null,
    riskPercent: null,
    after: null,
    extras: null,
  };
  // Without a pair the spec's form has its own words (docs/screens.md#order-forms); a plain market order stays sendable to meet them.
  if (!pair) return { ...empty, extras: isPlainMarket(state) ? { order_type: 'MARKET' } : null };
  const digits = pair.digits;
  const q = ctx.quote(pair.symbol);
  const pending = isPending(state.orderType);

  // The entry: the market's side now, or the order's own price checked against the quote.
  let entry: Dec | undefined;
  let price: Dec | undefined;
  let limitPrice: Dec | undefined;
  if (!pending) {
    entry = q ? executionPrice(side, q) : undefined;
  } else {
    const type = state.orderType as PendingOrderType;
    const label = priceLabel(type);
    const parsed = parsePrice(state.priceText, label, digits);
    if (parsed.error !== undefined) errors.price = parsed.error;
    else {
      price = parsed.value;
      const problem = q ? pendingPriceError(label, type, side, price, q, digits) : null;
      if (problem) errors.price = problem;
    }
    if (type === 'STOP_LIMIT') {
      const parsedLimit = parsePrice(state.limitPriceText, PRICE_LABEL.limit, digits);
      if (parsedLimit.error !== undefined) errors.limitPrice = parsedLimit.error;
      else limitPrice = parsedLimit.value;
    }
    entry = type === 'STOP_LIMIT' ? limitPrice : price;
    if (state.timeInForce === 'GTD') {
      const expiry = expiryProblem(state.expiresText, ctx.now);
      if (expiry) errors.expiresAt = expiry;
    }
  }
  const reference = pending ? entry : q ? Dec.from(long(side) ? q.bid : q.ask) : undefined;

  const stopLoss = protectionFigure('stopLoss', state.stopLossText, state.stopLossUnit, entry, ctx, errors);
  const takeProfit = protectionFigure('takeProfit', state.takeProfitText, state.takeProfitUnit, entry, ctx, errors);
  if (reference) {
    // As the server judges (docs/orders.md#validation): a pending order's against its entry, a market order's against its closing price.
    const isLong = long(side);
    const sides = protectionSideErrors(
      { stopLoss: stopLoss?.price ?? null, takeProfit: takeProfit?.price ?? null },
      { long: isLong, reference, against: pending ? 'entry' : isLong ? 'bid' : 'ask', digits },
    );
    if (sides.stopLoss && !errors.stopLoss) errors.stopLoss = sides.stopLoss;
    if (sides.takeProfit && !errors.takeProfit) errors.takeProfit = sides.takeProfit;
  }

  let trailing: number | undefined;
  const trailingRead = readTrailingPips(state.trailingText);
  if (trailingRead.kind === 'invalid') errors.trailing = TICKET_TEXT.trailing;
  else if (trailingRead.kind === 'pips') trailing = trailingRead.value;

  const loss = stopLoss?.money;
  const riskPercent =
    loss !== undefined && ctx.account && ctx.account.equity > 0 ? loss.abs().div(ctx.account.equity).times(100) : null;

  const after = entry && ctx.lots !== null ? accountAfter(ctx, pair, entry, pending) : null;

  let extras: TicketExtras | null = null;
  if (Object.keys(errors).length === 0) {
    const protection = {
      ...(stopLoss ? { stop_loss: stopLoss.price.toNumber() } : {}),
      ...(takeProfit ? { take_profit: takeProfit.price.toNumber() } : {}),
      ...(trailing !== undefined ? { trailing_stop_pips: trailing } : {}),
    };
    if (!pending) extras = { order_type: 'MARKET', ...protection };
    else if (price) {
      extras = {
        order_type: state.orderType as PendingOrderType,
        price: price.toNumber(),
        ...(limitPrice ? { limit_price: limitPrice.toNumber() } : {}),
        time_in_force: state.timeInForce,
        ...(state.timeInForce === 'GTD' ? { expires_at: new Date(state.expiresText).toISOString() } : {}),
        ...protection,
      };
    }
  }
  return { errors, entry, reference, stopLoss, takeProfit, riskPercent, after, extras };
}

/** The spec's market order with nothing of the ticket's set. */
export function isPlainMarket(state: TicketState): boolean {
  return (
    state.orderType === 'MARKET' &&
    state.stopLossText.trim() === '' &&
    state.takeProfitText.trim() === '' &&
    state.trailingText.trim() === ''
  );
}
