import { type Alert, Dec } from '@pipdesk/contract';
import { type AlertRow, PRICE_SCALE } from './types.js';

/** A stored price as JSON: the nearest number at the pair's digits (docs/api.md#numbers). */
export function priceOf(e10: number, digits: number): number {
  return Dec.scaled(e10, PRICE_SCALE).toNumber(digits);
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An alert as the calls and the socket answer it; `digits` are its pair's. */
export function alertDto(row: AlertRow, digits: number): Alert {
  return {
    id: row.id,
    symbol: row.symbol,
    condition: row.condition,
    price: priceOf(row.price_e10, digits),
    note: row.note,
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: iso(row.expires_at),
    triggered_at: iso(row.triggered_at),
    triggered_price: row.triggered_price_e10 === null ? null : priceOf(row.triggered_price_e10, digits),
  };
}
