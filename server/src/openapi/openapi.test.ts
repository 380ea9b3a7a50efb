import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { API_OPERATIONS, answersOf, type OperationSpec } from '@pipdesk/contract';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRole } from '../auth/service.js';
import { writeTransaction } from '../db/transaction.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { signedInWithRole } from '../test/academy.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { addTrader } from '../test/traders.js';
import { answerSchemaName, type OpenApiDocument, openApiPath } from './document.js';
import { compareWithRoutes, exclusionReason, type RegisteredRoute } from './registry.js';

// docs/api.md#openapi: the document covers every route the app registers, and a real answer of
// every documented call matches the schema the document gives for its status.

/**
 * Every route of the next Fastify instance built in this process, seen independently of the
 * module under test: Fastify publishes each new instance on this diagnostics channel before any
 * route is added.
 */
function captureRoutes(): { routes: RegisteredRoute[]; stop(): void } {
  const routes: RegisteredRoute[] = [];
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route: RouteOptions & { websocket?: boolean }) => {
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD') {
          const operationId = route.config?.operation?.operationId;
          routes.push({ method, url: route.url, websocket: route.websocket === true, ...(operationId ? { operationId } : {}) });
        }
      }
    });
  };
  subscribe('fastify.initialization', onInit);
  return { routes, stop: () => unsubscribe('fastify.initialization', onInit) };
}

const prices = new ScriptedPriceSource();
let t: TestApp;
let routes: RegisteredRoute[];
let doc: OpenApiDocument;
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  const capture = captureRoutes();
  try {
    t = await startTestApp({ priceSource: prices });
  } finally {
    capture.stop();
  }
  routes = capture.routes;
  const res = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
});
afterAll(async () => {
  await t?.close();
});

describe('the document', () => {
  it('documents every route the app registers, and nothing that is not one', () => {
    expect(routes.length).toBeGreaterThan(API_OPERATIONS.length);
    const { undocumented, withoutRoute } = compareWithRoutes(routes, API_OPERATIONS);
    expect(
      undocumented.map((r) => `${r.method} ${r.url}`),
      'routes missing from the operations map (contract/src/operations)',
    ).toEqual([]);
    expect(
      withoutRoute.map((op) => `${op.method} ${op.path}`),
      'operations whose route does not exist',
    ).toEqual([]);
    for (const op of API_OPERATIONS) {
      expect(doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()], `${op.method} ${op.path}`).toBeDefined();
    }
  });

  it('registers every API route from its entry in the operations map, and every entry exactly once', () => {
    const apiRoutes = routes.filter((r) => !exclusionReason(r));
    const fromMap = apiRoutes.filter((r) => r.operationId !== undefined);
    expect(
      apiRoutes.filter((r) => r.operationId === undefined).map((r) => `${r.method} ${r.url}`),
      'routes registered by hand instead of from their entry (http/operation-route.ts)',
    ).toEqual([]);
    for (const r of fromMap) {
      const op = opById(r.operationId as string);
      expect(`${r.method} ${r.url}`, r.operationId).toBe(`${op.method} ${op.path}`);
    }
    const registered = fromMap.map((r) => r.operationId).sort();
    expect(registered).toEqual(API_OPERATIONS.map((op) => op.operationId).sort());
  });

  it('leaves out only sockets, the web app, the 404 catch-all and the page assets, each with its reason', () => {
    const left = routes.filter((r) => exclusionReason(r));
    expect(left.some((r) => r.websocket && r.url === '/ws/trading/')).toBe(true);
    expect(left.some((r) => r.url === '/api/*')).toBe(true);
    // An API call would never be excused: a made-up one is not.
    expect(exclusionReason({ method: 'GET', url: '/api/trading/new-call/', websocket: false })).toBeUndefined();
  });

  it('is OpenAPI 3.1 with unique operation ids, bearer security and the error envelope as one component', () => {
    expect(doc.openapi).toBe('3.1.0');
    const ids = API_OPERATIONS.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.components.schemas.ErrorEnvelope).toMatchObject({ required: ['success', 'error', 'code'] });
    const placeOrder = doc.paths['/api/trading/place-market-order/']?.post as {
      security: unknown;
      requestBody: { content: { 'application/json': { schema: { required: string[] } } } };
      parameters: Array<{ name: string; in: string }>;
    };
    expect(placeOrder.security).toEqual([{ bearer: [] }]);
    expect(placeOrder.requestBody.content['application/json'].schema.required).toEqual(['symbol', 'side', 'quantity']);
    expect(placeOrder.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    const orderRef = JSON.stringify(doc.components.schemas[answerSchemaName(opById('listOrders'), 200)]);
    expect(orderRef).toContain('#/components/schemas/Order');
    // Every schema the document refers to exists, so a client generator can resolve it.
    for (const ref of JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      expect(doc.components.schemas[ref[1] as string], ref[1]).toBeDefined();
    }
  });

  it('rejects an answer that does not match (the check can fail)', () => {
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${answerSchemaName(opById('me'), 200)}`);
    expect(validate?.({ success: true, data: { id: 1, email: 'a@b.c', full_name: 'A' } })).toBe(true);
    expect(validate?.({ success: true, data: { id: '1', email: 'a@b.c', full_name: 'A' } })).toBe(false);
    expect(validate?.({ success: true, data: { id: 1, email: 'a@b.c', full_name: 'A', extra: 1 } })).toBe(false);
  });
});

// ------------------------------------------------------------------ the answers

function opById(id: string): OperationSpec {
  const op = API_OPERATIONS.find((o) => o.operationId === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
}

/** The lowest status each operation answered with; every operation must be seen. */
const seen = new Map<string, Set<number>>();

/** Whether a concrete URL is an instance of the operation's path. */
function matchesPath(op: OperationSpec, url: string): boolean {
  const pattern = op.path.replace(/[.]/g, '\\.').replace(/:[A-Za-z0-9_]+/g, '[^/]+');
  return new RegExp(`^${pattern}$`).test(url.split('?')[0] ?? '');
}

/** Calls an operation and checks its answer against the document: its status, content type and body. */
async function call(
  operationId: string,
  options: { url?: string; headers?: Record<string, string>; payload?: unknown; query?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const op = opById(operationId);
  const url = options.url ?? op.path;
  expect(matchesPath(op, url), `${url} is not ${op.path}`).toBe(true);
  const request: InjectOptions = {
    method: op.method,
    url,
    headers: options.headers ?? {},
    ...(options.query ? { query: options.query } : {}),
    ...(options.payload === undefined ? {} : { payload: options.payload as Record<string, unknown> }),
  };
  const res = await t.app.inject(request);
  const operation = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()] as {
    responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }>;
  };
  const documented = operation.responses[String(res.statusCode)] ?? operation.responses.default;
  expect(documented, `${op.method} ${url} answered ${res.statusCode}`).toBeDefined();
  const [contentType, media] = Object.entries(documented?.content ?? {})[0] ?? [];
  expect(String(res.headers['content-type']), `${op.method} ${url} ${res.statusCode}`).toContain(contentType ?? '-');
  if (contentType === 'application/json') {
    const ref = media?.schema.$ref ?? '';
    const validate = ajv.getSchema(`openapi.json${ref}`);
    expect(validate, ref).toBeDefined();
    const body = res.json();
    const ok = validate?.(body);
    expect(
      ok,
      `${op.method} ${url} ${res.statusCode} does not match ${ref}: ${ajv.errorsText(validate?.errors)}\n${res.body.slice(0, 2000)}`,
    ).toBe(true);
  }
  if (res.statusCode < 300) requestMatchesDocument(op, url, options.payload, options.query ?? {}, options.headers ?? {});
  const statuses = seen.get(operationId) ?? new Set<number>();
  statuses.add(res.statusCode);
  seen.set(operationId, statuses);
  return res;
}

interface DocumentedParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Record<string, unknown>;
}

/**
 * A request the server accepted must be one the document allows: its path parameters, query and
 * headers match the documented parameters and its body the documented request body.
 */
function requestMatchesDocument(
  op: OperationSpec,
  url: string,
  payload: unknown,
  query: Record<string, string>,
  headers: Record<string, string>,
): void {
  const operation = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()] as {
    parameters?: DocumentedParameter[];
    requestBody?: { required: boolean; content: { 'application/json': { schema: Record<string, unknown> } } };
  };
  const parameters = operation.parameters ?? [];
  const check = (where: string, schema: Record<string, unknown>, value: unknown) => {
    const validate = ajv.compile(schema);
    expect(validate(value), `${op.method} ${url}: ${where} ${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`).toBe(
      true,
    );
  };
  const pathValues =
    new RegExp(`^${op.path.replace(/[.]/g, '\\.').replace(/:[A-Za-z0-9_]+/g, '([^/]+)')}$`).exec(url)?.slice(1) ?? [];
  const pathParams = parameters.filter((p) => p.in === 'path');
  expect(pathParams.length).toBe(pathValues.length);
  for (const [i, p] of pathParams.entries()) check(`path ${p.name}`, p.schema, pathValues[i]);
  for (const [name, value] of Object.entries(query)) {
    const documented = parameters.find((p) => p.in === 'query' && p.name === name);
    expect(documented, `${op.method} ${url}: query ${name} is not documented`).toBeDefined();
    if (documented) check(`query ${name}`, documented.schema, value);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization') continue;
    const documented = parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase());
    expect(documented, `${op.method} ${url}: header ${name} is not documented`).toBeDefined();
    if (documented) check(`header ${name}`, documented.schema, value);
  }
  if (payload === undefined) {
    expect(operation.requestBody?.required ?? false, `${op.method} ${url}: body left out`).toBe(false);
  } else {
    expect(operation.requestBody, `${op.method} ${url}: a body is not documented`).toBeDefined();
    if (operation.requestBody) check('body', operation.requestBody.content['application/json'].schema, payload);
  }
}

describe('every documented call answers as documented', () => {
  it('with a trader who has positions, pending orders and closed trades', async () => {
    const now = Date.now();
    for (const [symbol, bid, ask] of [
      ['EURUSD', 1.085, 1.0851],
      ['GBPUSD', 1.27, 1.2701],
      ['USDJPY', 150, 150.01],
    ] as const) {
      prices.push({ symbol, bid, ask, timestamp: now });
    }
    await expect.poll(async () => (await t.app.inject({ url: '/api/health/ready/' })).statusCode, { timeout: 15_000 }).toBe(200);

    const trader = await addTrader(t);
    const login = await call('login', { payload: { email: trader.email, password: trader.password } });
    expect(login.statusCode).toBe(200);
    const session = login.json().data as { token: string; refresh: string };
    const headers = { authorization: `Bearer ${session.token}` };

    // Failures of every signed-in call match the envelope.
    for (const op of API_OPERATIONS.filter((o) => o.auth)) {
      const url = op.path
        .replace(/:id/, '1')
        .replace(/:tradeId/, '1')
        .replace(/:symbol/, 'EURUSD');
      const res = await call(op.operationId, { url });
      expect(res.statusCode, `${op.method} ${url}`).toBe(401);
    }
    expect((await call('login', { payload: { email: trader.email, password: 'wrong password' } })).statusCode).toBe(401);
    expect((await call('login', { payload: { email: 'not an e-mail', password: 'x' } })).statusCode).toBe(400);

    expect((await call('me', { headers })).statusCode).toBe(200);

    // Orders: two fills open a position, a partial close makes a closed trade, pending orders rest.
    const open = await call('placeMarketOrder', {
      headers: { ...headers, 'idempotency-key': 'openapi-open-1' },
      payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.3, stop_loss: 1.05 },
    });
    expect(open.statusCode).toBe(201);
    const positionId = open.json().data.position.id as number;
    expect(
      (await call('placeMarketOrder', { headers, payload: { symbol: 'GBPUSD', side: 'SELL', quantity: 0.1 } })).statusCode,
    ).toBe(201);
    const rejected = await call('placeMarketOrder', { headers, payload: { symbol: 'EURUSD', side: 'BUY', quantity: 50 } });
    expect(rejected.statusCode).toBe(422);
    expect((await call('placeMarketOrder', { headers, payload: { symbol: 'EURUSD', side: 'UP', quantity: 1 } })).statusCode).toBe(
      400,
    );

    const partial = await call('closePosition', {
      url: `/api/trading/close-position/${positionId}/`,
      headers,
      payload: { quantity: 0.1 },
    });
    expect(partial.statusCode).toBe(200);
    expect((await call('closePosition', { url: '/api/trading/close-position/999999/', headers, payload: {} })).statusCode).toBe(
      404,
    );

    const limit = await call('placePendingOrder', {
      headers,
      payload: { symbol: 'EURUSD', side: 'BUY', order_type: 'LIMIT', quantity: 0.1, price: 1.07 },
    });
    expect(limit.statusCode).toBe(201);
    const limitId = limit.json().data.order.id as number;
    expect(
      (await call('modifyOrder', { url: `/api/trading/orders/${limitId}/`, headers, payload: { price: 1.06, take_profit: 1.2 } }))
        .statusCode,
    ).toBe(200);
    const stop = await call('placePendingOrder', {
      headers,
      payload: { symbol: 'USDJPY', side: 'BUY', order_type: 'STOP', quantity: 0.1, price: 151 },
    });
    expect(stop.statusCode).toBe(201);
    const stopId = stop.json().data.order.id as number;
    expect((await call('cancelOrder', { url: `/api/trading/orders/${stopId}/cancel/`, headers })).statusCode).toBe(200);
    expect((await call('cancelOrder', { url: `/api/trading/orders/${stopId}/cancel/`, headers })).statusCode).toBe(409);
    expect(
      (
        await call('modifyPosition', {
          url: `/api/trading/positions/${positionId}/`,
          headers,
          payload: { trailing_stop_pips: 20 },
        })
      ).statusCode,
    ).toBe(200);

    // Reading it all back.
    expect((await call('listAccounts', { headers })).json().data).toHaveLength(1);
    expect((await call('platformData', { headers, query: { account: '999999' } })).statusCode).toBe(404);
    const platform = await call('platformData', { headers });
    expect(platform.json().data.pending_orders).toHaveLength(1);
    const orders = await call('listOrders', { headers, query: { page_size: '2' } });
    expect(orders.json().next).not.toBeNull();
    expect((await call('listOrders', { headers, query: { ordering: 'sideways' } })).statusCode).toBe(400);
    const csv = await call('exportOrders', { headers });
    expect(csv.statusCode).toBe(200);
    expect(csv.body.split('\n').length).toBeGreaterThan(3);
    expect((await call('pairPage', { url: '/api/trading/pair/eurusd/', headers })).statusCode).toBe(200);
    expect((await call('pairPage', { url: '/api/trading/pair/XXXYYY/', headers })).statusCode).toBe(404);
    expect((await call('currentPrices', { headers })).statusCode).toBe(200);
    expect((await call('pairPrice', { url: '/api/trading/pair/EURUSD/price/', headers })).statusCode).toBe(200);
    expect(
      (await call('chartData', { url: '/api/trading/pair/EURUSD/chart-data/', headers, query: { range: '1h' } })).statusCode,
    ).toBe(200);

    // Performance and the journal.
    const performance = await call('performance', { headers });
    expect(performance.json().data.closed_trades).toBe(1);
    expect((await call('equityCurve', { headers, query: { range: 'all' } })).statusCode).toBe(200);
    const journal = await call('journal', { headers });
    const tradeId = journal.json().results[0].trade.id as number;
    expect(
      (
        await call('updateJournalEntry', {
          url: `/api/trading/journal/${tradeId}/`,
          headers,
          payload: { note: 'Held', tags: ['plan'], rating: 4 },
        })
      ).statusCode,
    ).toBe(200);
    expect((await call('journalTags', { headers })).json().data).toEqual(['plan']);

    // The academy's console: this trader as the student of an instructor's cohort (docs/academy.md).
    const teacher = await insertSignedInTrader(t, { withAccount: false });
    await setRole(t.ctx, teacher.email, 'instructor');
    const cohortId = await writeTransaction(t.ctx.db, async (trx) => {
      const now = Date.now();
      const cohort = await trx
        .insertInto('cohorts')
        .values({
          name: 'OpenAPI cohort',
          description: '',
          starting_balance_minor: 1_000_000,
          leverage: 100,
          starts_at: null,
          ends_at: null,
          allow_self_reset: 0,
          status: 'active',
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = Number(cohort.id);
      await trx.insertInto('cohort_instructors').values({ cohort_id: id, user_id: teacher.userId, added_at: now }).execute();
      await trx
        .insertInto('cohort_members')
        .values({ cohort_id: id, user_id: trader.userId, added_at: now, active: 1 })
        .execute();
      return id;
    });
    const student = `/api/academy/students/${trader.userId}`;
    expect(
      (await call('cohortRoster', { url: `/api/academy/cohorts/${cohortId}/roster/`, headers: teacher.headers })).statusCode,
    ).toBe(200);
    expect((await call('cohortRoster', { url: `/api/academy/cohorts/${cohortId}/roster/`, headers })).statusCode).toBe(403);
    expect((await call('cohortLeaderboard', { url: `/api/academy/cohorts/${cohortId}/leaderboard/`, headers })).statusCode).toBe(
      200,
    );
    expect((await call('studentDashboard', { url: `${student}/`, headers: teacher.headers })).statusCode).toBe(200);
    expect(
      (await call('studentOrders', { url: `${student}/orders/`, headers: teacher.headers, query: { page_size: '2' } }))
        .statusCode,
    ).toBe(200);
    expect((await call('studentPerformance', { url: `${student}/performance/`, headers: teacher.headers })).statusCode).toBe(200);
    expect((await call('studentJournal', { url: `${student}/journal/`, headers: teacher.headers })).statusCode).toBe(200);
    expect(
      (await call('studentJournal', { url: '/api/academy/students/999999/journal/', headers: teacher.headers })).statusCode,
    ).toBe(404);
    expect(
      (
        await call('commentOnTrade', {
          url: `${student}/comments/`,
          headers: teacher.headers,
          payload: { trade_id: tradeId, text: 'Why here?' },
        })
      ).statusCode,
    ).toBe(201);
    // Evaluation programs of that cohort (docs/evaluations.md#programs).
    const programs = `/api/academy/cohorts/${cohortId}/programs/`;
    const program = await call('createProgram', {
      url: programs,
      headers: teacher.headers,
      payload: {
        name: 'Documented challenge',
        initial_balance: 10000,
        leverage: 30,
        phases: [{ name: 'Phase 1', profit_target_pct: 8, max_daily_loss_pct: 5, max_loss_pct: 10 }],
      },
    });
    expect(program.statusCode).toBe(201);
    expect((await call('createProgram', { url: programs, headers: teacher.headers, payload: { name: 'x' } })).statusCode).toBe(
      400,
    );
    expect((await call('createProgram', { url: programs, headers, payload: {} })).statusCode).toBe(403);
    expect((await call('listPrograms', { url: programs, headers })).statusCode).toBe(200);
    expect((await call('listPrograms', { url: '/api/academy/cohorts/999999/programs/', headers })).statusCode).toBe(404);
    // An attempt of the student's, its meter and the instructor's board (docs/evaluations.md#attempts).
    const programId = program.json().data.id as number;
    const attemptsUrl = `/api/academy/programs/${programId}/attempts/`;
    const started = await call('startAttempts', {
      url: attemptsUrl,
      headers: teacher.headers,
      payload: { user_ids: [trader.userId] },
    });
    expect(started.statusCode).toBe(201);
    expect((await call('startAttempts', { url: attemptsUrl, headers: teacher.headers, payload: {} })).statusCode).toBe(400);
    const challengeAccount = started.json().data.started[0].account_id as number;
    expect((await call('challengeMeter', { headers, query: { account: String(challengeAccount) } })).statusCode).toBe(200);
    expect((await call('challengeMeter', { headers })).statusCode).toBe(404);
    expect((await call('listAttempts', { url: attemptsUrl, headers: teacher.headers })).json().data).toHaveLength(1);
    expect((await call('listAttempts', { url: attemptsUrl, headers })).statusCode).toBe(403);
    const selfStart = `/api/trading/programs/${programId}/attempts/`;
    // Self-start is off for this program; on, the student's attempt is already under way.
    expect((await call('selfStartAttempt', { url: selfStart, headers })).statusCode).toBe(403);
    const allowed = await call('updateProgram', {
      url: `/api/academy/programs/${programId}/`,
      headers: teacher.headers,
      payload: { allow_self_start: true },
    });
    expect(allowed.statusCode).toBe(200);
    expect((await call('selfStartAttempt', { url: selfStart, headers })).statusCode).toBe(409);
    expect((await call('selfStartAttempt', { url: '/api/trading/programs/999999/attempts/', headers })).statusCode).toBe(404);
    const openProgram = await call('createProgram', {
      url: programs,
      headers: teacher.headers,
      payload: {
        name: 'Open challenge',
        initial_balance: 5000,
        leverage: 30,
        allow_self_start: true,
        phases: [{ name: 'Phase 1', profit_target_pct: 8, max_loss_pct: 10 }],
      },
    });
    expect(
      (await call('selfStartAttempt', { url: `/api/trading/programs/${openProgram.json().data.id}/attempts/`, headers }))
        .statusCode,
    ).toBe(201);
    const programUrl = `/api/academy/programs/${program.json().data.id}/`;
    expect(
      (await call('updateProgram', { url: programUrl, headers: teacher.headers, payload: { status: 'archived' } })).statusCode,
    ).toBe(200);
    expect((await call('updateProgram', { url: programUrl, headers: teacher.headers, payload: {} })).statusCode).toBe(400);
    expect((await call('updateProgram', { url: programUrl, headers, payload: { name: 'x' } })).statusCode).toBe(403);
    expect(
      (await call('updateProgram', { url: '/api/academy/programs/999999/', headers: teacher.headers, payload: { name: 'x' } }))
        .statusCode,
    ).toBe(404);

    const reset = await call('resetStudent', {
      url: `${student}/reset/`,
      headers: { ...teacher.headers, 'idempotency-key': 'openapi-reset-1' },
    });
    expect(reset.statusCode).toBe(200);

    // The chart tools: drawings (and the instructor's read of them), the layout, position size (docs/charting.md).
    const drawing = await call('createDrawing', {
      headers,
      payload: {
        symbol: 'EURUSD',
        kind: 'trend',
        points: [
          { time: 1, price: 1.08 },
          { time: 2, price: 1.09 },
        ],
        color: '#1f77b4',
      },
    });
    expect(drawing.statusCode).toBe(201);
    const drawingUrl = `/api/trading/drawings/${drawing.json().data.id}/`;
    expect(
      (await call('createDrawing', { headers, payload: { symbol: 'XAUUSD', kind: 'hline', points: [{ time: 1, price: 2 }] } }))
        .statusCode,
    ).toBe(404);
    expect((await call('listDrawings', { headers, query: { symbol: 'EURUSD' } })).json().data).toHaveLength(1);
    expect((await call('updateDrawing', { url: drawingUrl, headers, payload: { text: 'Trend' } })).statusCode).toBe(200);
    expect(
      (await call('updateDrawing', { url: drawingUrl, headers, payload: { points: [{ time: 1, price: 1 }] } })).statusCode,
    ).toBe(400);
    expect(
      (await call('studentDrawings', { url: `${student}/drawings/`, headers: teacher.headers, query: { symbol: 'EURUSD' } }))
        .statusCode,
    ).toBe(200);
    expect(
      (await call('studentDrawings', { url: `${student}/drawings/`, headers, query: { symbol: 'EURUSD' } })).statusCode,
    ).toBe(403);
    expect((await call('deleteDrawing', { url: drawingUrl, headers })).statusCode).toBe(200);
    expect((await call('deleteDrawing', { url: drawingUrl, headers })).statusCode).toBe(404);
    expect((await call('getChartLayout', { headers })).statusCode).toBe(200);
    expect(
      (await call('saveChartLayout', { headers, payload: { layout: 1, charts: [{ symbol: 'GBPUSD', timeframe: 'm5' }] } }))
        .statusCode,
    ).toBe(200);
    expect((await call('saveChartLayout', { headers, payload: { layout: 2, charts: [] } })).statusCode).toBe(400);
    expect(
      (await call('positionSize', { headers, query: { symbol: 'EURUSD', risk_pct: '1', stop_pips: '20' } })).statusCode,
    ).toBe(200);
    expect(
      (await call('positionSize', { headers, query: { symbol: 'EURUSD', risk_pct: '0', stop_pips: '20' } })).statusCode,
    ).toBe(400);
    // Price alerts (docs/charting.md#alerts); far from the market, so none fires.
    const priceAlert = await call('createAlert', { headers, payload: { symbol: 'EURUSD', condition: 'bid_above', price: 1.5 } });
    expect(priceAlert.statusCode).toBe(201);
    const alertUrl = `/api/trading/alerts/${priceAlert.json().data.alert.id}/`;
    expect(
      (await call('createAlert', { headers, payload: { symbol: 'XAUUSD', condition: 'bid_above', price: 1 } })).statusCode,
    ).toBe(404);
    expect((await call('listAlerts', { headers, query: { status: 'ACTIVE' } })).json().data).toHaveLength(1);
    expect((await call('updateAlert', { url: alertUrl, headers, payload: { note: 'Breakout' } })).statusCode).toBe(200);
    expect((await call('updateAlert', { url: alertUrl, headers, payload: { price: 1.123456 } })).statusCode).toBe(400);
    expect((await call('deleteAlert', { url: alertUrl, headers })).statusCode).toBe(200);
    expect((await call('deleteAlert', { url: alertUrl, headers })).statusCode).toBe(404);

    // A replay session (docs/replay.md#sessions-and-their-calls): the pairs with data, created, listed, moved, ended.
    expect((await call('replayData', { headers })).statusCode).toBe(200);
    const replay = await call('createReplay', { headers, payload: { symbols: ['EURUSD'], start: '2023-04-04T07:00:00Z' } });
    expect(replay.statusCode).toBe(201);
    const replayUrl = `/api/trading/replays/${replay.json().data.replay.id}/`;
    expect(
      (await call('createReplay', { headers, payload: { symbols: ['EURUSD'], start: '2022-01-01T00:00:00Z' } })).statusCode,
    ).toBe(400);
    expect((await call('listReplays', { headers })).statusCode).toBe(200);
    expect((await call('getReplay', { url: replayUrl, headers })).statusCode).toBe(200);
    expect((await call('stepReplay', { url: `${replayUrl}step/`, headers, payload: { minutes: 5 } })).statusCode).toBe(200);
    expect(
      (await call('seekReplay', { url: `${replayUrl}seek/`, headers, payload: { to: '2023-04-04T08:00:00Z' } })).statusCode,
    ).toBe(200);
    expect((await call('playReplay', { url: `${replayUrl}play/`, headers, payload: { speed: 60 } })).statusCode).toBe(200);
    expect((await call('pauseReplay', { url: `${replayUrl}pause/`, headers })).statusCode).toBe(200);
    const studentReplays = await call('studentReplays', { url: `${student}/replays/`, headers: teacher.headers });
    expect(studentReplays.json().data.replays).toHaveLength(1);
    expect((await call('studentReplays', { url: `${student}/replays/`, headers })).statusCode).toBe(403);
    expect((await call('deleteReplay', { url: replayUrl, headers })).statusCode).toBe(200);
    expect((await call('getReplay', { url: replayUrl, headers })).statusCode).toBe(404);

    // The academy's cohorts, instructors and members, and the password change (docs/academy.md).
    const admin = await signedInWithRole(t, 'admin');
    expect((await call('academyMe', { headers: admin.headers })).statusCode).toBe(200);
    const cohort = await call('createCohort', {
      headers: admin.headers,
      payload: { name: 'Documented', starting_balance: 2500.5, leverage: 30, starts_at: '2027-01-04' },
    });
    expect(cohort.statusCode).toBe(201);
    const cohortUrl = `/api/academy/cohorts/${cohort.json().data.id}/`;
    expect((await call('createCohort', { headers, payload: { name: 'x' } })).statusCode).toBe(403);
    expect((await call('listCohorts', { headers: admin.headers })).statusCode).toBe(200);
    expect(
      (await call('updateCohort', { url: cohortUrl, headers: admin.headers, payload: { allow_self_reset: true } })).statusCode,
    ).toBe(200);
    expect(
      (await call('updateCohort', { url: '/api/academy/cohorts/999999/', headers: admin.headers, payload: { name: 'x' } }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await call('addCohortInstructor', {
          url: `${cohortUrl}instructors/`,
          headers: admin.headers,
          payload: { email: teacher.email },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await call('removeCohortInstructor', {
          url: `${cohortUrl}instructors/`,
          headers: admin.headers,
          payload: { email: teacher.email },
        })
      ).statusCode,
    ).toBe(200);
    const imported = await call('importCohortMembers', {
      url: `${cohortUrl}members/`,
      headers: admin.headers,
      payload: { students: [{ email: `documented.${process.pid}@example.com`, full_name: 'Doc U. Mented' }, { email: 'bad' }] },
    });
    expect(imported.statusCode).toBe(200);
    const importedId = imported.json().data.created[0].user_id as number;
    expect(
      (await call('removeCohortMember', { url: `${cohortUrl}members/${importedId}/`, headers: admin.headers })).statusCode,
    ).toBe(200);
    expect((await call('removeCohortMember', { url: `${cohortUrl}members/${importedId}/`, headers })).statusCode).toBe(403);
    expect(
      (
        await call('changePassword', {
          headers: admin.headers,
          payload: { current_password: admin.password, new_password: 'a new admin password' },
        })
      ).statusCode,
    ).toBe(200);

    // News, health, demo, the document itself.
    expect((await call('news', { headers, query: { limit: '5' } })).statusCode).toBe(200);
    expect((await call('tradingNews', { headers, query: { pairs: 'EURUSD,GBPUSD', limit: '5' } })).statusCode).toBe(200);
    expect((await call('clearNewsCache', { headers, payload: { type: 'all' } })).statusCode).toBe(200);
    // Readiness wants a price younger than 10 s; the calls above may take longer on a loaded
    // machine, so tick again before the health calls, whose 200 the last check below requires.
    for (const [symbol, bid, ask] of [
      ['EURUSD', 1.085, 1.0851],
      ['GBPUSD', 1.27, 1.2701],
      ['USDJPY', 150, 150.01],
    ] as const) {
      prices.push({ symbol, bid, ask, timestamp: Date.now() });
    }
    await expect.poll(async () => (await call('health')).statusCode, { timeout: 15_000 }).toBe(200);
    expect((await call('healthLive')).statusCode).toBe(200);
    expect((await call('healthReady')).statusCode).toBe(200);
    for (const op of API_OPERATIONS.filter((o) => o.tag === 'demo')) {
      expect((await call(op.operationId, { url: op.path.replace(':id', '1'), headers })).statusCode).toBe(400);
    }
    expect((await call('openapi')).statusCode).toBe(200);
    expect((await call('docsPage')).statusCode).toBe(200);

    // The session ends last.
    const refreshed = await call('refresh', { payload: { refresh: session.refresh } });
    expect(refreshed.statusCode).toBe(200);
    expect((await call('refresh', { payload: { refresh: session.refresh } })).statusCode).toBe(401);
    expect((await call('logout', { headers, payload: { refresh: refreshed.json().data.refresh } })).statusCode).toBe(200);

    // Every operation was called and answered at least once with its first documented status.
    for (const op of API_OPERATIONS) {
      const first = Math.min(...Object.keys(answersOf(op)).map(Number));
      expect([...(seen.get(op.operationId) ?? [])], `${op.method} ${op.path} never answered ${first}`).toContain(first);
    }
  });
});
