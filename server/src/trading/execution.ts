import { Dec, executionPrice, marginUsd, type OrderReason, type OrderRejectionCode, type OrderSide } from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import { postLedgerEntry, type TradingAccountRow } from '../accounts/index.js';
import { dbKindOf } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { Pair } from '../market/index.js';
import type { TradingDeps } from './deps.js';
import { writeWholeFill } from './fill-statement.js';
import {
  applyFill,
  centilotsFromLots,
  type ExactQuote,
  type FillKind,
  lotsFromCentilots,
  priceFromE10,
  priceToE10,
  toMinor,
  valueAccount,
} from './math.js';
import { INITIAL_ORDER_STATUS, transition } from './order-status.js';
import { type PrefetchedStatistics, recordFill, statisticsOfFill } from './performance/record.js';
import type { OrderRow, PositionProtection, PositionRow } from './repo.js';
import * as repo from './repo.js';
import {
  type OrderId,
  type PositionState,
  type TradeId,
  accountId as toAccountId,
  orderId as toOrderId,
  positionId as toPositionId,
  tradeId as toTradeId,
} from './types.js';

/** Protection as stored (prices × 10^10, whole pips); null for none. */
export type StoredProtection = PositionProtection;

export const NO_PROTECTION: StoredProtection = { stop_loss_e10: null, take_profit_e10: null, trailing_stop_pips: null };

/** Just the protection columns of a row (an order's or a position's). */
export function storedProtection(row: StoredProtection): StoredProtection {
  return {
    stop_loss_e10: row.stop_loss_e10 === null ? null : Number(row.stop_loss_e10),
    take_profit_e10: row.take_profit_e10 === null ? null : Number(row.take_profit_e10),
    trailing_stop_pips: row.trailing_stop_pips === null ? null : Number(row.trailing_stop_pips),
  };
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

/**
 * Whether a fill changes the protection of the position it fills into (docs/orders.md#protection-on-positions):
 * flipping or closing it, or adding with an order that carries protection (it replaces the position's,
 * even with equal values). Such a fill bumps the position's `protection_version`
 * (docs/order-engine.md#the-engine); opening starts it at 0.
 */
export function fillChangesProtection(kind: FillKind, carried: StoredProtection): boolean {
  return kind === 'flip' || kind === 'close' || (kind === 'add' && hasProtection(carried));
}

/** Thrown inside the transaction when a PENDING order was no longer PENDING at its guarded update: nothing of the attempt is kept. */
export class StaleOrder extends Error {
  constructor(readonly orderId: number) {
    super(`Order ${orderId} is no longer PENDING`);
    this.name = 'StaleOrder';
  }
}

/** What one execution is asked to do: a client order, a close, a stop-out, a protection trigger or a pending order's fill. */
export interface ExecutionRequest {
  /** The account row, locked by the caller's transaction. */
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
  /** The protection the order carries for the position it leaves open; default none. */
  protection?: StoredProtection;
  /** The statistics rows read ahead with the positions (order-reads.ts); read at the fill otherwise. */
  statistics?: PrefetchedStatistics;
}

export interface FilledExecution {
  kind: 'filled';
  order: OrderRow & { id: OrderId };
  position: PositionState;
  /** The position before the fill (undefined when the fill opened it). */
  before: PositionState | undefined;
  tradeId: TradeId;
  realizedMinor: number;
  price: Dec;
  marginRequired: Dec;
  units: Dec;
  balanceMinor: number;
  executedAt: number;
}

/** A business rejection: the order is stored REJECTED and nothing else changes. */
export interface RejectedExecution {
  kind: 'rejected';
  order: OrderRow & { id: OrderId };
  code: OrderRejectionCode;
  message: string;
  balanceMinor: number;
}

export type Execution = FilledExecution | RejectedExecution;

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

/**
 * One execution inside the caller's write transaction: the order (FILLED or REJECTED), the
 * trade, the position and the ledger entry, all or nothing.
 */
export async function execute(
  deps: Pick<TradingDeps, 'clock' | 'pricing'>,
  trx: Kysely<Database>,
  req: ExecutionRequest,
): Promise<Execution> {
  const { pricing } = deps;
  const now = deps.clock.now();
  const { account, pair } = req;
  const balanceMinor = Number(account.balance_minor);
  const leverage = Number(account.leverage);
  const carried = req.protection ?? NO_PROTECTION;
  const baseOrder = {
    account_id: Number(account.id),
    pair_id: pair.id,
    symbol: pair.symbol,
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
  const { pending } = req;
  const reject = async (why: Rejection): Promise<Execution> => {
    if (pending) {
      const settlement = {
        status: transition(pending.status, 'REJECT'),
        filled_quantity_centilots: 0,
        average_fill_price_e10: null,
        rejection_reason: why.message,
        position_id: null,
        updated_at: now,
      };
      if (!(await repo.settlePendingOrder(trx, pending.id, settlement))) throw new StaleOrder(pending.id);
      const order = { ...pending, ...settlement, id: toOrderId(pending.id) };
      return { kind: 'rejected', order, code: why.code, message: why.message, balanceMinor };
    }
    const row = {
      ...baseOrder,
      filled_quantity_centilots: 0,
      average_fill_price_e10: null,
      status: transition(INITIAL_ORDER_STATUS, 'REJECT'),
      rejection_reason: why.message,
      position_id: null,
    };
    const id = toOrderId(await repo.insertOrder(trx, row));
    return { kind: 'rejected', order: { id, ...row }, code: why.code, message: why.message, balanceMinor };
  };

  if (account.status !== 'ACTIVE' && !req.ignoreAccountStatus) return reject(REJECTION.notActive);
  const quote = req.quote ?? pricing.quote(pair.symbol);
  if (!quote) return reject(REJECTION.noPrice(pair.symbol));
  const baseRate = pricing.usdRate(pair.baseCurrency);
  const quoteRate = pricing.usdRate(pair.quoteCurrency);
  if (!baseRate) return reject(REJECTION.noPrice(`${pair.baseCurrency} to USD`));
  if (!quoteRate) return reject(REJECTION.noPrice(`${pair.quoteCurrency} to USD`));

  const existing = req.target ?? req.positions.find((p) => Number(p.pair_id) === pair.id);
  const oldState = existing ? repo.positionStateFromRow(existing) : undefined;
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
    const figures = valueAccount(balanceMinor, leverage, req.positions.map(repo.positionStateFromRow), pricing);
    if (required.gt(figures.freeMargin)) return reject(REJECTION.margin(required, figures.freeMargin));
  }

  const realizedMinor = toMinor(quoteRate.convert(fill.realized.times(pair.contractSize)));
  const quantityCentilots = centilotsFromLots(fill.quantity);
  const closed = quantityCentilots === 0;
  const protection = protectionAfterFill(fill.kind, existing ? storedProtection(existing) : NO_PROTECTION, carried);
  const protectionState = {
    stopLoss: protection.stop_loss_e10 === null ? null : priceFromE10(protection.stop_loss_e10).toString(),
    takeProfit: protection.take_profit_e10 === null ? null : priceFromE10(protection.take_profit_e10).toString(),
    trailingStopPips: protection.trailing_stop_pips,
  };
  // The position as the fill leaves it, and how it is written (its id, when new, comes from the write).
  let positionWrite: repo.FillPositionWrite;
  let positionAfter: (id: number) => PositionState;
  if (existing && oldState) {
    const protectionVersion = Number(existing.protection_version) + (fillChangesProtection(fill.kind, carried) ? 1 : 0);
    const updated: PositionState = {
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
      id: updated.id,
      changes: {
        quantity_centilots: quantityCentilots,
        average_entry_price_e10: priceToE10(fill.averageEntryPrice),
        realized_pnl_minor: updated.realizedPnlMinor,
        status: updated.status,
        updated_at: now,
        closed_at: updated.closedAt,
        ...protection,
        protection_version: protectionVersion,
      },
    };
    positionAfter = () => updated;
  } else {
    positionWrite = {
      kind: 'insert',
      row: {
        account_id: Number(account.id),
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
    positionAfter = (id) => ({
      id: toPositionId(id),
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
    });
  }

  const trade = {
    account_id: Number(account.id),
    pair_id: pair.id,
    symbol: pair.symbol,
    side: req.side,
    quantity_centilots: req.quantityCentilots,
    price_e10: priceToE10(price),
    realized_pnl_minor: realizedMinor,
    executed_at: now,
  };
  // docs/performance.md: the statistics, the journal and the equity curve move with the fill.
  const statistics = (balanceAfter: number, positionAfterFill: PositionState) => {
    const positionsAfter = req.positions.filter((p) => Number(p.id) !== positionAfterFill.id).map(repo.positionStateFromRow);
    positionsAfter.push(positionAfterFill);
    return {
      account: { id: Number(account.id), created_at: Number(account.created_at), balance_minor: balanceMinor },
      symbol: pair.symbol,
      kind: fill.kind,
      realizedMinor,
      executedAt: now,
      balanceMinor: balanceAfter,
      equity: valueAccount(balanceAfter, leverage, positionsAfter, pricing).equity,
      ...(req.statistics ? { read: req.statistics } : {}),
    };
  };
  let position: PositionState;
  let order: OrderRow & { id: OrderId };
  let tradeId: TradeId;
  let balanceAfter: number | undefined;
  if (pending) {
    position = positionAfter(await repo.writePosition(trx, positionWrite));
    const settlement = {
      status: transition(pending.status, 'FILL'),
      filled_quantity_centilots: req.quantityCentilots,
      average_fill_price_e10: priceToE10(price),
      rejection_reason: null,
      position_id: position.id as number,
      updated_at: now,
    };
    if (!(await repo.settlePendingOrder(trx, pending.id, settlement))) throw new StaleOrder(pending.id);
    order = { ...pending, ...settlement, id: toOrderId(pending.id) };
    tradeId = toTradeId(await repo.insertTrade(trx, { ...trade, order_id: order.id, position_id: position.id }));
  } else {
    const orderRow = {
      ...baseOrder,
      filled_quantity_centilots: req.quantityCentilots,
      average_fill_price_e10: priceToE10(price),
      status: transition(INITIAL_ORDER_STATUS, 'FILL'),
      rejection_reason: null,
    };
    // On PostgreSQL, with the statistics' rows read ahead, the whole fill is one statement
    // (fill-statement.ts): the account is locked, so the balance after it is the one read plus
    // the P&L, and the valuation reads no position's id (a new one has none yet).
    const whole =
      dbKindOf(trx) === 'postgres'
        ? statisticsOfFill(statistics(balanceMinor + realizedMinor, positionAfter(Number(existing?.id ?? 0))))
        : undefined;
    const ids = whole
      ? await writeWholeFill(trx, {
          position: positionWrite,
          order: orderRow,
          trade,
          realizedPnl:
            realizedMinor === 0 ? undefined : { account_id: Number(account.id), amount_minor: realizedMinor, created_at: now },
          statistics: whole,
        })
      : await repo.writeFill(trx, positionWrite, orderRow, trade);
    if (whole) balanceAfter = balanceMinor + realizedMinor;
    position = positionAfter(ids.positionId);
    order = { id: toOrderId(ids.orderId), ...orderRow, position_id: ids.positionId };
    tradeId = toTradeId(ids.tradeId);
  }
  if (balanceAfter === undefined) {
    balanceAfter =
      realizedMinor === 0
        ? balanceMinor
        : await postLedgerEntry(trx, {
            accountId: Number(account.id),
            kind: 'realized_pnl',
            amountMinor: realizedMinor,
            reference: `trade:${tradeId}`,
            now,
          });
    await recordFill(trx, { ...statistics(balanceAfter, position), tradeId });
  }
  return {
    kind: 'filled',
    order,
    position,
    before: oldState,
    tradeId,
    realizedMinor,
    price,
    marginRequired,
    units,
    balanceMinor: balanceAfter,
    executedAt: now,
  };
}
