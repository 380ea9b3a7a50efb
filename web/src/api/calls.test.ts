import { defineOperation, ops } from '@pipdesk/contract';
import ts from 'typescript';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ApiClient } from './client';
import { TokenStore } from './tokens';

// Every call is declared once, in the contract (docs/api.md#how-a-call-is-declared): the web
// calls `api.call(ops.x, input)` and names no path. These tests keep it so.

// ------------------------------------------------------------------ no path strings in feature code

/** How a path of the API starts, under the client's base or with it. */
const API_PREFIXES = ['/api/', '/trading/', '/auth/', '/academy/', '/news/', '/demo/', '/health/'];
/** The client's methods (and those it had), `fetch` beside them. */
const CLIENT_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'request', 'download', 'call', 'downloadCall']);
/** The client's methods that take a path: feature code goes through `call` / `downloadCall` instead. */
const PATH_METHODS = new Set(['request', 'download']);
/** What the client is called in feature code (`api`, `this.api`, `this.client`, `client`). */
const CLIENT_NAME = /(^|\.)(api|client)$/;

const isApiPath = (text: string) => API_PREFIXES.some((prefix) => text.startsWith(prefix));

/**
 * The places in a source file that call the client (or `fetch`) with a path of the API: a string
 * or template literal starting like one, also through a local constant (`${base}/me/`), and any
 * call of the client's path-taking methods whatever it passes. Links and routes are not calls of
 * the client and are left alone.
 */
function pathCalls(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(
    fileName,
    source,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const constants = new Map<string, ts.Expression>();
  const collect = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer)
      constants.set(node.name.text, node.initializer);
    ts.forEachChild(node, collect);
  };
  collect(file);

  /** The text an expression starts with, as far as it can be read without running it. */
  const leadingText = (node: ts.Expression, seen = new Set<string>()): string => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isTemplateExpression(node)) {
      const [first] = node.templateSpans;
      return node.head.text === '' && first ? leadingText(first.expression, seen) + first.literal.text : node.head.text;
    }
    if (ts.isIdentifier(node)) {
      const value = constants.get(node.text);
      if (!value || seen.has(node.text)) return '';
      return leadingText(value, new Set([...seen, node.text]));
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = leadingText(node.left, seen);
      return ts.isStringLiteral(node.right) ? left + node.right.text : left;
    }
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node))
      return leadingText(node.expression, seen);
    return '';
  };

  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const method = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : '';
      const receiver = ts.isPropertyAccessExpression(callee) ? callee.expression.getText(file) : '';
      const [first] = node.arguments;
      const where = () =>
        `${fileName}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: ${node.getText(file).split('\n')[0]}`;
      if ((CLIENT_METHODS.has(method) && receiver !== '') || method === 'fetch') {
        if (first && isApiPath(leadingText(first))) found.push(where());
        else if (PATH_METHODS.has(method) && CLIENT_NAME.test(receiver)) found.push(where());
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The web's own code that calls the server: screens, sign-in, the app shell, the sockets (tests left out). */
const sources = import.meta.glob<string>(
  [
    '../features/**/*.{ts,tsx}',
    '../auth/**/*.{ts,tsx}',
    '../app/**/*.{ts,tsx}',
    '../realtime/**/*.{ts,tsx}',
    '!../**/*.test.{ts,tsx}',
  ],
  { query: '?raw', import: 'default', eager: true },
);

describe('feature code names no path of the API', () => {
  it('reads the sources of features/, auth/, app/ and realtime/', () => {
    const names = Object.keys(sources);
    expect(names).toContain('../features/trading/queries.ts');
    expect(names).toContain('../auth/session.ts');
    expect(names.some((n) => n.startsWith('../app/'))).toBe(true);
    expect(names.some((n) => n.endsWith('.test.ts') || n.endsWith('.test.tsx'))).toBe(false);
    for (const text of Object.values(sources)) expect(typeof text).toBe('string');
  });

  it('calls the client only with a contract entry: api.call(ops.x, input) / api.downloadCall', () => {
    const found = Object.entries(sources).flatMap(([name, text]) => pathCalls(name.replace(/^\.\.\//, 'web/src/'), text));
    expect(found).toEqual([]);
  });

  it('the check finds a path however it is written, and leaves links and other calls alone', () => {
    // The snippets are source text: their `${…}` is the code's, not this file's.
    // biome-ignore-start lint/suspicious/noTemplateCurlyInString: source text under test
    const flagged = [
      "api.get('/trading/platform-data/', platformDataSchema, { signal });",
      "api.post('/auth/change-password/', body, changePasswordResponseSchema);",
      'api.request(`/trading/orders/${orderId}/`, { method: "PATCH", body, schema });',
      "const base = '/academy';\napi.get(`${base}/me/`, academyMeSchema);",
      "const PATH = '/trading/orders/export.csv';\napi.download(PATH, { accept: 'text/csv' });",
      "this.client.request('/demo/account/status/', { method: 'GET', schema: anyAnswer });",
      "this.api.get('/auth/me/', userSchema);",
      "api.request(pathOf(thing), { method: 'GET', schema });",
      "fetch('/api/health/');",
      "api.call('/news/' as never);",
    ];
    for (const source of flagged) expect(pathCalls('x.ts', source), source).toHaveLength(1);
    const allowed = [
      'api.call(ops.platformData, {}, { signal });',
      'api.call(ops.chartData, { params: { symbol }, query: { range } }, { signal });',
      'api.downloadCall(ops.exportOrders, { query });',
      'const link = <Link to={`/academy/cohorts/${c.id}`}>{c.name}</Link>;',
      "navigate('/academy/students/1');",
      'cells.current.get(`${last.id}:${last.field}`)?.focus();',
      "const change = { kind: 'order', path: `/trading/orders/${id}/`, body };",
      "navigator.locks.request('pipdesk-token-refresh', fn);",
    ];
    // biome-ignore-end lint/suspicious/noTemplateCurlyInString: source text under test
    for (const source of allowed) expect(pathCalls('x.tsx', source), source).toEqual([]);
  });
});

// ------------------------------------------------------------------ area maps, not the aggregate

/** The web's own code that names contract entries, the client included (tests left out). */
const callerSources = import.meta.glob<string>(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}', '!../test/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

/** The contract's names this source imports (by their exported name, whatever it calls them). */
function contractImports(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX);
  return file.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return [];
    if (statement.moduleSpecifier.text !== '@pipdesk/contract') return [];
    const bindings = statement.importClause?.namedBindings;
    if (!bindings) return [];
    if (ts.isNamespaceImport(bindings)) return ['*'];
    return bindings.elements.map((element) => (element.propertyName ?? element.name).text);
  });
}

describe('the web names calls through their area maps', () => {
  // `ops` names every call, so importing it brings every area's schemas into that screen's bundle;
  // `tradingOperations.platformData` brings trading's only (docs/decisions.md, code splitting).
  it('imports neither the aggregate `ops` nor `API_OPERATIONS` (nor the whole contract) outside tests', () => {
    expect(Object.keys(callerSources)).toContain('./client.ts');
    const found = Object.entries(callerSources).flatMap(([name, text]) =>
      contractImports(name, text)
        .filter((imported) => ['ops', 'API_OPERATIONS', '*'].includes(imported))
        .map((imported) => `${name}: ${imported}`),
    );
    expect(found).toEqual([]);
  });

  it('reads an aliased area map as allowed and the aggregate as not', () => {
    expect(contractImports('x.ts', "import { chartingOperations as ops, type Alert } from '@pipdesk/contract';")).toEqual([
      'chartingOperations',
      'Alert',
    ]);
    expect(contractImports('x.ts', "import { ops as calls } from '@pipdesk/contract';")).toEqual(['ops']);
  });
});

// ------------------------------------------------------------------ api.call

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const entry = {
  operationId: 'testCall',
  summary: 'A call of these tests',
  tag: 'test',
  auth: true,
} as const;

/** A call with every part of a request: a row id, another path value, a query and a body. */
const moveThing = defineOperation({
  ...entry,
  method: 'PATCH',
  path: '/api/desks/:deskId/things/:name/',
  writes: true,
  ids: { deskId: 'order' },
  params: z.object({ name: z.string() }),
  query: z.object({ at: z.string(), note: z.string().optional(), page: z.string().optional() }),
  body: { schema: z.object({ price: z.number() }), required: true },
  idempotent: true,
  ok: { status: 200, description: 'The thing.', data: z.object({ moved: z.boolean() }) },
});

/** A call whose answer is its data at the top level (the spec's page shapes). */
const listThings = defineOperation({
  ...entry,
  method: 'GET',
  path: '/api/things/',
  writes: false,
  ok: { status: 200, description: 'The page.', data: z.object({ count: z.number() }), envelope: false },
});

describe('api.call builds the request from the entry', () => {
  let sent: Sent[];
  let reply: unknown;
  let client: ApiClient;

  beforeEach(() => {
    sent = [];
    reply = { success: true, data: { moved: true } };
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
        sent.push({
          url: String(input),
          method: init.method ?? 'GET',
          headers: Object.fromEntries(new Headers(init.headers).entries()),
          body: typeof init.body === 'string' ? init.body : undefined,
        });
        return new Response(typeof reply === 'string' ? reply : JSON.stringify(reply), { status: 200 });
      }),
    );
    const tokens = new TokenStore();
    tokens.save({ access: 'access-token', refresh: 'refresh-token' });
    client = new ApiClient(tokens);
  });

  it('fills the path (encoded), adds the query, sends the body and the Idempotency-Key, and unwraps the envelope', async () => {
    const data = await client.call(
      moveThing,
      {
        ids: { deskId: 7 },
        params: { name: 'EUR/USD & co' },
        query: { at: '2026-04-01T12:00:00Z', note: '', page: undefined },
        body: { price: 1.0842 },
      },
      { idempotencyKey: 'key-1' },
    );
    expect(data).toEqual({ moved: true });
    expect(sent).toHaveLength(1);
    const [call] = sent;
    expect(call?.url).toBe('/api/desks/7/things/EUR%2FUSD%20%26%20co/?at=2026-04-01T12%3A00%3A00Z');
    expect(call?.method).toBe('PATCH');
    expect(call?.body).toBe('{"price":1.0842}');
    expect(call?.headers).toEqual({
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: 'Bearer access-token',
      'idempotency-key': 'key-1',
    });
  });

  it('sends no Idempotency-Key unless given one, and no body (nor Content-Type) when the input has none', async () => {
    reply = { success: true, data: { order: null } };
    await client.call(ops.cancelOrder, { ids: { id: '31' } }, { answer: z.object({ order: z.null() }) });
    expect(sent[0]).toMatchObject({ url: '/api/trading/orders/31/cancel/', method: 'POST', body: undefined });
    expect(sent[0]?.headers).not.toHaveProperty('idempotency-key');
    expect(sent[0]?.headers).not.toHaveProperty('content-type');
  });

  it('the contract entries give the paths the server registers', async () => {
    reply = { success: true, data: [] };
    await client.call(ops.chartData, { params: { symbol: 'EURUSD' }, query: { range: '24h' } });
    reply = { count: 0, next: null, previous: null, results: [] };
    await client.call(ops.listOrders, { query: { status: 'FILLED', side: '', page: 2 } });
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /api/trading/pair/EURUSD/chart-data/?range=24h',
      'GET /api/trading/orders/?status=FILLED&page=2',
    ]);
  });

  it('reads an entry without the envelope as it comes, and refuses the envelope there', async () => {
    reply = { count: 3 };
    await expect(client.call(listThings)).resolves.toEqual({ count: 3 });
    reply = { success: true, data: { count: 3 } };
    await expect(client.call(listThings)).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
  });

  it("refuses an answer that is not the envelope the entry's data comes in", async () => {
    reply = { moved: true };
    const input = { ids: { deskId: 1 }, params: { name: 'x' }, body: { price: 1 } };
    await expect(client.call(moveThing, input)).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
    reply = { success: true, data: { moved: 'yes' } };
    await expect(client.call(moveThing, input)).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
  });

  it("downloadCall GETs the entry's path with its query, accepting the entry's content type", async () => {
    reply = 'id,symbol\r\n';
    const blob = await client.downloadCall(ops.exportOrders, { query: { status: 'FILLED', page: null } });
    expect(await blob.text()).toBe('id,symbol\r\n');
    expect(sent[0]).toMatchObject({ url: '/api/trading/orders/export.csv?status=FILLED', method: 'GET' });
    expect(sent[0]?.headers.accept).toBe('text/csv');
  });
});
