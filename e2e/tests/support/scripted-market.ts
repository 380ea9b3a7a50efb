import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';
import { test as base } from './session.js';
import { createTrader as createTraderOn, setRole as setRoleOn, TRADER_PASSWORD } from './traders.js';

/**
 * A Pipdesk server of its own whose prices the journey sets: it runs with
 * `PRICE_SOURCE=external` (protocol in server/src/market/sources/EXTERNAL_FEED.md) against a
 * feed served from this process, so a journey can move the market through a pending order's
 * price or a take profit, and nothing moves unless it says so.
 */
export interface ScriptedMarket {
  readonly baseURL: string;
  /** Sends one tick and waits until the server's price book shows it. */
  tick(symbol: string, bid: number, ask: number): Promise<void>;
  /** Creates a trader (with an account) on this server's database; returns the e-mail. */
  createTrader(name: string): string;
  /** Gives one of this server's users a role (the CLI on its database). */
  setRole(email: string, role: 'instructor' | 'admin'): void;
  close(): Promise<void>;
}

/** Where every pair starts: near its real level, so margin and conversions look familiar. */
export const OPENING_PRICES: Readonly<Record<string, readonly [number, number]>> = {
  EURUSD: [1.1, 1.1002],
  GBPUSD: [1.27, 1.2702],
  USDJPY: [150, 150.02],
  USDCHF: [0.88, 0.8802],
  USDCAD: [1.36, 1.3602],
  AUDUSD: [0.66, 0.6602],
  NZDUSD: [0.6, 0.6002],
  EURGBP: [0.86, 0.8602],
  EURJPY: [165, 165.02],
  GBPJPY: [190, 190.02],
};

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const STALE_MS = 600_000; // the feed is quiet between a journey's ticks; it must not count as lost

export async function startScriptedMarket(): Promise<ScriptedMarket> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pipdesk-e2e-scripted-'));
  const feed = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => feed.once('listening', () => resolve()));
  const feedUrl = `ws://127.0.0.1:${(feed.address() as AddressInfo).port}`;
  const latest = new Map<string, readonly [number, number]>();
  const clients = new Set<WebSocket>();
  feed.on('connection', (socket) => {
    clients.add(socket);
    socket.on('close', () => clients.delete(socket));
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { type?: string; symbols?: string[] };
      if (message.type !== 'subscribe') return;
      // Every subscribed pair gets a price at once: its last scripted one, or its opening one.
      const ticks = (message.symbols ?? []).map((symbol) => {
        const [bid, ask] =
          latest.get(symbol) ?? OPENING_PRICES[symbol] ?? (symbol.endsWith('JPY') ? [150, 150.02] : [1.1, 1.1002]);
        return { symbol, bid, ask };
      });
      socket.send(JSON.stringify({ type: 'ticks', ticks }));
    });
  });

  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const server: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'server/dist/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      REDIS_URL: '',
      PRICE_SOURCE: 'external',
      EXTERNAL_FEED_URL: feedUrl,
      EXTERNAL_FEED_STALE_MS: String(STALE_MS),
      CHART_HISTORY_DAYS: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));

  const close = async () => {
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (server.exitCode === null) server.kill('SIGKILL');
    for (const client of clients) client.terminate();
    await new Promise<void>((resolve) => feed.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await until(async () => {
      const health = (await (await fetch(`${baseURL}/api/health/`)).json()) as {
        data?: { price_source?: { connected?: boolean } };
      };
      return health.data?.price_source?.connected === true;
    }, 60_000);
  } catch (err) {
    await close();
    throw err;
  }

  // Prices are for signed-in callers: a watcher of our own reads them back after each tick.
  let token = '';
  const createTrader = (name: string) => createTraderOn(name, { dataDir });
  try {
    const login = await fetch(`${baseURL}/api/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: createTrader('Price Watcher'), password: TRADER_PASSWORD }),
    });
    token = ((await login.json()) as { data: { token: string } }).data.token;
  } catch (err) {
    await close();
    throw err;
  }

  return {
    baseURL,
    async tick(symbol, bid, ask) {
      latest.set(symbol, [bid, ask]);
      const message = JSON.stringify({ type: 'tick', symbol, bid, ask });
      for (const client of clients) client.send(message);
      // The tick has arrived when the server quotes it (prices are public).
      // The tick has arrived when the server quotes it.
      await until(async () => {
        const answer = await fetch(`${baseURL}/api/trading/current-prices/`, { headers: { authorization: `Bearer ${token}` } });
        const prices = ((await answer.json()) as { data?: Record<string, { bid: number; ask: number }> }).data ?? {};
        return prices[symbol]?.bid === bid && prices[symbol]?.ask === ask;
      }, 10_000);
    },
    createTrader,
    setRole: (email, role) => setRoleOn(email, role, dataDir),
    close,
  };
}

/**
 * The test runner for journeys on a scripted market: one server per worker, and `baseURL`
 * (so `page.goto('/…')` and the sign-in helpers) pointing at it. Each journey uses a trader
 * of its own and sets the prices it relies on.
 */
export const test = base.extend<Record<never, never>, { market: ScriptedMarket }>({
  market: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright requires the destructuring pattern
    async ({}, use) => {
      const market = await startScriptedMarket();
      await use(market);
      await market.close();
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  baseURL: async ({ market }, use) => {
    await use(market.baseURL);
  },
});

export { expect } from './session.js';

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`scripted market: not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
