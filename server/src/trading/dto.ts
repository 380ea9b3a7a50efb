import { Dec, type OrderDto, type PositionDto, type TradeDto, type TradingAccountDto } from '@pipdesk/contract';
import type { Pair } from '../market/index.js';
import type { AccountValue, PositionValue } from './math.js';
import type { OrderRow, PositionRow, TradeRow } from './repo.js';
import { accountId, type PositionState, PRICE_DECIMALS, positionId } from './types.js';

/** The JSON edge: exact stored values become numbers rounded for display (DESIGN §1). */

export const iso = (ms: number): string => new Date(ms).toISOString();

export const priceFromE10 = (e10: number | bigint): Dec => Dec.scaled(e10, PRICE_DECIMALS);
export const priceToE10 = (price: Dec): number => price.toScaledNumber(PRICE_DECIMALS);
export const money = (amount: Dec): number => amount.toNumber(2);
export const moneyFromMinor = (minor: number): number => Dec.scaled(minor, 2).toNumber(2);
export const lotsFromCentilotsNumber = (centilots: number): number => Dec.scaled(centilots, 2).toNumber(2);

const DEFAULT_DIGITS = 5;

export function positionStateFromRow(row: PositionRow): PositionState {
  return {
    id: positionId(row.id),
    accountId: accountId(row.account_id),
    pairId: Number(row.pair_id),
    symbol: row.symbol,
    quantityCentilots: Number(row.quantity_centilots),
    averageEntryPrice: priceFromE10(row.average_entry_price_e10).toString(),
    status: row.status,
    realizedPnlMinor: Number(row.realized_pnl_minor),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    closedAt: row.closed_at === null ? null : Number(row.closed_at),
  };
}

export function positionDto(state: PositionState, value: PositionValue | undefined, pair: Pair | undefined): PositionDto {
  const digits = pair?.digits ?? DEFAULT_DIGITS;
  const open = state.status === 'OPEN' && state.quantityCentilots !== 0;
  return {
    id: state.id,
    fx_pair: state.pairId,
    fx_pair_symbol: state.symbol,
    side: state.quantityCentilots > 0 ? 'LONG' : state.quantityCentilots < 0 ? 'SHORT' : 'FLAT',
    quantity: lotsFromCentilotsNumber(state.quantityCentilots),
    status: state.status,
    average_entry_price: Dec.from(state.averageEntryPrice).toNumber(digits),
    current_price: open && value?.currentPrice ? value.currentPrice.toNumber(digits) : null,
    unrealized_pnl: open && value ? money(value.unrealizedPnl) : 0,
    realized_pnl: moneyFromMinor(state.realizedPnlMinor),
    margin_used: open && value ? money(value.margin) : 0,
    created_at: iso(state.createdAt),
    updated_at: iso(state.updatedAt),
    closed_at: state.closedAt === null ? null : iso(state.closedAt),
  };
}

export function orderDto(row: OrderRow, pair: Pair | undefined): OrderDto {
  const digits = pair?.digits ?? DEFAULT_DIGITS;
  const price = (e10: number | null) => (e10 === null ? null : priceFromE10(e10).toNumber(digits));
  return {
    id: Number(row.id),
    fx_pair: Number(row.pair_id),
    fx_pair_symbol: row.symbol,
    order_type: row.order_type,
    side: row.side,
    quantity: lotsFromCentilotsNumber(Number(row.quantity_centilots)),
    filled_quantity: lotsFromCentilotsNumber(Number(row.filled_quantity_centilots)),
    price: price(row.price_e10),
    average_fill_price: price(row.average_fill_price_e10),
    status: row.status,
    rejection_reason: row.rejection_reason,
    reason: row.reason,
    position_id: row.position_id === null ? null : Number(row.position_id),
    current_price: price(row.client_price_e10),
    submitted_at: iso(Number(row.submitted_at)),
    created_at: iso(Number(row.created_at)),
  };
}

export function tradeDto(row: TradeRow, pair: Pair | undefined): TradeDto {
  return {
    id: Number(row.id),
    order: Number(row.order_id),
    position: Number(row.position_id),
    fx_pair_symbol: row.symbol,
    side: row.side,
    quantity: lotsFromCentilotsNumber(Number(row.quantity_centilots)),
    price: priceFromE10(row.price_e10).toNumber(pair?.digits ?? DEFAULT_DIGITS),
    realized_pnl: moneyFromMinor(Number(row.realized_pnl_minor)),
    executed_at: iso(Number(row.executed_at)),
  };
}

export function tradingAccountDto(
  account: { id: number; leverage: number; currency: string | null },
  value: AccountValue,
): TradingAccountDto {
  return {
    id: Number(account.id),
    balance: money(value.balance),
    equity: money(value.equity),
    margin_used: money(value.marginUsed),
    free_margin: money(value.freeMargin),
    margin_level: value.marginLevel === null ? null : value.marginLevel.toNumber(2),
    leverage: Number(account.leverage),
    currency: account.currency ?? 'USD',
  };
}
