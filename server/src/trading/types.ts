import type { ExecutionDetailsDto, OrderDto, PositionDto } from '@pipdesk/contract';

/** Branded ids: an order id cannot be passed where a position id is expected. */
export type OrderId = number & { readonly __brand: 'OrderId' };
export type PositionId = number & { readonly __brand: 'PositionId' };
export type TradeId = number & { readonly __brand: 'TradeId' };
export type AccountId = number & { readonly __brand: 'AccountId' };
/** A trader (the auth module's user id) as trading's commands and queries take it. */
export type UserId = number & { readonly __brand: 'UserId' };

export const orderId = (n: number | bigint) => Number(n) as OrderId;
export const positionId = (n: number | bigint) => Number(n) as PositionId;
export const tradeId = (n: number | bigint) => Number(n) as TradeId;
export const accountId = (n: number | bigint) => Number(n) as AccountId;
export const userId = (n: number | bigint) => Number(n) as UserId;
/** The account a call named (docs/accounts.md), branded; undefined (the primary one) stays undefined. */
export const optionalAccountId = (n: number | undefined) => (n === undefined ? undefined : accountId(n));

/** Lots are held as integer hundredths ("centilots"): 0.01 lot = 1, 1 lot = 100. */
export const CENTILOTS_PER_LOT = 100;
/** Stored prices are integers of 10^-10 (exact for every quote; average entry prices are rounded there). */
export const PRICE_DECIMALS = 10;

/**
 * The exact state of one position, as stored: what the live book (trading/live/) keeps in memory and
 * what every execution event carries. JSON-safe (it crosses nodes on the bus).
 */
export interface PositionState {
  id: PositionId;
  accountId: AccountId;
  pairId: number;
  symbol: string;
  /** Signed lots × 100 (+ long, − short, 0 once closed). */
  quantityCentilots: number;
  /** Exact average entry price as decimal text (10 decimals at most). */
  averageEntryPrice: string;
  status: 'OPEN' | 'CLOSED';
  /** Cents booked to the balance by this position so far. */
  realizedPnlMinor: number;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  /**
   * The position's protection (docs/orders.md#protection-on-positions) as exact decimal text; null or
   * absent when none (absent in states built by hand, e.g. tests of the live book).
   */
  stopLoss?: string | null;
  takeProfit?: string | null;
  /** Trailing distance in whole pips. */
  trailingStopPips?: number | null;
  /** `protection_version`: bumped by every change a trader or a fill makes to the protection (absent in states built by hand). */
  protectionVersion?: number;
}

/**
 * Published on bus topic 'execution' as `{ userId, accountId, payload: ExecutionEvent }`
 * after every committed execution (client order, close, stop-out) and every stored rejection.
 * DTOs are exactly the REST answers' (figures at the execution's prices).
 */
export interface ExecutionEvent {
  order: OrderDto;
  /** Null for a rejected order. */
  position: PositionDto | null;
  execution_details: ExecutionDetailsDto | null;
  /** The executions of this order that realized P&L (USD, 2 decimals); empty when nothing was realized. */
  trades: Array<{ trade_id: number; position_id: number; pnl: number }>;
  /** The account right after the execution. */
  account: { balance_minor: number; leverage: number };
  /** The position's exact state after the execution; null for a rejected order. */
  position_state: PositionState | null;
}

/** One account's open book, as loaded by the live cache at start. */
export interface OpenBookAccount {
  accountId: AccountId;
  userId: number;
  balanceMinor: number;
  leverage: number;
  status: 'ACTIVE' | 'SUSPENDED' | 'CLOSED';
  positions: PositionState[];
}
