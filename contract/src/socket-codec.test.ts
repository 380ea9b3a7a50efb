import { describe, expect, it } from 'vitest';
import { pricesServerCodec } from './market.js';
import { tradingClientCodec, tradingServerCodec } from './trading-socket.js';

describe('socket codec', () => {
  it('encodes a typed message as one JSON object and decodes it back', () => {
    const text = tradingClientCodec.encode('authenticate', { token: 't-1' });
    expect(JSON.parse(text)).toEqual({ type: 'authenticate', token: 't-1' });
    expect(tradingClientCodec.decode(text)).toEqual({ ok: true, message: { type: 'authenticate', token: 't-1' } });
  });

  it('decodes text once: JSON holding a string is not a message', () => {
    const twice = JSON.stringify(JSON.stringify({ type: 'ping' }));
    expect(tradingClientCodec.decode(twice)).toEqual({ ok: false, error: 'Message must be a JSON object' });
    expect(tradingClientCodec.decode('not json')).toEqual({ ok: false, error: 'Invalid JSON' });
  });

  it('words a bad /ws/trading/ message as the trading socket always has', () => {
    expect(tradingServerCodec.parse([1])).toEqual({ ok: false, error: 'Message must be a JSON object' });
    expect(tradingServerCodec.parse({ no: 'type' })).toEqual({ ok: false, error: 'Unknown message type: undefined' });
    expect(tradingServerCodec.parse({ type: 'toString' })).toEqual({ ok: false, error: 'Unknown message type: toString' });
    expect(tradingClientCodec.parse({ type: 'subscribe_to_pnl', extra: 1 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Invalid subscribe_to_pnl message: /),
    });
  });

  it('reads the same price_update on both sockets', () => {
    const update = { symbol: 'EURUSD', price: 1.08417, bid: 1.08412, ask: 1.08422, timestamp: '2026-01-05T12:00:00.000Z' };
    const text = JSON.stringify({ type: 'price_update', ...update });
    expect(tradingServerCodec.decode(text)).toEqual(pricesServerCodec.decode(text));
    expect(pricesServerCodec.decode(text)).toEqual({ ok: true, message: { type: 'price_update', ...update } });
  });
});
