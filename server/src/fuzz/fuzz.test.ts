import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import * as contract from '@pipdesk/contract';
import { errorEnvelopeSchema } from '@pipdesk/contract';
import fc from 'fast-check';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSession } from '../auth/repo.js';
import { createTokens, newTokenId } from '../auth/tokens.js';
import { writeTransaction } from '../db/transaction.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader, TYPICAL_PRICES } from '../test/factories.js';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { auditAccount } from '../trading/audit.js';

/**
 * The seeded fuzz suite of docs/api.md#hostile-input: every route the app registers (found
 * while it is built, so a new route is fuzzed without touching this file), signed in and not,
 * with hostile strings, wrong types and odd encodings in the path, the query, the headers and
 * the body. Every answer must be below 500 and in the envelope (or one of the documented
 * non-envelope answers), and the books must hold afterwards.
 *
 * FUZZ_SEED replays a run; FUZZ_RUNS sets how many requests (600 by default: 10 to 20 seconds
 * per database; FUZZ_RUNS=3000 for a longer run by hand).
 */

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const runs = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 600;

interface FuzzRoute {
  method: string;
  url: string;
}

/**
 * Records every route of the next Fastify instance built in this process: Fastify publishes
 * each new instance on the `fastify.initialization` diagnostics channel before any route is
 * added, so an onRoute hook set there sees them all (websocket routes included).
 */
function captureRoutes(): { routes: FuzzRoute[]; stop(): void } {
  const routes: FuzzRoute[] = [];
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) {
        // HEAD routes are Fastify's automatic copies of GET ones; their answers have no body.
        if (method !== 'HEAD') routes.push({ method, url: route.url });
      }
    });
  };
  subscribe('fastify.initialization', onInit);
  return { routes, stop: () => unsubscribe('fastify.initialization', onInit) };
}

// ------------------------------------------------------------------ hostile values

const SYMBOLS = Object.keys(TYPICAL_PRICES);

const hostileConstants = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'EUR\u0000USD',
  '\uD800',
  'x\uDFFFy',
  '\uDBFF\uDBFF',
  '😀',
  '\u202Eevil',
  '\uFEFFEURUSD',
  'é中文',
  '\r\n',
  '%00',
  '%ED%A0%80',
  '%ZZ',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; DROP TABLE orders; --',
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e400',
  '0.001',
  '9007199254740993',
  '1.7976931348623157e309',
  'null',
  'true',
  '[]',
  '{}',
  'EURUSD',
  'eurusd',
  'EUR/USD',
  'BUY',
  'sell',
  'LIMIT',
  'GTD',
  'all',
  '2026-01-01',
  '2026-13-45',
  '2026-01-01T00:00:00Z',
  '-created_at',
  '1h',
);

/** Single UTF-16 code units, so lone surrogates and NULs appear inside ordinary text. */
const codeUnitString = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\u0000', '\uD83D', '\uDE00', 'a', '%', ',', '/'),
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 24,
});

const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: hostileConstants, weight: 6 },
  { arbitrary: codeUnitString, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 24 }), weight: 2 },
  { arbitrary: fc.double().map(String), weight: 1 },
  { arbitrary: fc.bigInt().map(String), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 60 }).map(String), weight: 2 },
  { arbitrary: fc.integer({ min: 1000, max: 300_000 }).map((n) => 'A'.repeat(n)), weight: 1 },
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileString, weight: 6 },
  { arbitrary: fc.double({ noNaN: true }), weight: 2 },
  { arbitrary: fc.constantFrom(0, -1, 0.01, 0.015, 1e-9, 1e308, -0, 2 ** 53 + 1, 10, 1000), weight: 2 },
  { arbitrary: fc.constantFrom(null, true, false, [], {}), weight: 2 },
  { arbitrary: fc.array(hostileString, { maxLength: 3 }), weight: 1 },
  { arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 3 }), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 1 },
);

/** Every field name of the contract's request and query schemas, plus a few of no schema. */
function contractFieldNames(): string[] {
  const names = new Set(['__proto__', 'constructor', 'prototype', 'admin', 'id', 'user_id', 'account_id', 'balance']);
  for (const [name, value] of Object.entries(contract)) {
    if (!/(Request|Query)Schema$/.test(name)) continue;
    const shape = (value as { shape?: Record<string, unknown> }).shape;
    for (const key of Object.keys(shape ?? {})) names.add(key);
  }
  return [...names];
}
const fieldName = fc.oneof(
  { arbitrary: fc.constantFrom(...contractFieldNames()), weight: 5 },
  { arbitrary: hostileString, weight: 1 },
);

/** Percent-encodes any string, a lone surrogate as the CESU bytes a hostile client would send. */
function encodeHostile(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    const next = value.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i += 1;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`;
    } else {
      out += encodeURIComponent(value[i] ?? '');
    }
  }
  return out;
}

/** A path or query part: usually percent-encoded, sometimes sent as typed when it is plain ASCII (`%ZZ`, `%00`). */
const urlPart = fc
  .tuple(hostileString, fc.boolean())
  .map(([value, verbatim]) => (verbatim && /^[\x21-\x7e]*$/.test(value) && !/[?#]/.test(value) ? value : encodeHostile(value)));

// ------------------------------------------------------------------ requests

type AuthKind = 'trader' | 'no-account' | 'none' | 'garbage';

interface FuzzRequest {
  route: number;
  /** A well-formed call of the books (a write route, signed in, the valid template), so real orders run between the hostile ones. */
  clean: boolean;
  /** Another method than the route's, to hit the 404 answers. */
  otherMethod: string | undefined;
  auth: AuthKind;
  garbageToken: string;
  params: string[];
  query: Array<[string, string]>;
  body:
    | { kind: 'none' }
    | { kind: 'template'; overrides: Array<[string, unknown]>; drop: string[] }
    | { kind: 'json'; value: unknown }
    | { kind: 'raw'; contentType: string; payload: string };
  idempotencyKey: string | undefined;
  extraHeader: [string, string] | undefined;
}

/** `value` in `times` requests out of `outOf`, undefined in the others. */
const rarely = <T>(value: fc.Arbitrary<T>, times: number, outOf: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: value, weight: times }, { arbitrary: fc.constant(undefined), weight: outOf - times });

/** `writeRoutes`: the calls that change the books, drawn more often so orders really run between the hostile requests. */
const requestArb = (routeCount: number, writeRoutes: number[]): fc.Arbitrary<FuzzRequest> =>
  fc.record({
    route: fc.oneof(
      { arbitrary: fc.integer({ min: 0, max: routeCount - 1 }), weight: 3 },
      { arbitrary: fc.constantFrom(...writeRoutes), weight: 2 },
    ),
    clean: fc.oneof({ arbitrary: fc.constant(true), weight: 1 }, { arbitrary: fc.constant(false), weight: 5 }),
    otherMethod: rarely(fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'), 1, 12),
    auth: fc.constantFrom<AuthKind>('trader', 'trader', 'trader', 'trader', 'no-account', 'none', 'garbage'),
    garbageToken: hostileString,
    params: fc.array(
      fc.oneof(
        { arbitrary: fc.integer({ min: 1, max: 40 }).map(String), weight: 4 },
        { arbitrary: fc.constantFrom(...SYMBOLS, 'eurusd', 'EUR/USD', 'XXXYYY'), weight: 3 },
        { arbitrary: urlPart, weight: 3 },
      ),
      { minLength: 3, maxLength: 3 },
    ),
    query: fc
      .oneof(fc.constant([]), fc.array(fc.tuple(fieldName, urlPart), { minLength: 1, maxLength: 4 }))
      .map((pairs) => pairs.map(([k, v]) => [encodeHostile(k), v] as [string, string])),
    body: fc.oneof(
      { arbitrary: fc.constant({ kind: 'none' as const }), weight: 2 },
      {
        arbitrary: fc.record({
          kind: fc.constant('template' as const),
          // Half the templates go out as they are (valid), half with a field hostile or missing.
          overrides: fc.oneof(
            fc.constant<Array<[string, unknown]>>([]),
            fc.array(fc.tuple(fieldName, hostileValue), { minLength: 1, maxLength: 2 }),
          ),
          drop: rarely(fieldName, 1, 4).map((k) => (k === undefined ? [] : [k])),
        }),
        weight: 6,
      },
      {
        arbitrary: fc.record({
          kind: fc.constant('json' as const),
          value: fc.oneof(fc.dictionary(fieldName, hostileValue, { maxKeys: 5 }), hostileValue),
        }),
        weight: 3,
      },
      {
        arbitrary: fc.record({
          kind: fc.constant('raw' as const),
          contentType: fc.constantFrom(
            'application/json',
            'application/json; charset=utf-8',
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/xml',
            '',
          ),
          payload: fc.oneof(
            fc.constantFrom(
              '{"a":',
              'not json',
              '',
              '[]',
              'null',
              '"\\u0000"',
              '{"symbol":"\\ud800"}',
              '\u0000',
              '{"__proto__":{"x":1}}',
            ),
            fc.integer({ min: 100, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
            hostileString,
          ),
        }),
        weight: 2,
      },
    ),
    idempotencyKey: rarely(fc.oneof(fc.constantFrom('key-1', 'key-2', 'key-3'), hostileString), 1, 6),
    extraHeader: rarely(
      fc.tuple(
        fc.constantFrom('x-forwarded-for', 'x-forwarded-proto', 'origin', 'accept', 'user-agent', 'cookie', 'x-request-id'),
        hostileString,
      ),
      1,
      5,
    ),
  });

// ------------------------------------------------------------------ the answers

interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The documented answers that are not JSON (docs/api.md: the CSV export, the OpenAPI page; docs/operations.md: metrics). */
const NON_JSON_ANSWERS: Array<{ method: string; path: RegExp; type: RegExp }> = [
  { method: 'GET', path: /^\/api\/trading\/orders\/export\.csv$/, type: /^text\/csv/ },
  { method: 'GET', path: /^\/api\/docs\//, type: /^(text\/html|text\/css|text\/javascript|application\/javascript)/ },
  { method: 'GET', path: /^\/metrics\/?$/, type: /^text\/plain/ },
];

/** What is wrong with an answer, or undefined. The non-envelope answers are those docs/api.md lists. */
function answerProblem(method: string, url: string, res: Answer): string | undefined {
  // Readiness answers 503 in the envelope while the node is not ready (docs/api.md#health); any other 5xx is a bug.
  const notReady = res.statusCode === 503 && method === 'GET' && /\/health\/ready\/$/.test(url);
  if (res.statusCode >= 500 && !notReady) return `status ${res.statusCode}`;
  if (!String(res.headers['content-security-policy'] ?? '').includes("object-src 'none'")) return 'no security headers';
  if (res.statusCode === 101 || res.statusCode === 204 || res.statusCode === 304) return undefined;
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode < 300 && NON_JSON_ANSWERS.some((a) => a.method === method && a.path.test(url) && a.type.test(type)))
    return undefined;
  // The API docs page and its script and style sheet (docs/api.md#openapi).
  if (res.statusCode < 300 && method === 'GET' && url.startsWith('/api/docs/') && /^text\/(html|css|javascript)/.test(type))
    return undefined;
  if (!type.startsWith('application/json')) return `content-type ${type}`;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return 'body is not JSON';
  }
  if (/\bat .+\.(ts|js):\d+|node_modules/.test(res.body)) return 'a stack trace';
  if (res.statusCode >= 400) return errorEnvelopeSchema.safeParse(body).success ? undefined : 'not the failure envelope';
  if (!isObject(body)) return 'not an object';
  if (body.success === true && 'data' in body) return undefined;
  // docs/api.md#envelope: the answers that keep their own shape, without the envelope.
  const keys = Object.keys(body).sort().join(',');
  if (keys === 'count,next,previous,results') return undefined;
  if (method === 'GET' && url.endsWith('/openapi.json') && body.openapi === '3.1.0') return undefined;
  if (method === 'GET' && /\/news\/$/.test(url) && keys === 'articles,count') return undefined;
  if (method === 'GET' && /\/news\/trading\/$/.test(url) && keys === 'by_pair,combined') return undefined;
  if (method === 'GET' && url === '/api/openapi.json' && 'openapi' in body) return undefined;
  return 'not the success envelope';
}

// ------------------------------------------------------------------ the suite

describe(`fuzz every route (${testDbKind})`, () => {
  let t: TestApp;
  let routes: FuzzRoute[];
  const prices = new ScriptedPriceSource();
  let trader: Awaited<ReturnType<typeof insertSignedInTrader>>;
  let noAccount: Awaited<ReturnType<typeof insertSignedInTrader>>;

  beforeAll(async () => {
    const capture = captureRoutes();
    try {
      t = await startTestApp({
        priceSource: prices,
        // Throttles off: at inject speed they would answer most requests 429 before any validation ran.
        env: { LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000000', LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000', RATE_LIMITS: 'false' },
      });
    } finally {
      capture.stop();
    }
    routes = capture.routes;
    pushPrices(0);
    trader = await insertSignedInTrader(t, { balanceMinor: 100_000_000 });
    noAccount = await insertSignedInTrader(t, { withAccount: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A tick for every pair, moving a little with `step`. */
  function pushPrices(step: number): void {
    const now = Date.now();
    for (const [symbol, typical] of Object.entries(TYPICAL_PRICES)) {
      const bid = Number((typical * (1 + 0.004 * Math.sin(step / 40))).toFixed(5));
      prices.push({ symbol, bid, ask: Number((bid * 1.0001).toFixed(5)), timestamp: now });
    }
  }

  /** A new session for the fuzzed trader (after a fuzzed logout ended the old one). */
  async function renewSession(): Promise<void> {
    const sessionId = newTokenId();
    await writeTransaction(t.ctx.db, (trx) =>
      insertSession(trx, { id: sessionId, userId: trader.userId, now: t.ctx.clock.now() }),
    );
    const { token } = await createTokens(t.ctx.config, t.ctx.clock).sign('access', trader.userId, sessionId);
    trader = { ...trader, token, headers: { authorization: `Bearer ${token}` } };
  }

  /** A body that passes validation for the calls that change the books, so real orders run between the hostile ones. */
  function template(url: string, variant: number): Record<string, unknown> {
    const symbol = SYMBOLS[variant % SYMBOLS.length] ?? 'EURUSD';
    const bid = TYPICAL_PRICES[symbol] ?? 1;
    if (url.includes('place-market-order')) return { symbol, side: variant % 2 ? 'BUY' : 'SELL', quantity: 0.05 };
    if (url.includes('place-pending-order'))
      return { symbol, side: 'BUY', order_type: 'LIMIT', quantity: 0.02, price: Number((bid * 0.98).toFixed(2)) };
    if (url.includes('close-position')) return { quantity: 0.01 };
    if (url.includes('/orders/:id')) return { price: Number((bid * 0.97).toFixed(2)) };
    if (url.includes('/positions/:id')) return { stop_loss: null };
    if (url.includes('/auth/login')) return { email: trader.email, password: 'not-the-password-1' };
    if (url.includes('/auth/refresh')) return { refresh: 'not-a-token' };
    if (url.includes('clear-cache')) return { type: 'general' };
    return {};
  }

  it(
    'answers every fuzzed request below 500, in the envelope, and the books hold afterwards',
    async () => {
      console.log(`fuzz seed ${seed}, ${runs} requests on ${testDbKind} (replay with FUZZ_SEED=${seed} FUZZ_RUNS=${runs})`);
      expect(routes.length).toBeGreaterThan(20);
      // The routes this suite must reach whatever else is added.
      for (const url of ['/api/trading/place-market-order/', '/api/trading/orders/', '/api/auth/login/', '/ws/trading/'])
        expect(routes.map((r) => r.url)).toContain(url);

      const writeRoutes = routes.flatMap((r, i) => (r.method !== 'GET' && r.url.startsWith('/api/trading/') ? [i] : []));
      const requests = fc.sample(requestArb(routes.length, writeRoutes), { seed, numRuns: runs });
      const problems: string[] = [];
      const statuses = new Map<number, number>();
      const reached = new Set<number>();
      const known = { order: [1], position: [1] };
      for (const [index, generated] of requests.entries()) {
        const request: FuzzRequest = generated.clean
          ? {
              ...generated,
              route: writeRoutes[generated.route % writeRoutes.length]!,
              otherMethod: undefined,
              auth: 'trader',
              query: [],
              body: { kind: 'template', overrides: [], drop: [] },
              extraHeader: undefined,
              params: generated.params.map((_, i) => {
                const ids = routes[writeRoutes[generated.route % writeRoutes.length]!]!.url.includes('/orders/')
                  ? known.order
                  : known.position;
                return String(ids[(index + i) % ids.length]);
              }),
            }
          : generated;
        // The market keeps moving: fresh ticks (the readiness check wants them; pending orders may trigger).
        if (index % 25 === 0) pushPrices(index);
        const route = routes[request.route]!;
        let paramIndex = 0;
        const path = route.url.replace(/:[A-Za-z_]+|\*/g, () => request.params[paramIndex++] ?? '1');
        const query = request.query.map(([k, v]) => `${k}=${v}`).join('&');
        const url = query ? `${path}?${query}` : path;
        const method = request.otherMethod ?? route.method;
        const headers: Record<string, string> = {};
        if (request.auth === 'trader') headers.authorization = trader.headers.authorization;
        if (request.auth === 'no-account') headers.authorization = noAccount.headers.authorization;
        if (request.auth === 'garbage') headers.authorization = `Bearer ${request.garbageToken}`;
        if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
        if (request.extraHeader) headers[request.extraHeader[0]] = request.extraHeader[1];
        let payload: string | undefined;
        const body = request.body;
        if (body.kind === 'template' && method !== 'GET') {
          const value: Record<string, unknown> = { ...template(route.url, index) };
          for (const key of body.drop) delete value[key];
          for (const [key, v] of body.overrides) value[key] = v;
          payload = JSON.stringify(value);
          headers['content-type'] = 'application/json';
        } else if (body.kind === 'json' && method !== 'GET') {
          payload = JSON.stringify(body.value) ?? 'null';
          headers['content-type'] = 'application/json';
        } else if (body.kind === 'raw' && method !== 'GET') {
          payload = body.payload;
          if (body.contentType) headers['content-type'] = body.contentType;
        }
        const what = `#${index} ${method} ${url.slice(0, 160)} auth=${request.auth} body=${(payload ?? '').slice(0, 160)}`;
        let res: Answer;
        try {
          res = await t.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
        } catch (err) {
          // The test client itself refused to send it (not a valid HTTP request); nothing reached the server.
          if (err instanceof TypeError || err instanceof RangeError) continue;
          throw err;
        }
        reached.add(request.route);
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        const problem = answerProblem(method, path, res);
        for (const [, kind, id] of res.body.matchAll(/"(order|position)":\{"id":(\d+)/g)) {
          const ids = known[kind as 'order' | 'position'];
          if (!ids.includes(Number(id))) ids.push(Number(id));
        }
        if (process.env.FUZZ_DEBUG) console.log(`${res.statusCode} ${what.slice(0, 200)} ${res.body.slice(0, 120)}`);
        if (problem) problems.push(`${what} → ${res.statusCode} ${problem}: ${res.body.slice(0, 300)}`);
        if (route.url.includes('/auth/logout') && request.auth === 'trader') await renewSession();
      }
      console.log(
        `fuzz answers by status: ${[...statuses.entries()]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}; routes reached ${reached.size}/${routes.length}`,
      );
      expect(problems, `seed ${seed}: ${problems.length} bad answers`).toEqual([]);
      // Some fuzzed requests must have got through validation, or the fuzz tests nothing but the 400s.
      expect([...statuses.keys()].some((s) => s === 200 || s === 201)).toBe(true);

      // The books hold: every account's balance is its ledger's sum, nothing half-applied.
      const accounts = await t.ctx.db.kysely.selectFrom('trading_accounts').select('id').execute();
      expect(accounts.length).toBeGreaterThan(0);
      for (const { id } of accounts) expect(await auditAccount(t.ctx.db, Number(id)), `account ${id}`).toEqual([]);
      // And the server still answers.
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers: trader.headers })).statusCode,
      ).toBe(200);
    },
    // Generous: a loaded 2-core CI machine runs both databases' suites beside others.
    Math.max(240_000, runs * 600),
  );
});
