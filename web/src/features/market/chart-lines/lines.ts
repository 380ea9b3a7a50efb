import {
  type ModifyOrderRequest,
  type ModifyPositionRequest,
  type OrderDto,
  type OrderType,
  type PositionDto,
  roundPrice,
} from '@pipdesk/contract';
import type { AutoscaleInfo } from 'lightweight-charts';

// The horizontal lines of the pair chart (docs/screens.md#chart-lines): which lines, their labels
// and prices, and the change a moved line asks the server for. Pure: no chart, no I/O.

/** What a line can change on the server: a position's protection, or a pending order's price. */
export type LineTarget =
  | { kind: 'position'; id: number; field: 'stop_loss' | 'take_profit' }
  | { kind: 'order'; id: number; field: 'price' | 'limit_price' };

/** The colour family a line is drawn in. */
export type LineTone = 'entry' | 'stop_loss' | 'take_profit' | 'order';

export interface ChartLine {
  /** Stable across updates of the same position or order: "position:11:stop_loss", "order:21:price". */
  id: string;
  /** The text on the chart: "Entry", "SL", "TP", "BUY LIMIT 0.10". */
  label: string;
  /** What the confirmation calls it: "stop loss", "take profit", "BUY LIMIT 0.10 order price". */
  name: string;
  price: number;
  tone: LineTone;
  /** Null for a line that cannot be moved (the entry; a triggered STOP_LIMIT's trigger). */
  target: LineTarget | null;
  /** The `updated_at` of the position or order it comes from: a change on the server shows as a new version. */
  version: string;
}

/** The order type as a trader reads it on a line: "LIMIT", "STOP", "STOP LIMIT". */
const TYPE_WORDS: Readonly<Record<OrderType, string>> = {
  MARKET: 'MARKET',
  LIMIT: 'LIMIT',
  STOP: 'STOP',
  STOP_LIMIT: 'STOP LIMIT',
};

/** "BUY LIMIT 0.10": side, type and lots (2 decimals), as broker terminals label an order's line. */
export function orderLineLabel(order: Pick<OrderDto, 'side' | 'order_type' | 'quantity'>): string {
  return `${order.side} ${TYPE_WORDS[order.order_type]} ${Math.abs(order.quantity).toFixed(2)}`;
}

/**
 * The lines of the chart of `symbol`: for its open position the entry (fixed), the stop loss and
 * the take profit (when set); for each pending order its price and, for a STOP_LIMIT, its limit.
 * A STOP_LIMIT whose stop has triggered keeps its trigger line but can no longer move it
 * (docs/orders.md#modify-and-cancel: only its limit).
 */
export function chartLines(symbol: string, positions: readonly PositionDto[], pendingOrders: readonly OrderDto[]): ChartLine[] {
  const lines: ChartLine[] = [];
  for (const p of positions) {
    if (p.fx_pair_symbol !== symbol || p.status !== 'OPEN' || p.quantity === 0) continue;
    const version = p.updated_at;
    lines.push({
      id: `position:${p.id}:entry`,
      label: 'Entry',
      name: 'entry',
      price: p.average_entry_price,
      tone: 'entry',
      target: null,
      version,
    });
    if (p.stop_loss !== null) {
      lines.push({
        id: `position:${p.id}:stop_loss`,
        label: 'SL',
        name: 'stop loss',
        price: p.stop_loss,
        tone: 'stop_loss',
        target: { kind: 'position', id: p.id, field: 'stop_loss' },
        version,
      });
    }
    if (p.take_profit !== null) {
      lines.push({
        id: `position:${p.id}:take_profit`,
        label: 'TP',
        name: 'take profit',
        price: p.take_profit,
        tone: 'take_profit',
        target: { kind: 'position', id: p.id, field: 'take_profit' },
        version,
      });
    }
  }
  for (const o of pendingOrders) {
    if (o.fx_pair_symbol !== symbol || o.status !== 'PENDING' || o.price === null) continue;
    const label = orderLineLabel(o);
    const triggered = o.order_type === 'STOP_LIMIT' && o.triggered_at !== null;
    lines.push({
      id: `order:${o.id}:price`,
      label,
      name: o.order_type === 'STOP_LIMIT' ? `${label} order stop price` : `${label} order price`,
      price: o.price,
      tone: 'order',
      target: triggered ? null : { kind: 'order', id: o.id, field: 'price' },
      version: o.updated_at,
    });
    if (o.order_type === 'STOP_LIMIT' && o.limit_price !== null) {
      lines.push({
        id: `order:${o.id}:limit_price`,
        label: `${label} limit`,
        name: `${label} order limit price`,
        price: o.limit_price,
        tone: 'order',
        target: { kind: 'order', id: o.id, field: 'limit_price' },
        version: o.updated_at,
      });
    }
  }
  return lines;
}

/** The call a moved line makes: PATCH trading/positions/{id}/ or trading/orders/{id}/ with only the moved field. */
export type LineChange =
  | { path: string; kind: 'position'; body: ModifyPositionRequest }
  | { path: string; kind: 'order'; body: ModifyOrderRequest };

export function lineChange(target: LineTarget, price: number): LineChange {
  if (target.kind === 'position') {
    return { kind: 'position', path: `/trading/positions/${target.id}/`, body: { [target.field]: price } };
  }
  return { kind: 'order', path: `/trading/orders/${target.id}/`, body: { [target.field]: price } };
}

/** The price under the pointer, at the pair's digits; null off the scale or at or below zero. */
export function snapPrice(raw: number | null | undefined, digits: number): number | null {
  if (raw === null || raw === undefined || !Number.isFinite(raw)) return null;
  const price = roundPrice(raw, digits);
  return price > 0 ? price : null;
}

/**
 * The new price the trader typed: a positive decimal with at most the pair's digits (the
 * server's own rule, docs/orders.md#validation); otherwise the message to show.
 */
export function parseLinePrice(text: string, digits: number): { price: number } | { error: string } {
  const t = text.trim();
  if (t === '') return { error: 'Enter a price' };
  if (!/^\d+(\.\d+)?$/.test(t)) return { error: 'Enter a price such as 1.08500' };
  const decimals = t.split('.')[1]?.length ?? 0;
  if (decimals > digits) return { error: `Use at most ${digits} decimals` };
  const price = Number(t);
  if (!(price > 0)) return { error: 'Enter a price above 0' };
  return { price };
}

/**
 * The candles' price range widened to the open position's lines (entry, stop loss, take profit),
 * so its risk is always in view and its lines can be grabbed; pending orders may sit far away
 * and do not squash the candles (the list under the chart names them).
 */
export function withPositionLines(range: AutoscaleInfo | null, lines: readonly ChartLine[]): AutoscaleInfo | null {
  const prices = lines.filter((l) => l.tone !== 'order').map((l) => l.price);
  if (!range?.priceRange || prices.length === 0) return range;
  return {
    ...range,
    priceRange: {
      minValue: Math.min(range.priceRange.minValue, ...prices),
      maxValue: Math.max(range.priceRange.maxValue, ...prices),
    },
  };
}
