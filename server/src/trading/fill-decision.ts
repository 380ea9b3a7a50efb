import { Dec, executionPrice, marginUsd, type OrderReason, type OrderRejectionCode, type OrderSide } from '@pipdesk/contract';
import type { TradingAccountRow } from '../accounts/index.js';
import type { Pair } from '../market/index.js';
import type { FillWrite, RejectionWrite } from './fill-repo.js';
import {
  applyFill,
  centilotsFromLots,
  type ExactQuote,
  type FillKind,
  lotsFromCentilots,
  type Pricing,
  priceFromE10,
  priceToE10,
  toMinor,
  valueAccount,
} from './math.js';
import { INITIAL_ORDER_STATUS, transition } from './order-status.js';
import type { FillStatistics, PrefetchedStatistics } from './performance/record.js';
import { type FillPositionWrite, type PositionProtection, positionStateFromRow } from './positions-repo.js';
import type { OrderRow, PositionRow } from './rows.js';
import { type PositionState, accountId as toAccountId, positionId as toPositionId } from './types.js';

/** Protection as stored (prices × 10^10, whole pips); null for none. */
export type StoredProtection = PositionProtection;

export const NO_PROTECTION: StoredProtection = { stop_loss_e10: null, take_profit_e10: null, trailing_stop_pips: null };

/** Just the protection columns of a row (an order's or a position's). */
export function storedProtection(row: StoredProtection): StoredProtection {
  return { stop_loss_e10: row.stop_loss_e10, take_profit_e10: row.take_profit_e10, trailing_stop_pips: row.trailing_stop_pips };
}

export function hasProtection(p: StoredProtection): boolean {
  return p.stop_loss_e10 !== null || p.take_profit_e10 !== null || p.trailing_stop_pips !== null;
}

/**
 * The protection of the position a fill leaves open (docs/orders.md#protection-on-positions): an opening or
 * flipping fill gives it the order's (none if the order carries none); adding replaces it with
 * the order's when the order carries any, else keeps it; reducing keeps it (the order was on
 * the other side); closing leaves none.
 */
export function protectionAfterFill(kind: FillKind, before: StoredProtection, carried: StoredProtection): StoredProtection {
  switch (kind) {
    case 'open':
    case 'flip':
      return carried;
    case 'add':
      return hasProtection(carried) ? carried : before;
    case 'reduce':
      return before;
    case 'close':
      return NO_PROTECTION;
  }
}

/** Whether the position leaves the fill with the order's protection (opened, flipped, or added to by an order carrying some). */
function takesOrderProtection(kind: FillKind, carried: StoredProtection): boolean {
  return kind === 'open' || kind === 'flip' || (kind === 'add' && hasProtection(carried));
}

/**
 * A trailing stop with no stop loss yet starts at the fill (docs/order-engine.md#trailing-stops):
 * a LONG's at `bid − distance`, a SHORT's at `ask + distance`, of the quote the fill executed
 * on, so the answer, the positions table and the database carry it from the first moment
 * rather than from the next tick. A stop loss already set is left as it is (the engine trails it).
 */
export function trailingStartAtFill(
  protection: StoredProtection,
  quantity: Dec,
  quote: { bid: Dec; ask: Dec },
  pipSize: number,
): StoredProtection {
  if (protection.trailing_stop_pips === null || protection.stop_loss_e10 !== null || quantity.isZero()) return protection;
  const distance = Dec.from(pipSize).times(protection.trailing_stop_pips);
  const stop = quantity.gt(Dec.ZERO) ? quote.bid.minus(distance) : quote.ask.plus(distance);
  if (!stop.gt(Dec.ZERO)) return protection;
  return { ...protection, stop_loss_e10: priceToE10(stop) };
}

/**
 * Whether a fill changes the protection of the position it fills into (docs/orders.md#protection-on-positions):
 * flipping or closing it, or adding with an order that carries protection (it replaces the position's,
 * even with equal values). Such a fill bumps the position's `protection_version`
 * (docs/order-engine.md#the-engine); opening starts it at 0.
 */
export function fillChangesProtection(kind: FillKind, carried: StoredProtection): boolean {
  return kind === 'flip' || kind === 'close' || (kind === 'add' && hasProtection(carried));
}

/** What one execution is asked to do: a client order, a close, a stop-out, a protection trigger or a pending order's fill. */
export interface ExecutionRequest {
  /** The account row, locked by the caller's transaction (its balance is the stored one). */
  account: TradingAccountRow;
  pair: Pair;
  side: OrderSide;
  quantityCentilots: number;
  reason: OrderReason;
  /** The open positions of the account (read inside the transaction). */
  positions: PositionRow[];
  /** The position this order must fill into (a close); otherwise the account's open one on the pair, if any. */
  target?: PositionRow;
  clientPrice?: number;
  /** A stop-out (or a protection trigger) proceeds on a suspended account. */
  ignoreAccountStatus?: boolean;
  /**
   * A stored PENDING order to fill (a trigger) instead of inserting a MARKET order: it leaves
   * PENDING through `… WHERE status = 'PENDING'` in this transaction, or `StaleOrder` is thrown.
   */
  pending?: OrderRow;
  /** The tick to fill at (a trigger's); default the latest price. */
  quote?: ExactQuote;
  /**
   * When this node received `quote` (its clock, epoch ms); default when the symbol's latest quote
   * arrived. Too old at the decision, the order is rejected NO_PRICE (docs/trading-rules.md#no-fill-on-a-stale-quote).
   */
  quoteReceivedAt?: number;
  /** The protection the order carries for the position it leaves open; default none. */
  protection?: StoredProtection;
  /** The statistics rows read ahead with the positions (order-reads.ts); read at the fill otherwise. */
  statistics?: PrefetchedStatistics;
}

/** A fill, decided: what the repository writes (fill-repo.ts, `recordFill`) and what the execution answers. */
export interface FillPlan {
  kind: 'filled';
  write: FillWrite;
  /** The position as the fill leaves it; a new one's id is 0 until it is written (`positionWithId`). */
  position: PositionState;
  /** The position before the fill (undefined when the fill opens it). */
  before: PositionState | undefined;
  realizedMinor: number;
  price: Dec;
  marginRequired: Dec;
  units: Dec;
  executedAt: number;
}

/** A business rejection, decided: the order is stored REJECTED (fill-repo.ts, `recordRejection`) and nothing else changes. */
export interface RejectionPlan {
  kind: 'rejected';
  write: RejectionWrite;
  code: OrderRejectionCode;
  message: string;
}

interface Rejection {
  code: OrderRejectionCode;
  message: string;
}

const REJECTION = {
  notActive: { code: 'ACCOUNT_NOT_ACTIVE', message: 'Trading account is not active' } satisfies Rejection,
  noPrice: (what: string): Rejection => ({ code: 'NO_PRICE', message: `No price available for ${what}` }),
  margin: (required: Dec, free: Dec): Rejection => ({
    code: 'INSUFFICIENT_MARGIN',
    message: `Insufficient free margin: this order needs ${usd(required)} of margin and ${usd(Dec.max(free, Dec.ZERO))} is free`,
  }),
};

function usd(amount: Dec): string {
  const [whole, cents] = amount.toFixed(2).split('.');
  return `${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents} USD`;
}

/** The MARKET order a request inserts, but for its outcome (filled or rejected) and its position. */
function marketOrder(req: ExecutionRequest, now: number, carried: StoredProtection) {
  return {
    account_id: req.account.id,
    pair_id: req.pair.id,
    symbol: req.pair.symbol,
    order_type: 'MARKET' as const,
    side: req.side,
    quantity_centilots: req.quantityCentilots,
    price_e10: null,
    reason: req.reason,
    client_price_e10: req.clientPrice === undefined ? null : priceToE10(Dec.from(req.clientPrice)),
    submitted_at: now,
    created_at: now,
    updated_at: now,
    time_in_force: 'GTC' as const,
    expires_at: null,
    limit_price_e10: null,
    triggered_at: null,
    ...carried,
  };
}

function rejection(req: ExecutionRequest, now: number, carried: StoredProtection, why: Rejection): RejectionPlan {
  const { pending } = req;
  const write: RejectionWrite = pending
    ? {
        kind: 'pending',
        pending,
        settlement: {
          status: transition(pending.status, 'REJECT'),
          filled_quantity_centilots: 0,
          average_fill_price_e10: null,
          rejection_reason: why.message,
          position_id: null,
          updated_at: now,
        },
      }
    : {
        kind: 'market',
        row: {
          ...marketOrder(req, now, carried),
          filled_quantity_centilots: 0,
          average_fill_price_e10: null,
          status: transition(INITIAL_ORDER_STATUS, 'REJECT'),
          rejection_reason: why.message,
          position_id: null,
        },
      };
  return { kind: 'rejected', write, code: why.code, message: why.message };
}

/** The position state with the id its write gave it (the same object when it has it already). */
export function positionWithId(position: PositionState, id: number): PositionState {
  return position.id === id ? position : { ...position, id: toPositionId(id) };
}

/**
 * The fill decision (docs/trading-rules.md): whether the order fills, at what price, and what it
 * leaves (the position, the trade, the realized P&L, the statistics), or why it is rejected. Pure:
 * it reads only its inputs and the prices in memory (`pricing`), and writes nothing; `execute`
 * (execution.ts) hands its plan to the repository.
 */
export function decideFill(req: ExecutionRequest, now: number, pricing: Pricing): FillPlan | RejectionPlan {
  const { account, pair, pending } = req;
  const balanceMinor = account.balance_minor;
  const leverage = account.leverage;
  const carried = req.protection ?? NO_PROTECTION;
  const reject = (why: Rejection) => rejection(req, now, carried, why);

  if (account.status !== 'ACTIVE' && !req.ignoreAccountStatus) return reject(REJECTION.notActive);
  const quote = req.quote ?? pricing.quote(pair.symbol);
  if (!quote) return reject(REJECTION.noPrice(pair.symbol));
  // A quote older than the feed's stale limit is no price: a node cut from the bus, or a silent
  // feed, must not keep filling at its last price. Judged at `now`, the decision's own clock.
  if (pricing.isStale(req.quoteReceivedAt ?? pricing.prices.receivedAt(pair.symbol), now))
    return reject(REJECTION.noPrice(pair.symbol));
  const baseRate = pricing.usdRate(pair.baseCurrency);
  const quoteRate = pricing.usdRate(pair.quoteCurrency);
  if (!baseRate) return reject(REJECTION.noPrice(`${pair.baseCurrency} to USD`));
  if (!quoteRate) return reject(REJECTION.noPrice(`${pair.quoteCurrency} to USD`));

  const existing = req.target ?? req.positions.find((p) => p.pair_id === pair.id);
  const oldState = existing ? positionStateFromRow(existing) : undefined;
  const price = executionPrice(req.side, quote);
  const lots = lotsFromCentilots(req.quantityCentilots);
  const oldQuantity = lotsFromCentilots(oldState?.quantityCentilots ?? 0);
  const fill = applyFill(
    {
      quantity: oldQuantity,
      averageEntryPrice: oldState ? Dec.from(oldState.averageEntryPrice) : Dec.ZERO,
    },
    req.side === 'BUY' ? lots : lots.neg(),
    price,
  );
  const units = lots.times(pair.contractSize);
  const marginRequired = marginUsd(units, baseRate, leverage);

  if (fill.quantity.abs().gt(oldQuantity.abs())) {
    // Only the added exposure needs free margin (a flip first releases the old side's margin).
    const added = fill.quantity.abs().minus(oldQuantity.abs()).times(pair.contractSize);
    const required = marginUsd(added, baseRate, leverage);
    const figures = valueAccount(balanceMinor, leverage, req.positions.map(positionStateFromRow), pricing, true);
    if (required.gt(figures.freeMargin)) return reject(REJECTION.margin(required, figures.freeMargin));
  }

  const realizedMinor = toMinor(quoteRate.convert(fill.realized.times(pair.contractSize)));
  const quantityCentilots = centilotsFromLots(fill.quantity);
  const closed = quantityCentilots === 0;
  const afterFill = protectionAfterFill(fill.kind, existing ? storedProtection(existing) : NO_PROTECTION, carried);
  // Only the order's own protection starts a trailing stop here; a position's kept protection
  // may have a stop the engine moved in memory and not yet wrote, which the engine keeps.
  const protection = takesOrderProtection(fill.kind, carried)
    ? trailingStartAtFill(afterFill, fill.quantity, quote, pair.pipSize)
    : afterFill;
  const protectionState = {
    stopLoss: protection.stop_loss_e10 === null ? null : priceFromE10(protection.stop_loss_e10).toString(),
    takeProfit: protection.take_profit_e10 === null ? null : priceFromE10(protection.take_profit_e10).toString(),
    trailingStopPips: protection.trailing_stop_pips,
  };
  // The position as the fill leaves it, and how it is written (a new one's id comes from the write).
  let positionWrite: FillPositionWrite;
  let position: PositionState;
  if (existing && oldState) {
    const protectionVersion = existing.protection_version + (fillChangesProtection(fill.kind, carried) ? 1 : 0);
    position = {
      ...oldState,
      quantityCentilots,
      averageEntryPrice: fill.averageEntryPrice.toString(),
      status: closed ? 'CLOSED' : 'OPEN',
      realizedPnlMinor: oldState.realizedPnlMinor + realizedMinor,
      updatedAt: now,
      closedAt: closed ? now : null,
      ...protectionState,
      protectionVersion,
    };
    positionWrite = {
      kind: 'update',
      id: position.id,
      changes: {
        quantity_centilots: quantityCentilots,
        average_entry_price_e10: priceToE10(fill.averageEntryPrice),
        realized_pnl_minor: position.realizedPnlMinor,
        status: position.status,
        updated_at: now,
        closed_at: position.closedAt,
        ...protection,
        protection_version: protectionVersion,
      },
    };
  } else {
    positionWrite = {
      kind: 'insert',
      row: {
        account_id: account.id,
        pair_id: pair.id,
        symbol: pair.symbol,
        quantity_centilots: quantityCentilots,
        average_entry_price_e10: priceToE10(fill.averageEntryPrice),
        realized_pnl_minor: 0,
        status: 'OPEN',
        created_at: now,
        updated_at: now,
        closed_at: null,
        ...protection,
      },
    };
    position = {
      id: toPositionId(0),
      accountId: toAccountId(account.id),
      pairId: pair.id,
      symbol: pair.symbol,
      quantityCentilots,
      averageEntryPrice: fill.averageEntryPrice.toString(),
      status: 'OPEN',
      realizedPnlMinor: 0,
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      ...protectionState,
      protectionVersion: 0,
    };
  }

  // docs/performance.md: the statistics, the journal and the equity curve move with the fill.
  const statistics = (balanceAfter: number, positionId: number): FillStatistics => {
    const after = positionWithId(position, positionId);
    const positionsAfter = req.positions.filter((p) => p.id !== after.id).map(positionStateFromRow);
    positionsAfter.push(after);
    return {
      account: { id: account.id, created_at: account.created_at, balance_minor: balanceMinor },
      symbol: pair.symbol,
      kind: fill.kind,
      realizedMinor,
      executedAt: now,
      balanceMinor: balanceAfter,
      // Kept: valued under the account's lock (math.ts, `valuePosition`).
      equity: valueAccount(balanceAfter, leverage, positionsAfter, pricing, true).equity,
      ...(req.statistics ? { read: req.statistics } : {}),
    };
  };
  const write: FillWrite = {
    position: positionWrite,
    order: pending
      ? {
          kind: 'pending',
          pending,
          settlement: {
            status: transition(pending.status, 'FILL'),
            filled_quantity_centilots: req.quantityCentilots,
            average_fill_price_e10: priceToE10(price),
            rejection_reason: null,
            updated_at: now,
          },
        }
      : {
          kind: 'market',
          row: {
            ...marketOrder(req, now, carried),
            filled_quantity_centilots: req.quantityCentilots,
            average_fill_price_e10: priceToE10(price),
            status: transition(INITIAL_ORDER_STATUS, 'FILL'),
            rejection_reason: null,
          },
        },
    trade: {
      account_id: account.id,
      pair_id: pair.id,
      symbol: pair.symbol,
      side: req.side,
      quantity_centilots: req.quantityCentilots,
      price_e10: priceToE10(price),
      realized_pnl_minor: realizedMinor,
      executed_at: now,
    },
    realizedPnl: realizedMinor === 0 ? undefined : { account_id: account.id, amount_minor: realizedMinor, created_at: now },
    balanceMinor,
    statistics,
  };
  return { kind: 'filled', write, position, before: oldState, realizedMinor, price, marginRequired, units, executedAt: now };
}
