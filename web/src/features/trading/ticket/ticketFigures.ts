import {
  type AccountScenario,
  DEFAULT_MARGIN_CALL_LEVEL,
  DEFAULT_STOP_OUT_LEVEL,
  Dec,
  type FxPair,
  type LevelPrice,
  type OrderSide,
  type PositionDto,
  priceAtMarginLevel,
  priceAtPips,
  type QuoteLookup,
  quoteMovedTo,
  realizedAtPriceUsd,
  scenarioAfterFill,
  scenarioFigures,
} from '@pipdesk/contract';
import { parsePips, parsePrice, TICKET_TEXT } from './ticketChecks';

// The order ticket's figures (docs/screens.md#order-ticket): stop loss and take profit as a
// price or a distance in pips with their money, and the account after the order. Pure: the
// caller passes the prices.

/** How a stop loss or take profit is typed: a price, or a distance in pips from the entry. */
export type DistanceUnit = 'price' | 'pips';

/** What the ticket is evaluated with beside what was typed: the pair, the prices, the account. */
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

const long = (side: OrderSide) => side === 'BUY';

/**
 * A stop loss or take profit from its typed text: a price as typed, or a distance in pips from
 * the entry on the losing (stop) or winning (target) side; its money at that price.
 */
export function protectionFigure(
  field: 'stopLoss' | 'takeProfit',
  text: string,
  unit: DistanceUnit,
  entry: Dec | undefined,
  ctx: TicketContext,
  errors: Partial<Record<'stopLoss' | 'takeProfit', string>>,
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
export function accountAfter(ctx: TicketContext, pair: FxPair, entry: Dec, pending: boolean): AccountAfter | null {
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
