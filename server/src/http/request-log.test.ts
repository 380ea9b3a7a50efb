import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { addTrader } from '../test/traders.js';

const METRICS_TOKEN = 'metrics-token-never-in-the-log-42';

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

const DEBUG = 20;
const INFO = 30;

let t: TestApp | undefined;
afterAll(async () => {
  await t?.close();
});

describe('the log of a whole session (docs/operations.md#logs)', () => {
  it('has one line per API call with the user id, probes at debug, a line per order event, and no secret', async () => {
    let text = '';
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    const prices = new ScriptedPriceSource();
    t = await startTestApp({
      env: { LOG_LEVEL: 'debug', METRICS_TOKEN },
      logger: true,
      logStream,
      priceSource: prices,
      listen: true,
    });
    const app = t;
    prices.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1002, timestamp: Date.now() });
    const trader = await addTrader(app);
    const wrongPassword = `${trader.password}-but-wrong`;
    const call = (method: 'GET' | 'POST', url: string, payload?: object, headers: Record<string, string> = {}) =>
      app.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

    // Sign-in, once wrong and once right.
    expect((await call('POST', '/api/auth/login/', { email: trader.email, password: wrongPassword })).statusCode).toBe(401);
    const login = await call('POST', '/api/auth/login/', { email: trader.email, password: trader.password });
    expect(login.statusCode).toBe(200);
    const { token, refresh } = login.json().data as { token: string; refresh: string };
    const bearer = { authorization: `Bearer ${token}` };
    expect((await call('GET', '/api/auth/me/', undefined, bearer)).statusCode).toBe(200);
    const placed = await call(
      'POST',
      '/api/trading/place-market-order/',
      { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 },
      { ...bearer, 'idempotency-key': randomUUID() },
    );
    expect(placed.statusCode).toBe(201);
    // A bad token and a garbled refresh: refused, and still not logged.
    expect((await call('GET', '/api/auth/me/', undefined, { authorization: `Bearer ${token}x` })).statusCode).toBe(401);

    // The trading socket, authenticated with the token.
    const socket = new WebSocket(`${app.url.replace('http', 'ws')}/ws/trading/`);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ type: 'authenticate', token })));
      socket.on('message', (data) => {
        if ((JSON.parse(String(data)) as { type: string }).type === 'connection_established') resolve();
      });
    });
    socket.close();

    const refreshed = await call('POST', '/api/auth/refresh/', { refresh });
    expect(refreshed.statusCode).toBe(200);
    const renewed = refreshed.json().data as { access: string; refresh: string };
    expect((await call('GET', '/api/health/')).statusCode).toBeLessThan(600);
    expect((await call('GET', '/metrics', undefined, { authorization: `Bearer ${METRICS_TOKEN}` })).statusCode).toBe(200);
    const logout = await call(
      'POST',
      '/api/auth/logout/',
      { refresh: renewed.refresh },
      { authorization: `Bearer ${renewed.access}` },
    );
    expect(logout.statusCode).toBe(200);
    await app.close();
    t = undefined;

    // No secret, in any form the session used them.
    const secrets = {
      password: trader.password,
      wrongPassword,
      token,
      tokenSignature: token.split('.')[2]!,
      refresh,
      renewedAccess: renewed.access,
      renewedRefresh: renewed.refresh,
      jwtSecret: app.config.jwtSecret,
      metricsToken: METRICS_TOKEN,
    };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(8);
      expect(text.includes(secret), `${name} in the log`).toBe(false);
    }

    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);
    const requests = lines.filter((l) => l.msg === 'request');
    const apiCalls = requests.filter((l) => String(l.path).startsWith('/api/') && !String(l.path).startsWith('/api/health'));
    // Login ×2, me ×2, order, refresh, logout: one info line each, and nothing else from Fastify.
    expect(apiCalls.map((l) => `${l.method} ${l.route} ${l.status}`)).toEqual([
      'POST /api/auth/login/ 401',
      'POST /api/auth/login/ 200',
      'GET /api/auth/me/ 200',
      'POST /api/trading/place-market-order/ 201',
      'GET /api/auth/me/ 401',
      'POST /api/auth/refresh/ 200',
      'POST /api/auth/logout/ 200',
    ]);
    for (const line of apiCalls) expect(line.level).toBe(INFO);
    expect(apiCalls[2]).toMatchObject({ userId: trader.userId });
    expect(apiCalls[3]).toMatchObject({ userId: trader.userId });
    expect(typeof apiCalls[3]!.ms).toBe('number');
    expect(lines.some((l) => l.msg === 'incoming request' || l.msg === 'request completed')).toBe(false);
    // The probe and /metrics: debug.
    const quiet = requests.filter((l) => !apiCalls.includes(l));
    expect(quiet.map((l) => l.path)).toEqual(['/api/health/', '/metrics']);
    for (const line of quiet) expect(line.level).toBe(DEBUG);
    // The order's own line.
    const filled = lines.filter((l) => l.msg === 'order filled');
    expect(filled).toHaveLength(1);
    expect(filled[0]).toMatchObject({ level: INFO, userId: trader.userId, symbol: 'EURUSD', side: 'BUY', type: 'MARKET' });
  });
});
