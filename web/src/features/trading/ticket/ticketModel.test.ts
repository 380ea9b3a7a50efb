import { describe, expect, it } from 'vitest';
import { EURUSD, USDJPY } from '../testSupport';
import { expiryProblem, parsePips, parsePrice } from './ticketChecks';
import { EMPTY_TICKET, evaluateTicket, isPlainMarket, prefilledPrices } from './ticketModel';

// The ticket's pure rules (docs/screens.md#order-ticket, docs/orders.md#validation).

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 3, 1, 12);

describe('pre-filled prices', () => {
  const quote = { bid: 1.1, ask: 1.1002 };
  it('are 10 pips from the side each order waits on, at the pair’s digits', () => {
    expect(prefilledPrices('LIMIT', 'BUY', quote, EURUSD).priceText).toBe('1.09920');
    expect(prefilledPrices('LIMIT', 'SELL', quote, EURUSD).priceText).toBe('1.10100');
    expect(prefilledPrices('STOP', 'BUY', quote, EURUSD).priceText).toBe('1.10120');
    expect(prefilledPrices('STOP', 'SELL', quote, EURUSD).priceText).toBe('1.09900');
    expect(prefilledPrices('STOP_LIMIT', 'BUY', { bid: 150, ask: 150.02 }, USDJPY)).toEqual({
      priceText: '150.120',
      limitPriceText: '150.120',
    });
  });

  it('are empty for a market order or without a price', () => {
    expect(prefilledPrices('MARKET', 'BUY', quote, EURUSD).priceText).toBe('');
    expect(prefilledPrices('LIMIT', 'BUY', undefined, EURUSD).priceText).toBe('');
  });
});

describe('typed values', () => {
  it('a price is positive with at most the pair’s digits', () => {
    expect(parsePrice('1.10000', 'Limit Price', 5).value?.toString()).toBe('1.1');
    expect(parsePrice('', 'Limit Price', 5).error).toBe('Enter a price');
    expect(parsePrice('0', 'Limit Price', 5).error).toBe('Limit Price must be greater than 0');
    expect(parsePrice('1.2a', 'Limit Price', 5).error).toBe('Limit Price must be a number');
    expect(parsePrice('150.1234', 'Stop Price', 3).error).toBe('Stop Price must have at most 3 decimals');
  });

  it('pips are positive, to a tenth', () => {
    expect(parsePips('12.5', 'Stop Loss').value?.toString()).toBe('12.5');
    expect(parsePips('12.55', 'Stop Loss').error).toBe('Stop Loss must be in tenths of a pip');
    expect(parsePips('-3', 'Stop Loss').error).toBe('Stop Loss must be a number of pips');
  });
});

describe('expiry', () => {
  const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}Z`;
  it('is after now and at most 90 days ahead', () => {
    expect(expiryProblem('', NOW)).toBe('Choose when the order expires');
    expect(expiryProblem(at(NOW - 60_000), NOW)).toBe('Expiry must be in the future');
    expect(expiryProblem(at(NOW + 90 * DAY), NOW)).toBeNull();
    expect(expiryProblem(at(NOW + 90 * DAY + 60_000), NOW)).toBe('Expiry must be at most 90 days ahead');
  });
});

describe('evaluation', () => {
  const ctx = {
    pair: EURUSD,
    side: 'BUY' as const,
    lots: 0.1,
    pairs: [EURUSD],
    quote: () => ({ bid: 1.1, ask: 1.1002 }),
    account: null,
    positions: [],
    now: NOW,
  };

  it('a plain market order adds nothing to the spec’s body', () => {
    expect(isPlainMarket(EMPTY_TICKET)).toBe(true);
    expect(evaluateTicket(EMPTY_TICKET, ctx).extras).toEqual({ order_type: 'MARKET' });
  });

  it('a STOP_LIMIT’s protection is judged from its limit, not its trigger', () => {
    const state = {
      ...EMPTY_TICKET,
      orderType: 'STOP_LIMIT' as const,
      priceText: '1.10500',
      limitPriceText: '1.10300',
      stopLossText: '1.10400',
    };
    expect(evaluateTicket(state, ctx).errors.stopLoss).toBe(
      'Stop Loss must be below the entry price (1.10300) for a long position',
    );
    const ok = evaluateTicket({ ...state, stopLossText: '1.10200' }, ctx);
    expect(ok.errors).toEqual({});
    expect(ok.extras).toEqual({
      order_type: 'STOP_LIMIT',
      price: 1.105,
      limit_price: 1.103,
      time_in_force: 'GTC',
      stop_loss: 1.102,
    });
  });

  it('pips need a price to be measured from', () => {
    const state = { ...EMPTY_TICKET, stopLossText: '20', stopLossUnit: 'pips' as const };
    expect(evaluateTicket(state, { ...ctx, quote: () => undefined }).errors.stopLoss).toBe(
      'Waiting for a price to measure the pips from',
    );
    expect(evaluateTicket(state, { ...ctx, quote: () => undefined }).extras).toBeNull();
  });
});
