import {
  type AccountScenario,
  DEFAULT_MARGIN_CALL_LEVEL,
  DEFAULT_STOP_OUT_LEVEL,
  Dec,
  executionPrice,
  type FxPair,
  type LevelPrice,
  MAX_GTD_DAYS,
  type OrderSide,
  type OrderType,
  type PendingOrderType,
  type PositionDto,
  priceAtMarginLevel,
  priceAtPips,
  type QuoteLookup,
  quoteMovedTo,
  realizedAtPriceUsd,
  scenarioAfterFill,
  scenarioFigures,
  type TimeInForce,
  TRAILING_STOP_MAX_PIPS,
  TRAILING_STOP_MIN_PIPS,
} from '@pipdesk/contract';
import {
  type ExpiryProblem,
  pendingPriceProblem,
  protectionSideProblems,
  readExpiry,
  readPrice,
  readTrailingPips,
} from '../orderRules';

// The order ticket's rules (docs/screens.md#order-ticket): what each order type needs, the
// checks the server makes (docs/orders.md#validation) made before submit, stop loss and take
// profit as a price or a distance in pips with their money, and the account after the order.
// Pure: the component passes the prices and the clock.

/** How a stop loss or take profit is typed: a price, or a distance in pips from the entry. */
export type DistanceUnit = 'price' | 'pips';

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

export const TICKET_TEXT = {
  enterPrice: 'Enter a price',
  enterPips: 'Enter a distance in pips',
  noEntry: 'Waiting for a price to measure the pips from',
  positive: 'must be greater than 0',
  chooseExpiry: 'Choose when the order expires',
  expiryPast: 'Expiry must be in the future',
  expiryFar: `Expiry must be at most ${MAX_GTD_DAYS} days ahead`,
  trailing: `Trailing stop must be a whole number of pips from ${TRAILING_STOP_MIN_PIPS} to ${TRAILING_STOP_MAX_PIPS}`,
} as const;

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

type Parsed = { value: Dec; error?: undefined } | { value?: undefined; error: string };

/** A typed price: a positive number with at most the pair's digits (docs/orders.md#validation). */
export function parsePrice(text: string, label: string, digits: number): Parsed {
  const read = readPrice(text, digits);
  if (read.kind === 'empty') return { error: TICKET_TEXT.enterPrice };
  if (read.kind === 'invalid') return { error: `${label} ${read.problem}` };
  return { value: read.value };
}

/** A typed distance in pips: positive, to a tenth of a pip (a pipette). */
export function parsePips(text: string, label: string): Parsed {
  const t = text.trim();
  if (t === '') return { error: TICKET_TEXT.enterPips };
  if (!/^\d*\.?\d*$/.test(t) || t === '.') return { error: `${label} must be a number of pips` };
  const value = Dec.from(t);
  if (value.sign() <= 0) return { error: `${label} ${TICKET_TEXT.positive}` };
  if (!value.round(1, 'down').eq(value)) return { error: `${label} must be in tenths of a pip` };
  return { value };
}

/** A stop loss or take profit as the ticket shows it: its price, its distance from the entry, its money there. */
export interface ProtectionFigure {
  price: Dec;
  /** Distance from the entry in pips, unsigned. */
  pips: Dec;
  /**
   * USD realized at that price by closing the position the order leaves open (its lots and
   * average entry, netted as the server nets), to the cent; undefined without prices or lots,
   * or when the order only reduces or closes the position (its protection is then ignored,
   * docs/orders.md#protection-on-positions).
   */
  money: Dec | undefined;
  /** The lots the protection would close: the order's, or the whole position it adds to. */
  lots: Dec | undefined;
  /** The order reduces or closes an opposite position: the server ignores its protection. */
  ignored: boolean;
}

/** The account after the order, on the current prices (docs/screens.md#order-ticket). */
export interface AccountAfter {
  marginLevel: Dec | null;
  freeMargin: Dec;
  marginCall: LevelPrice | null;
  stopOut: LevelPrice | null;
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

export interface TicketContext {
  pair: FxPair | undefined;
  side: OrderSide;
  /** The lots typed, when they are a number above 0. */
  lots: number | null;
  pairs: readonly FxPair[];
  quote: QuoteLookup;
  account: { balance: number; equity: number; leverage: number } | null;
  positions: readonly Pick<PositionDto, 'fx_pair_symbol' | 'quantity' | 'average_entry_price' | 'status'>[];
  /** Now, for the expiry (epoch ms). */
  now: number;
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
      const problem = q ? pendingPriceProblem(type, side, price, q, digits) : null;
      if (problem) errors.price = `${label} of ${problem}`;
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
    const isLong = long(side);
    const sides = protectionSideProblems(
      isLong,
      reference,
      pending ? 'the entry' : `the ${isLong ? 'bid' : 'ask'}`,
      stopLoss?.price ?? null,
      takeProfit?.price ?? null,
      digits,
    );
    if (sides.stopLoss && !errors.stopLoss) errors.stopLoss = `Stop Loss ${sides.stopLoss}`;
    if (sides.takeProfit && !errors.takeProfit) errors.takeProfit = `Take Profit ${sides.takeProfit}`;
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

/** The ticket's words for an expiry problem: a missing and an unreadable one read the same. */
const EXPIRY_TEXT: Record<ExpiryProblem, string> = {
  missing: TICKET_TEXT.chooseExpiry,
  invalid: TICKET_TEXT.chooseExpiry,
  past: TICKET_TEXT.expiryPast,
  tooFar: TICKET_TEXT.expiryFar,
};

/** docs/orders.md#validation: GTD needs an expiry after now and at most 90 days ahead. */
export function expiryProblem(text: string, now: number): string | null {
  const expiry = readExpiry(text, now);
  return 'problem' in expiry ? EXPIRY_TEXT[expiry.problem] : null;
}

/**
 * A stop loss or take profit from its typed text: a price as typed, or a distance in pips from
 * the entry on the losing (stop) or winning (target) side; its money at that price.
 */
function protectionFigure(
  field: 'stopLoss' | 'takeProfit',
  text: string,
  unit: DistanceUnit,
  entry: Dec | undefined,
  ctx: TicketContext,
  errors: Partial<Record<TicketField, string>>,
): ProtectionFigure | null {
  const pair = ctx.pair;
  if (!pair || text.trim() === '') return null;
  const label = field === 'stopLoss' ? 'Stop Loss' : 'Take Profit';
  let price: Dec;
  if (unit === 'pips') {
    const parsed = parsePips(text, label);
    if (parsed.error !== undefined) {
      errors[field] = parsed.error;
      return null;
    }
    if (!entry) {
      errors[field] = TICKET_TEXT.noEntry;
      return null;
    }
    // A long loses below its entry, a short above: a stop is on the losing side, a target on the other.
    const losing = (field === 'stopLoss') === long(ctx.side);
    price = priceAtPips(entry, losing ? parsed.value.neg() : parsed.value, pair.pip_size, pair.digits);
    if (price.sign() <= 0) {
      errors[field] = `${label} ${TICKET_TEXT.positive}`;
      return null;
    }
  } else {
    const parsed = parsePrice(text, label, pair.digits);
    if (parsed.error !== undefined) {
      errors[field] = parsed.error;
      return null;
    }
    price = parsed.value;
  }
  const pips = entry ? price.minus(entry).abs().div(pair.pip_size) : Dec.ZERO;
  const protectedPosition = entry && ctx.lots !== null ? positionLeftOpen(ctx, pair, entry, ctx.lots) : undefined;
  const money = protectedPosition
    ? realizedAtPriceUsd({
        pair,
        pairs: ctx.pairs,
        quote: ctx.quote,
        side: ctx.side,
        lots: protectedPosition.lots,
        entry: protectedPosition.entry,
        exit: price,
      })
    : undefined;
  return { price, pips, money, lots: protectedPosition?.lots, ignored: protectedPosition === null };
}

/**
 * The position on the order's side that the order leaves open, whose protection it sets
 * (docs/orders.md#protection-on-positions): the order itself when nothing is held in the pair or
 * when it flips the position (the remainder at its price), the whole position re-averaged when it
 * adds, null when it only reduces or closes.
 */
function positionLeftOpen(ctx: TicketContext, pair: FxPair, entry: Dec, lots: number): { lots: Dec; entry: Dec } | null {
  const held = ctx.positions
    .filter((p) => p.fx_pair_symbol === pair.symbol && p.status === 'OPEN' && p.quantity !== 0)
    .map((p) => ({ symbol: p.fx_pair_symbol, quantity: p.quantity, entry: p.average_entry_price }));
  const after = scenarioAfterFill(
    { balance: 0, leverage: 1, positions: held, pairs: [pair], quote: ctx.quote },
    { symbol: pair.symbol, side: ctx.side, lots, price: entry },
  );
  const left = after.positions.find((p) => p.symbol === pair.symbol);
  if (!left || Dec.from(left.quantity).sign() !== (long(ctx.side) ? 1 : -1)) return null;
  return { lots: Dec.from(left.quantity).abs(), entry: Dec.from(left.entry) };
}

/**
 * The account as it would be once the order filled, everything else priced as now: a market
 * order at the current ask or bid; a pending order with its pair moved to where it fills
 * (BUY at an ask, SELL at a bid equal to its entry). Then where, on that pair alone, the margin
 * level would reach the margin call and stop-out levels.
 */
function accountAfter(ctx: TicketContext, pair: FxPair, entry: Dec, pending: boolean): AccountAfter | null {
  if (!ctx.account || ctx.lots === null) return null;
  const current = ctx.quote(pair.symbol);
  if (!current) return null;
  const spread = Dec.from(current.ask).minus(current.bid);
  const quote = pending ? quoteMovedTo(ctx.quote, pair.symbol, long(ctx.side) ? entry.minus(spread) : entry) : ctx.quote;
  const now: AccountScenario = {
    balance: ctx.account.balance,
    leverage: ctx.account.leverage,
    positions: ctx.positions
      .filter((p) => p.status === 'OPEN' && p.quantity !== 0)
      .map((p) => ({ symbol: p.fx_pair_symbol, quantity: p.quantity, entry: p.average_entry_price })),
    pairs: ctx.pairs,
    quote,
  };
  const after = scenarioAfterFill(now, { symbol: pair.symbol, side: ctx.side, lots: ctx.lots, price: entry });
  const figures = scenarioFigures(after);
  return {
    marginLevel: figures.marginLevel,
    freeMargin: figures.freeMargin,
    marginCall: priceAtMarginLevel(after, pair.symbol, pair.digits, DEFAULT_MARGIN_CALL_LEVEL),
    stopOut: priceAtMarginLevel(after, pair.symbol, pair.digits, DEFAULT_STOP_OUT_LEVEL),
  };
}
