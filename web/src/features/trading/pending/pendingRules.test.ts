import { describe, expect, it } from 'vitest';
import { makeOrder } from '../testSupport';
import { checkOrderChange, orderDraftOf, pipDistance } from './pendingRules';

// docs/orders.md#validation and #modify-and-cancel, as the Modify form applies them.

const NOW = Date.parse('2026-04-01T12:00:00.000Z');
const quote = { bid: 1.19994, ask: 1.20006 };
const pendingBase = {
  status: 'PENDING',
  filled_quantity: 0,
  average_fill_price: null,
  position_id: null,
} as const;
const buyLimit = makeOrder({ ...pendingBase, id: 5, order_type: 'LIMIT', side: 'BUY', price: 1.19 });

describe('pipDistance', () => {
  it('a BUY from the ask, a SELL from the bid, one decimal; JPY pips are 0.01', () => {
    expect(pipDistance(buyLimit, quote, 0.0001)).toBe(100.6);
    expect(pipDistance({ ...buyLimit, side: 'SELL', price: 1.205 }, quote, 0.0001)).toBe(50.6);
    expect(pipDistance({ ...buyLimit, price: 150.5 }, { bid: 150.994, ask: 151.006 }, 0.01)).toBe(50.6);
  });

  it('a triggered STOP_LIMIT waits for its limit; without a quote there is no distance', () => {
    const triggered = {
      ...buyLimit,
      order_type: 'STOP_LIMIT',
      price: 1.21,
      limit_price: 1.2,
      triggered_at: '2026-04-01T12:00:00Z',
    } as const;
    expect(pipDistance(triggered, quote, 0.0001)).toBe(0.6);
    expect(pipDistance(buyLimit, undefined, 0.0001)).toBeNull();
  });
});

describe('checkOrderChange', () => {
  const ctx = { digits: 5, quote, now: NOW };
  const draft = (o = buyLimit) => orderDraftOf(o, 5);

  it('nothing changed: nothing to send', () => {
    expect(checkOrderChange(buyLimit, draft(), ctx)).toEqual({ change: null, problems: {} });
  });

  it('a new price must stay on its side of the market (a BUY LIMIT below the ask, a SELL STOP below the bid)', () => {
    expect(checkOrderChange(buyLimit, { ...draft(), price: '1.20010' }, ctx).problems).toEqual({
      price: 'a BUY LIMIT must be below the ask (1.20006)',
    });
    expect(checkOrderChange(buyLimit, { ...draft(), price: '1.195' }, ctx).change).toEqual({ price: 1.195 });
    const sellStop = makeOrder({ ...pendingBase, order_type: 'STOP', side: 'SELL', price: 1.19 });
    expect(checkOrderChange(sellStop, { ...draft(sellStop), price: '1.2' }, ctx).problems).toEqual({
      price: 'a SELL STOP must be below the bid (1.19994)',
    });
  });

  it('a price with too many digits, or none', () => {
    expect(checkOrderChange(buyLimit, { ...draft(), price: '1.190001' }, ctx).problems).toEqual({
      price: 'must have at most 5 decimals',
    });
    expect(checkOrderChange(buyLimit, { ...draft(), price: '' }, ctx).problems).toEqual({ price: 'is required' });
  });

  it('protection of a BUY is a long position: stop loss below the entry, take profit above', () => {
    expect(checkOrderChange(buyLimit, { ...draft(), stopLoss: '1.191', takeProfit: '1.18' }, ctx).problems).toEqual({
      stopLoss: 'must be below the entry price (1.19000) for a long position',
      takeProfit: 'must be above the entry price (1.19000) for a long position',
    });
    expect(checkOrderChange(buyLimit, { ...draft(), stopLoss: '1.18', takeProfit: '1.2' }, ctx).change).toEqual({
      stop_loss: 1.18,
      take_profit: 1.2,
    });
  });

  it("a STOP_LIMIT's protection is judged against its limit; once triggered only the limit moves", () => {
    const stopLimit = makeOrder({ ...pendingBase, order_type: 'STOP_LIMIT', side: 'SELL', price: 1.19, limit_price: 1.188 });
    expect(checkOrderChange(stopLimit, { ...draft(stopLimit), stopLoss: '1.1885' }, ctx).change).toEqual({ stop_loss: 1.1885 });
    expect(checkOrderChange(stopLimit, { ...draft(stopLimit), stopLoss: '1.1875' }, ctx).problems).toEqual({
      stopLoss: 'must be above the entry price (1.18800) for a short position',
    });
    expect(checkOrderChange(stopLimit, { ...draft(stopLimit), limitPrice: '' }, ctx).problems).toEqual({
      limitPrice: 'is required for a STOP_LIMIT order',
    });
    const triggered = { ...stopLimit, triggered_at: '2026-04-01T11:59:00.000Z' };
    expect(checkOrderChange(triggered, { ...draft(triggered), price: '1.5', limitPrice: '1.187' }, ctx).change).toEqual({
      limit_price: 1.187,
    });
  });

  it('GTD needs an expiry in the future and at most 90 days ahead; GTC drops it', () => {
    const local = (ms: number) => {
      const d = new Date(ms);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
    };
    const gtd = (expiresAt: string) => checkOrderChange(buyLimit, { ...draft(), timeInForce: 'GTD', expiresAt }, ctx);
    expect(gtd('').problems).toEqual({ expiresAt: 'is required for a GTD order' });
    expect(gtd(local(NOW - 60_000)).problems).toEqual({ expiresAt: 'must be in the future' });
    expect(gtd(local(NOW + 91 * 86_400_000)).problems).toEqual({ expiresAt: 'must be at most 90 days ahead' });
    const inADay = NOW + 86_400_000;
    expect(gtd(local(inADay)).change).toEqual({ time_in_force: 'GTD', expires_at: new Date(inADay).toISOString() });
    const gtdOrder = { ...buyLimit, time_in_force: 'GTD', expires_at: new Date(inADay).toISOString() } as const;
    expect(checkOrderChange(gtdOrder, { ...draft(gtdOrder), timeInForce: 'GTC' }, ctx).change).toEqual({ time_in_force: 'GTC' });
  });

  it('a trailing distance of 5 to 1,000 whole pips; empty clears it', () => {
    expect(checkOrderChange(buyLimit, { ...draft(), trailingStopPips: '4' }, ctx).problems).toEqual({
      trailingStopPips: 'must be at least 5',
    });
    const trailing = { ...buyLimit, trailing_stop_pips: 20 };
    expect(checkOrderChange(trailing, { ...draft(trailing), trailingStopPips: '' }, ctx).change).toEqual({
      trailing_stop_pips: null,
    });
  });
});
