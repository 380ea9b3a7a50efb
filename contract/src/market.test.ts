import { describe, expect, it } from 'vitest';
import {
  CHART_RANGES,
  chartDataQuerySchema,
  dispatchPricesMessage,
  parsePricesClientMessage,
  parsePricesServerMessage,
  pricesClientMessage,
  pricesMessage,
} from './market.js';

describe('chart ranges', () => {
  it('answer 60 one-minute, 96 fifteen-minute, 168 hourly and 180 four-hour candles', () => {
    expect(CHART_RANGES).toEqual({
      '1h': { timeframeMinutes: 1, count: 60 },
      '24h': { timeframeMinutes: 15, count: 96 },
      '1w': { timeframeMinutes: 60, count: 168 },
      '1m': { timeframeMinutes: 240, count: 180 },
    });
    expect(chartDataQuerySchema.parse({})).toEqual({ range: '1h' });
    const bad = chartDataQuerySchema.safeParse({ range: '2h' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('must be one of 1h, 24h, 1w, 1m');
  });
});

describe('price socket messages', () => {
  it('round-trips typed messages', () => {
    const update = pricesMessage('price_update', {
      symbol: 'EURUSD',
      price: 1.08417,
      bid: 1.08412,
      ask: 1.08422,
      timestamp: '2026-01-05T12:00:00.000Z',
    });
    expect(parsePricesServerMessage(JSON.stringify(update))).toEqual({ ok: true, message: update });
    const subscribe = pricesClientMessage('subscribe_prices', { symbol: 'EURUSD', last_chart_time: 1767614400000 });
    expect(parsePricesClientMessage(JSON.stringify(subscribe))).toEqual({
      ok: true,
      message: { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m', last_chart_time: 1767614400000 },
    });
  });

  it('explains what is wrong with a bad message', () => {
    expect(parsePricesClientMessage('{')).toEqual({ ok: false, error: 'Malformed message: expected a JSON object' });
    expect(parsePricesClientMessage('"x"')).toEqual({ ok: false, error: 'Malformed message: expected a JSON object' });
    expect(parsePricesClientMessage({ symbol: 'EURUSD' })).toEqual({ ok: false, error: 'Malformed message: missing "type"' });
    expect(parsePricesClientMessage({ type: 'toString' })).toEqual({ ok: false, error: 'Unknown message type: toString' });
    const r = parsePricesClientMessage({ type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '5m' });
    // '5m' is no name of ours: the spec's '1m' and the chart's m1…d1 are (DESIGN §18).
    expect(r).toEqual({
      ok: false,
      error: 'Invalid subscribe_prices: timeframe must be one of 1m, m1, m5, m15, m30, h1, h4, d1',
    });
  });

  it('dispatches to the handler of the type', () => {
    const seen: string[] = [];
    const ok = dispatchPricesMessage(JSON.stringify({ type: 'error', message: 'boom' }), {
      error: (m) => seen.push(m.message),
      price_update: () => seen.push('price'),
    });
    expect(ok).toBe(true);
    expect(seen).toEqual(['boom']);
    expect(dispatchPricesMessage('{"type":"nope"}', {})).toBe(false);
  });
});
