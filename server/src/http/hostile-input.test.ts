import { UNSAFE_TEXT_MESSAGE } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { addTrader, signedInTrader } from '../test/traders.js';
import { auditAccount } from '../trading/audit.js';
import { unsafePath } from './hostile-input.js';

const NUL = '\u0000';
const LONE_HIGH = '\uD800';
const LONE_LOW = '\uDC00';

/** A 400 naming `field` for an unsafe string, in the envelope with the security headers. */
function expectUnsafeText(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  field: string,
  what: string,
) {
  expect(res.statusCode, `${what}: ${res.body}`).toBe(400);
  const body = JSON.parse(res.body) as { success: boolean; code: string; error: string; details: unknown };
  expect(body, what).toEqual({
    success: false,
    code: 'VALIDATION_ERROR',
    error: `${field}: ${UNSAFE_TEXT_MESSAGE}`,
    details: [{ field, message: UNSAFE_TEXT_MESSAGE }],
  });
  expect(res.headers['content-security-policy'], what).toContain("object-src 'none'");
}

describe('unsafePath', () => {
  it('names the first unsafe value or key, at any depth, in the order sent', () => {
    expect(unsafePath({ a: 'ok', b: { c: ['x', `y${NUL}`] } })).toBe('b.c.1');
    expect(unsafePath({ a: LONE_LOW, b: NUL })).toBe('a');
    expect(unsafePath({ [`k${NUL}`]: 1 })).toBe('k\uFFFD');
    expect(unsafePath(`${LONE_HIGH}`)).toBe('body');
    expect(unsafePath({ a: '😀 é 中', b: [1, null, true, { c: 'fine' }] })).toBeUndefined();
  });

  it('walks a body nested far deeper than a call stack would allow', () => {
    let deep: unknown = NUL;
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    expect(unsafePath({ a: deep })).toMatch(/^a(\.0)+$/);
  });
});

describe('NUL and unpaired surrogates are a 400 naming the field, on every kind of input', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  let accountId: number;
  const prices = new ScriptedPriceSource();
  beforeAll(async () => {
    t = await startTestApp({ priceSource: prices });
    prices.push({ symbol: 'EURUSD', bid: 1.085, ask: 1.0851, timestamp: Date.now() });
    const trader = await signedInTrader(t);
    headers = trader.headers;
    accountId = trader.account!.accountId;
  });
  afterAll(async () => {
    await t.close();
  });

  it('in the orders filters (the PostgreSQL 500 of issue 18), the CSV export and the news query', async () => {
    for (const url of ['/api/trading/orders/', '/api/trading/orders/export.csv']) {
      const res = await t.app.inject({ method: 'GET', url, headers, query: { status: 'FILLED', fx_pair: `EUR${NUL}USD` } });
      expectUnsafeText(res, 'fx_pair', url);
    }
    const raw = await t.app.inject({ method: 'GET', url: '/api/trading/orders/?status=FILLED&fx_pair=EUR%00USD', headers });
    expectUnsafeText(raw, 'fx_pair', 'percent-encoded NUL');
    const news = await t.app.inject({ method: 'GET', url: '/api/news/trading/?pairs=EURUSD,%00', headers });
    expectUnsafeText(news, 'pairs', 'news pairs');
    // A surrogate cannot be percent-encoded as UTF-8: its CESU bytes are invalid percent-encoding,
    // which the query parser keeps as the literal text (a filter that matches nothing).
    const cesu = await t.app.inject({ method: 'GET', url: '/api/trading/orders/?fx_pair=%ED%A0%80', headers });
    expect(cesu.statusCode, cesu.body).toBe(200);
    expect(cesu.json()).toMatchObject({ count: 0, results: [] });
  });

  it('in JSON bodies: e-mails, passwords, refresh tokens, symbols, dates and unknown fields', async () => {
    const cases: Array<[string, Record<string, unknown>, string, boolean]> = [
      ['/api/auth/login/', { email: `a${NUL}@example.com`, password: 'whatever-123' }, 'email', false],
      ['/api/auth/login/', { email: 'a@example.com', password: `pass${NUL}word-123` }, 'password', false],
      ['/api/auth/login/', { email: 'a@example.com', password: `pass${LONE_HIGH}word-123` }, 'password', false],
      ['/api/auth/refresh/', { refresh: `x${LONE_LOW}` }, 'refresh', false],
      ['/api/trading/place-market-order/', { symbol: `EURUSD${NUL}`, side: 'BUY', quantity: 0.01 }, 'symbol', true],
      [
        '/api/trading/place-pending-order/',
        {
          symbol: 'EURUSD',
          side: 'BUY',
          order_type: 'LIMIT',
          quantity: 0.01,
          price: 1,
          time_in_force: 'GTD',
          expires_at: `2030-01-01T00:00:00Z${NUL}`,
        },
        'expires_at',
        true,
      ],
      [
        '/api/trading/place-market-order/',
        { symbol: 'EURUSD', side: 'BUY', quantity: 0.01, [`note${NUL}`]: 'x' },
        'note\uFFFD',
        true,
      ],
      ['/api/news/clear-cache/', { type: { nested: [`all${LONE_HIGH}`] } }, 'type.nested.0', true],
    ];
    for (const [url, payload, field, signedIn] of cases) {
      const res = await t.app.inject({ method: 'POST', url, headers: signedIn ? headers : {}, payload });
      expectUnsafeText(res, field, `${url} ${field}`);
    }
    // Nothing was stored by any of them: the trader has no order and the books hold.
    const orders = await t.app.inject({ method: 'GET', url: '/api/trading/orders/', headers });
    expect(orders.json().count).toBe(0);
    expect(await auditAccount(t.ctx.db, accountId)).toEqual([]);
  });

  it('in path parameters and in the Idempotency-Key header', async () => {
    for (const url of [
      '/api/trading/pair/EUR%00USD/',
      '/api/trading/pair/EUR%00USD/price/',
      '/api/trading/orders/1%00/cancel/',
    ]) {
      const res = await t.app.inject({ method: url.endsWith('cancel/') ? 'POST' : 'GET', url, headers });
      expectUnsafeText(res, url.includes('orders') ? 'id' : 'symbol', url);
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/trading/place-market-order/',
      headers: { ...headers, 'idempotency-key': `key${NUL}` },
      payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 },
    });
    expectUnsafeText(res, 'idempotency-key', 'Idempotency-Key');
  });

  it('a socket address asked without Upgrade: websocket is a 426 in the envelope', async () => {
    for (const url of ['/ws/trading/', '/ws/prices/']) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect(res.statusCode, url).toBe(426);
      expect(res.json(), url).toEqual({
        success: false,
        code: 'BAD_REQUEST',
        error: 'This address takes WebSocket connections only',
      });
      expect(res.headers['content-security-policy'], url).toContain("object-src 'none'");
    }
  });

  it('a bearer token with a NUL stays a 401, and paired surrogates and other unicode pass', async () => {
    const bearer = await t.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Bearer ${NUL}` } });
    expect(bearer.statusCode).toBe(401);
    const trader = await addTrader(t, { password: 'pässwörd-😀-中文-long' });
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login/',
      payload: { email: trader.email, password: trader.password },
    });
    expect(login.statusCode, login.body).toBe(200);
    const list = await t.app.inject({ method: 'GET', url: '/api/trading/orders/', headers, query: { fx_pair: '😀€' } });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toMatchObject({ count: 0, results: [] });
  });
});
