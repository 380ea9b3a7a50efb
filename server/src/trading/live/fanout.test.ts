import type { PlaceMarketOrderResponse, TradingServerMessage } from '@pipdesk/contract';
import { parseTradingServerMessage } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../core/clock.js';
import { ScriptedPriceSource } from '../../market/index.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { signedInTrader } from '../../test/traders.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A P&L subscriber on a real ws client, with the server side of its connection. */
interface Subscriber {
  messages: TradingServerMessage[];
  client: WebSocket;
  /** Writes the server made to this socket's TCP stream. */
  writes(): number;
}

/**
 * The fan-out of a tick to the trading socket (docs/api.md#trading-socket): a tick's P&L,
 * account figures and prices reach a socket in one write, and a tick of a pair that values
 * none of a trader's positions sends them no P&L.
 */
describe('trading socket fan-out', () => {
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 2, 2, 10, 0, 0));
  const prices = new ScriptedPriceSource();
  const tick = (symbol: string, bid: number, ask: number) => prices.push({ symbol, bid, ask, timestamp: clock.now() });

  beforeAll(async () => {
    tick('EURUSD', 1.1, 1.1001);
    tick('USDJPY', 150, 150.02);
    t = await startTestApp({ listen: true, priceSource: prices, clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function subscriber(symbol: string): Promise<Subscriber & { positionId: number }> {
    const trader = await signedInTrader(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/trading/place-market-order/',
      headers: trader.headers,
      payload: { symbol, side: 'BUY', quantity: 1 },
    });
    expect(res.statusCode).toBe(201);
    const positionId = (res.json().data as PlaceMarketOrderResponse).position!.id;
    const before = new Set(t.app.websocketServer.clients);
    const client = new WebSocket(`${t.url.replace('http', 'ws')}/ws/trading/`);
    const messages: TradingServerMessage[] = [];
    client.on('message', (data) => {
      const parsed = parseTradingServerMessage(JSON.parse(String(data)));
      if (!parsed.ok) throw new Error(parsed.error);
      messages.push(parsed.message);
    });
    await new Promise<void>((resolve, reject) => {
      client.once('open', () => resolve());
      client.once('error', reject);
    });
    const server = [...t.app.websocketServer.clients].find((ws) => !before.has(ws))!;
    const raw = (server as unknown as { _socket: { write: (...a: unknown[]) => boolean } })._socket;
    const write = raw.write.bind(raw);
    let writes = 0;
    raw.write = (...a: unknown[]) => {
      writes++;
      return write(...a);
    };
    client.send(JSON.stringify({ type: 'authenticate', token: trader.session.token }));
    await until(() => messages.some((m) => m.type === 'connection_established'));
    client.send(JSON.stringify({ type: 'subscribe_to_pnl' }));
    await until(() => messages.some((m) => m.type === 'account_update'));
    return { messages, client, positionId, writes: () => writes };
  }

  async function until(check: () => boolean): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await sleep(5);
    }
  }

  it("sends a tick's price, P&L and account figures in one write per socket", async () => {
    const a = await subscriber('EURUSD');
    const b = await subscriber('EURUSD');
    // Past both pacing intervals, so the next tick's price and P&L go out at once.
    await sleep(600);
    const from = [a.messages.length, b.messages.length];
    const writes = [a.writes(), b.writes()];
    tick('EURUSD', 1.1012, 1.1013);
    for (const [i, s] of [a, b].entries()) {
      await until(() => s.messages.slice(from[i]).some((m) => m.type === 'account_update'));
      await sleep(50);
      const burst = s.messages.slice(from[i]);
      expect(burst.map((m) => m.type)).toEqual(['pnl_batch_update', 'account_update', 'price_update']);
      // 1 lot EURUSD bought at the ask 1.1001, valued at the bid 1.1012: 11 pips of 100,000 units.
      expect(burst[0]).toEqual({
        type: 'pnl_batch_update',
        updates: [{ position_id: s.positionId, unrealized_pnl: 110, current_price: 1.1012 }],
      });
      expect(s.writes() - writes[i]!).toBe(1);
    }
    a.client.close();
    b.client.close();
  });

  it('sends no P&L to a trader whose positions a tick does not value, only the price', async () => {
    const s = await subscriber('EURUSD');
    await sleep(600);
    const from = s.messages.length;
    tick('USDJPY', 150.5, 150.52);
    await until(() => s.messages.slice(from).some((m) => m.type === 'price_update'));
    await sleep(600);
    expect(s.messages.slice(from).map((m) => m.type)).toEqual(['price_update']);
    // The control: a tick of the trader's own pair does send P&L.
    tick('EURUSD', 1.1005, 1.1006);
    await until(() => s.messages.slice(from).some((m) => m.type === 'pnl_batch_update'));
    s.client.close();
  });
});
