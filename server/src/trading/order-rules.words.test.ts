import { Dec, type ErrorEnvelope } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { checkPendingPrice, checkProtection, NO_PROTECTION_VALUES } from './order-rules.js';

// The server's words for a bad order (docs/orders.md#validation) through the real routes. The web
// says the same words after the field's label: web/src/features/trading/ticket/serverWords.test.ts
// sends the same orders through the ticket, the Modify form and the protection editor and
// expects these texts. Prices: EURUSD 1.08512 / 1.08532.

let t: TestApp;
const prices = new ScriptedPriceSource();
const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));

beforeAll(async () => {
  t = await startTestApp({ priceSource: prices, clock });
  prices.push({ symbol: 'EURUSD', bid: 1.08512, ask: 1.08532, timestamp: clock.now() });
});
afterAll(async () => {
  await t.close();
});

type Who = Awaited<ReturnType<typeof insertSignedInTrader>>;

async function refusal(who: Who, method: 'POST' | 'PATCH', url: string, payload: Record<string, unknown>) {
  const res = await t.app.inject({ method, url, headers: who.headers, payload });
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json() as ErrorEnvelope & { details: Array<{ field: string; message: string }> };
  expect(body.code).toBe('VALIDATION_ERROR');
  return { error: body.error, details: body.details };
}

const LIMIT = { symbol: 'EURUSD', side: 'BUY', order_type: 'LIMIT', quantity: 0.1 } as const;

describe('the words of a refused order, as the web shows them', () => {
  it('names the field, then the words the web puts after its label', async () => {
    const who = await insertSignedInTrader(t);
    const cases: Array<[url: string, body: Record<string, unknown>, field: string, words: string]> = [
      [
        '/api/trading/place-market-order/',
        { symbol: 'EURUSD', side: 'BUY', quantity: 0.1, stop_loss: 1.0852 },
        'stop_loss',
        'must be below the bid (1.08512) for a long position',
      ],
      [
        '/api/trading/place-market-order/',
        { symbol: 'EURUSD', side: 'SELL', quantity: 0.1, take_profit: 1.0854 },
        'take_profit',
        'must be below the ask (1.08532) for a short position',
      ],
      ['/api/trading/place-pending-order/', { ...LIMIT, price: 1.050001 }, 'price', 'must have at most 5 decimals'],
      ['/api/trading/place-pending-order/', { ...LIMIT, price: 1.0854 }, 'price', 'a BUY LIMIT must be below the ask (1.08532)'],
      [
        '/api/trading/place-pending-order/',
        { ...LIMIT, side: 'SELL', order_type: 'STOP', price: 1.0852 },
        'price',
        'a SELL STOP must be below the bid (1.08512)',
      ],
      [
        '/api/trading/place-pending-order/',
        { ...LIMIT, price: 1.05001, stop_loss: 1.06 },
        'stop_loss',
        'must be below the entry price (1.05001) for a long position',
      ],
      [
        '/api/trading/place-pending-order/',
        { ...LIMIT, price: 1.05, time_in_force: 'GTD', expires_at: '2026-01-05T11:00:00Z' },
        'expires_at',
        'must be in the future',
      ],
    ];
    for (const [url, body, field, words] of cases) {
      const { error, details } = await refusal(who, 'POST', url, body);
      expect(error, JSON.stringify(body)).toBe(`${field}: ${words}`);
      expect(details).toEqual([{ field, message: words }]);
    }
  });

  it("a position's protection (PATCH) in the protection editor's words", async () => {
    const who = await insertSignedInTrader(t);
    const opened = await t.app.inject({
      method: 'POST',
      url: '/api/trading/place-market-order/',
      headers: who.headers,
      payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 },
    });
    expect(opened.statusCode, opened.body).toBe(201);
    const position = opened.json().data.position as { id: number };
    const { error } = await refusal(who, 'PATCH', `/api/trading/positions/${position.id}/`, { stop_loss: 1.0852 });
    expect(error).toBe('stop_loss: must be below the bid (1.08512) for a long position');
  });
});

describe('the reference price in the words (docs/screens.md#formatting)', () => {
  const long = { ...NO_PROTECTION_VALUES, stopLoss: Dec.from('1.2') };

  it("reads with the pair's digits, as the web writes it", () => {
    expect(() => checkProtection(true, Dec.from('1.1'), long, 'the entry price', 5)).toThrow(
      'stop_loss: must be below the entry price (1.10000) for a long position',
    );
    const quote = { bid: Dec.from('1.1'), ask: Dec.from('1.1002'), mid: Dec.from('1.1001') };
    expect(() => checkPendingPrice('LIMIT', 'BUY', Dec.from('1.2'), quote, 5)).toThrow(
      'price: a BUY LIMIT must be below the ask (1.10020)',
    );
  });
});
