import type { OrderDto, PositionDto } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import { makeOrder, makePosition } from '../../trading/testSupport';
import { chartLines, lineChange, orderLineLabel, parseLinePrice, snapPrice, withPositionLines } from './lines';

const summary = (positions: PositionDto[], orders: OrderDto[], symbol = 'EURUSD') =>
  chartLines(symbol, positions, orders).map((l) => ({ id: l.id, label: l.label, price: l.price, movable: l.target !== null }));

const pending = (overrides: Partial<OrderDto>) =>
  makeOrder({ status: 'PENDING', filled_quantity: 0, average_fill_price: null, position_id: null, ...overrides });

describe('which lines the pair chart shows (docs/screens.md#chart-lines)', () => {
  it('the open position: Entry (fixed), SL and TP when set, at their prices', () => {
    const position = makePosition({ id: 11, average_entry_price: 1.08734, stop_loss: 1.085, take_profit: 1.092 });
    expect(summary([position], [])).toEqual([
      { id: 'position:11:entry', label: 'Entry', price: 1.08734, movable: false },
      { id: 'position:11:stop_loss', label: 'SL', price: 1.085, movable: true },
      { id: 'position:11:take_profit', label: 'TP', price: 1.092, movable: true },
    ]);
    expect(summary([makePosition({ id: 12, stop_loss: null, take_profit: 1.1 })], []).map((l) => l.label)).toEqual([
      'Entry',
      'TP',
    ]);
  });

  it('leaves out closed or flat positions and those of other pairs', () => {
    expect(summary([makePosition({ status: 'CLOSED', quantity: 0, stop_loss: 1.08 })], [])).toEqual([]);
    expect(summary([makePosition({ quantity: 0 })], [])).toEqual([]);
    expect(summary([makePosition({ fx_pair_symbol: 'USDJPY', stop_loss: 149 })], [])).toEqual([]);
  });

  it('each pending order at its price, labelled side, type and lots; a STOP_LIMIT also at its limit', () => {
    const orders = [
      pending({ id: 21, order_type: 'LIMIT', side: 'BUY', quantity: 0.1, price: 1.08 }),
      pending({ id: 22, order_type: 'STOP', side: 'SELL', quantity: 1.5, price: 1.075 }),
      pending({ id: 23, order_type: 'STOP_LIMIT', side: 'BUY', quantity: 0.02, price: 1.095, limit_price: 1.0955 }),
      pending({ id: 24, order_type: 'LIMIT', fx_pair_symbol: 'USDJPY', price: 149 }),
      makeOrder({ id: 25, order_type: 'LIMIT', status: 'CANCELLED', price: 1.07 }),
    ];
    expect(summary([], orders)).toEqual([
      { id: 'order:21:price', label: 'BUY LIMIT 0.10', price: 1.08, movable: true },
      { id: 'order:22:price', label: 'SELL STOP 1.50', price: 1.075, movable: true },
      { id: 'order:23:price', label: 'BUY STOP LIMIT 0.02', price: 1.095, movable: true },
      { id: 'order:23:limit_price', label: 'BUY STOP LIMIT 0.02 limit', price: 1.0955, movable: true },
    ]);
  });

  it('a STOP_LIMIT whose stop triggered keeps its trigger line fixed; only its limit moves', () => {
    const order = pending({
      id: 23,
      order_type: 'STOP_LIMIT',
      price: 1.095,
      limit_price: 1.0955,
      triggered_at: '2026-04-01T12:01:00Z',
    });
    expect(summary([], [order]).map((l) => [l.id, l.movable])).toEqual([
      ['order:23:price', false],
      ['order:23:limit_price', true],
    ]);
  });

  it('a line carries the version of its position or order, so a change on the server shows', () => {
    const [entry] = chartLines('EURUSD', [makePosition({ updated_at: '2026-04-01T12:05:00.000Z' })], []);
    expect(entry?.version).toBe('2026-04-01T12:05:00.000Z');
    expect(orderLineLabel({ side: 'SELL', order_type: 'STOP_LIMIT', quantity: 10 })).toBe('SELL STOP LIMIT 10.00');
  });
});

describe('what a moved line asks the server', () => {
  it('a position line PATCHes only its protection field; an order line only its price field', () => {
    expect(lineChange({ kind: 'position', id: 11, field: 'stop_loss' }, 1.0842)).toEqual({
      kind: 'position',
      path: '/trading/positions/11/',
      body: { stop_loss: 1.0842 },
    });
    expect(lineChange({ kind: 'position', id: 11, field: 'take_profit' }, 1.1)).toEqual({
      kind: 'position',
      path: '/trading/positions/11/',
      body: { take_profit: 1.1 },
    });
    expect(lineChange({ kind: 'order', id: 21, field: 'price' }, 1.079)).toEqual({
      kind: 'order',
      path: '/trading/orders/21/',
      body: { price: 1.079 },
    });
    expect(lineChange({ kind: 'order', id: 23, field: 'limit_price' }, 1.096)).toEqual({
      kind: 'order',
      path: '/trading/orders/23/',
      body: { limit_price: 1.096 },
    });
  });

  it('the pointer price snaps to the pair digits; off the scale or not positive is no price', () => {
    expect(snapPrice(1.0842349, 5)).toBe(1.08423);
    expect(snapPrice(1.084235, 5)).toBe(1.08424);
    expect(snapPrice(151.23456, 3)).toBe(151.235);
    expect(snapPrice(null, 5)).toBeNull();
    expect(snapPrice(Number.NaN, 5)).toBeNull();
    expect(snapPrice(-0.00001, 5)).toBeNull();
    expect(snapPrice(0.000004, 5)).toBeNull();
  });

  it('a typed price: positive, at most the pair digits', () => {
    expect(parseLinePrice(' 1.08420 ', 5)).toEqual({ price: 1.0842 });
    expect(parseLinePrice('151.5', 3)).toEqual({ price: 151.5 });
    expect(parseLinePrice('151.5001', 3)).toEqual({ error: 'Use at most 3 decimals' });
    expect(parseLinePrice('', 5)).toEqual({ error: 'Enter a price' });
    expect(parseLinePrice('1,08', 5)).toEqual({ error: 'Enter a price such as 1.08500' });
    expect(parseLinePrice('-1', 5)).toEqual({ error: 'Enter a price such as 1.08500' });
    expect(parseLinePrice('0.00000', 5)).toEqual({ error: 'Enter a price above 0' });
  });
});

describe('the price scale', () => {
  const candles = { priceRange: { minValue: 1.099, maxValue: 1.101 } };
  it('widens to the position lines, never to pending orders', () => {
    const lines = chartLines(
      'EURUSD',
      [makePosition({ average_entry_price: 1.1, stop_loss: 1.095, take_profit: 1.104 })],
      [pending({ order_type: 'LIMIT', price: 1.05 })],
    );
    expect(withPositionLines(candles, lines)).toEqual({ priceRange: { minValue: 1.095, maxValue: 1.104 } });
    expect(
      withPositionLines(
        candles,
        lines.filter((l) => l.tone === 'order'),
      ),
    ).toBe(candles);
    expect(withPositionLines(null, lines)).toBeNull();
  });
});
