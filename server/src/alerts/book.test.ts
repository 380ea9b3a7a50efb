import type { AlertCondition, ArmedAlertState } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import { AlertBook } from './book.js';

// The in-memory book of docs/charting.md#alerts: which alerts a tick fires, at which price, and
// how changes, deletes and writes that lost a race keep it in step.

const PAIRS = [
  { symbol: 'EURUSD', digits: 5 },
  { symbol: 'USDJPY', digits: 3 },
];
const e10 = (price: number) => Math.round(price * 1e5) * 1e5;
let nextId = 1;
const alert = (condition: AlertCondition, price: number, more: Partial<ArmedAlertState> = {}): ArmedAlertState => ({
  id: nextId++,
  userId: 1,
  symbol: 'EURUSD',
  condition,
  priceE10: e10(price),
  expiresAt: null,
  version: 1,
  ...more,
});
const tick = (bid: number, ask: number, symbol = 'EURUSD') => ({ symbol, bid, ask });
const firedIds = (book: AlertBook, bid: number, ask: number, symbol?: string) =>
  book.onTick(tick(bid, ask, symbol)).map((f) => f.state.id);

describe('AlertBook', () => {
  it('fires each condition on its own side, equal included, and not one point short', () => {
    const book = new AlertBook(PAIRS);
    const bidAbove = alert('bid_above', 1.1);
    const bidBelow = alert('bid_below', 1.09);
    const askAbove = alert('ask_above', 1.1002);
    const askBelow = alert('ask_below', 1.0902);
    book.load([bidAbove, bidBelow, askAbove, askBelow]);

    expect(firedIds(book, 1.09999, 1.10019)).toEqual([]); // one point short of both "above"
    expect(firedIds(book, 1.09001, 1.09021)).toEqual([]); // one point short of both "below"
    expect(firedIds(book, 1.1, 1.1002)).toEqual([bidAbove.id, askAbove.id]); // equal fires
    expect(firedIds(book, 1.09, 1.0902)).toEqual([bidBelow.id, askBelow.id]);
  });

  it('fires at the tick’s own price when a gap jumps over the alert, and once', () => {
    const book = new AlertBook(PAIRS);
    const a = alert('bid_above', 1.1);
    book.upsert(a);
    expect(book.onTick(tick(1.12345, 1.12365))).toEqual([{ state: a, priceE10: 11_234_500_000 }]);
    // Taken out: a second crossing tick while the write is under way fires nothing.
    expect(firedIds(book, 1.13, 1.1302)).toEqual([]);
    book.settle(a.id, true);
    expect(firedIds(book, 1.14, 1.1402)).toEqual([]);
    expect(book.size).toBe(0);
  });

  it('reads JPY prices at three digits, exactly', () => {
    const book = new AlertBook(PAIRS);
    const a = alert('ask_below', 149.999, { symbol: 'USDJPY', priceE10: 1_499_990_000_000 });
    book.upsert(a);
    expect(firedIds(book, 149.98, 150.0, 'USDJPY')).toEqual([]);
    expect(book.onTick(tick(149.979, 149.999, 'USDJPY'))).toEqual([{ state: a, priceE10: 1_499_990_000_000 }]);
  });

  it('fires the many an alert-heavy tick crosses, and only those', () => {
    const book = new AlertBook(PAIRS);
    const near = Array.from({ length: 50 }, (_, i) => alert('bid_above', 1.1 + i * 0.00001));
    const far = Array.from({ length: 50 }, (_, i) => alert('bid_above', 1.2 + i * 0.00001));
    book.load([...far, ...near]);
    const fired = firedIds(book, 1.15, 1.1502);
    expect(fired.sort((x, y) => x - y)).toEqual(near.map((a) => a.id));
    expect(book.size).toBe(100); // in flight until settled
  });

  it('follows changes: a newer version moves it, an older one is ignored, a deleted one never comes back', () => {
    const book = new AlertBook(PAIRS);
    const a = alert('bid_above', 1.1);
    book.upsert(a);
    book.upsert({ ...a, priceE10: e10(1.2), version: 3 });
    book.upsert({ ...a, priceE10: e10(1.05), version: 2 }); // late and older
    expect(firedIds(book, 1.15, 1.1502)).toEqual([]);
    book.upsert({ ...a, condition: 'bid_below', priceE10: e10(1.16), version: 4 });
    expect(firedIds(book, 1.15, 1.1502)).toEqual([a.id]);

    const b = alert('ask_above', 1.1);
    book.upsert(b);
    book.remove(b.id);
    book.upsert({ ...b, version: 2 });
    expect(firedIds(book, 1.2, 1.2002)).toEqual([]);
  });

  it('arms a fire that lost its race again, with the newest state', () => {
    const book = new AlertBook(PAIRS);
    const a = alert('bid_above', 1.1);
    book.upsert(a);
    expect(firedIds(book, 1.1, 1.1002)).toEqual([a.id]);
    // A PATCH moved it while the write was under way; the guarded write did not record it.
    book.upsert({ ...a, priceE10: e10(1.3), version: 2 });
    book.settle(a.id, false);
    expect(firedIds(book, 1.2, 1.2002)).toEqual([]);
    expect(firedIds(book, 1.3, 1.3002)).toEqual([a.id]);
  });

  it('expires by time, earliest first, and an expired alert no longer fires', () => {
    const book = new AlertBook(PAIRS);
    const soon = alert('bid_above', 1.1, { expiresAt: 1_000 });
    const later = alert('bid_above', 1.1, { expiresAt: 2_000 });
    const never = alert('bid_above', 1.1);
    book.load([never, later, soon]);
    expect(book.nextExpiry()).toBe(1_000);
    expect(book.expireDue(999)).toEqual([]);
    expect(book.expireDue(1_000)).toEqual([soon]);
    expect(book.nextExpiry()).toBe(2_000);
    expect(firedIds(book, 1.1, 1.1002)).toEqual([later.id, never.id]);
    expect(book.nextExpiry()).toBeUndefined(); // a fired alert leaves the expiries too
  });
});
