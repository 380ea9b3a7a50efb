import { consoleOperations, defineOperation, type HttpMethod, ops, tradingOperations } from '@pipdesk/contract';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DEMO_PASSWORD, DEMO_USER, FakeAuthServer } from '../test/fakeAuthServer';
import { AccountSelection } from './accountSelection';
import { API_LOG_LIMIT, readApiLog } from './apiLog';
import { ApiClient, anyAnswer } from './client';
import { ApiError, NetworkError } from './errors';
import { TokenStore } from './tokens';

/** What the fake server answers a signed-in call it has no handler for: `{success: true, data: {path}}`. */
const okSchema = z.object({ path: z.string() });

/** A call declared as the contract declares them, whose data is the fake server's default answer. */
const testCall = <const M extends HttpMethod, const P extends string>(method: M, path: P) =>
  defineOperation({
    method,
    path,
    operationId: 'testCall',
    summary: 'A call of the client tests',
    tag: 'test',
    auth: true,
    writes: method !== 'GET',
    ok: { status: 200, description: 'Its path.', data: okSchema },
  });

const postThing = defineOperation({
  ...testCall('POST', '/api/trading/thing/'),
  body: { schema: z.object({ quantity: z.number() }), required: true },
});
const privateCall = testCall('GET', '/api/private/');
const namedThing = defineOperation({ ...testCall('GET', '/api/things/:name/'), params: z.object({ name: z.string() }) });
const loggedCall = defineOperation({
  ...testCall('GET', '/api/calls/:n/'),
  params: z.object({ n: z.string() }),
  query: z.object({ page: z.string() }),
});
const wrongShape = defineOperation({
  ...testCall('GET', '/api/thing/'),
  ok: { status: 200, description: '', data: z.object({ balance: z.number() }) },
});
const signIn = { body: { email: DEMO_USER.email, password: DEMO_PASSWORD } };
const FILE = '/api/files/report.csv';
const CSV = 'id,symbol\r\n7,EURUSD\r\n';

describe('ApiClient', () => {
  let server: FakeAuthServer;
  let tokens: TokenStore;
  let client: ApiClient;
  let sessionEnded: ReturnType<typeof vi.fn<() => void>>;

  beforeEach(() => {
    server = new FakeAuthServer().install();
    tokens = new TokenStore();
    client = new ApiClient(tokens);
    sessionEnded = vi.fn<() => void>();
    client.onSessionEnded(sessionEnded);
  });

  it('sends JSON with the stored bearer token and returns the typed data', async () => {
    const { access } = server.signedInBefore();
    const data = await client.call(postThing, { body: { quantity: 0.1 } });
    expect(data).toEqual({ path: '/api/trading/thing/' });
    const [call] = server.calls;
    expect(call).toMatchObject({
      method: 'POST',
      authorization: `Bearer ${access}`,
      contentType: 'application/json',
      body: { quantity: 0.1 },
    });
  });

  it('sends no Authorization header when no token is stored', async () => {
    const data = await client.call(ops.login, signIn, { renewOn401: false });
    expect(data.user).toEqual(DEMO_USER);
    expect(server.calls[0]).toMatchObject({ method: 'POST', path: '/api/auth/login/', authorization: null });
  });

  it('answers a 401 with one refresh and one retry carrying the new token', async () => {
    const old = server.signedInBefore();
    server.revokeAccessTokens();
    const data = await client.call(ops.platformData, {}, { answer: okSchema });
    expect(data.path).toBe('/api/trading/platform-data/');
    expect(server.calls.map((c) => c.path)).toEqual([
      '/api/trading/platform-data/',
      '/api/auth/refresh/',
      '/api/trading/platform-data/',
    ]);
    expect(server.calls[1]?.body).toEqual({ refresh: old.refresh });
    const renewed = tokens.read();
    expect(renewed.access).not.toBe(old.access);
    expect(renewed.refresh).not.toBe(old.refresh);
    expect(server.calls[2]?.authorization).toBe(`Bearer ${renewed.access}`);
    expect(sessionEnded).not.toHaveBeenCalled();
  });

  it('shares one refresh among concurrent 401s', async () => {
    server.signedInBefore();
    server.revokeAccessTokens();
    const names = ['a', 'b', 'c', 'd', 'e'];
    const paths = names.map((name) => `/things/${name}/`);
    const answers = await Promise.all(names.map((name) => client.call(namedThing, { params: { name } })));
    expect(answers.map((a) => a.path)).toEqual(paths.map((p) => `/api${p}`));
    expect(server.callsTo('/api/auth/refresh/')).toHaveLength(1);
    const access = tokens.read().access;
    for (const p of paths) {
      const [first, retry] = server.callsTo(`/api${p}`);
      expect(first?.authorization).not.toBe(`Bearer ${access}`);
      expect(retry?.authorization).toBe(`Bearer ${access}`);
    }
  });

  it('retries once only: a second 401 clears the tokens and ends the session', async () => {
    server.signedInBefore();
    server.revokeAccessTokens();
    server.script(
      '/api/private/',
      { status: 401, body: { success: false, error: 'nope', code: 'X' } },
      { status: 401, body: {} },
    );
    await expect(client.call(privateCall)).rejects.toMatchObject({ status: 401 });
    expect(server.callsTo('/api/private/')).toHaveLength(2);
    expect(server.callsTo('/api/auth/refresh/')).toHaveLength(1);
    expect(tokens.read()).toEqual({ access: null, refresh: null });
    expect(sessionEnded).toHaveBeenCalledTimes(1);
  });

  it('ends the session without retrying when the refresh is refused', async () => {
    server.signedInBefore();
    server.revokeAccessTokens();
    server.script('/api/auth/refresh/', {
      status: 401,
      body: { success: false, error: 'Session revoked', code: 'INVALID_TOKEN' },
    });
    await expect(client.call(privateCall)).rejects.toBeInstanceOf(ApiError);
    expect(server.callsTo('/api/private/')).toHaveLength(1);
    expect(tokens.read()).toEqual({ access: null, refresh: null });
    expect(sessionEnded).toHaveBeenCalledTimes(1);
  });

  it('keeps the session when the refresh gets no answer', async () => {
    const stored = server.signedInBefore();
    server.revokeAccessTokens();
    server.script('/api/auth/refresh/', 'network-error');
    await expect(client.call(privateCall)).rejects.toBeInstanceOf(NetworkError);
    expect(tokens.read()).toEqual(stored);
    expect(sessionEnded).not.toHaveBeenCalled();
  });

  it('does not renew on a 401 of a call that opts out (the login itself)', async () => {
    await expect(
      client.call(ops.login, { body: { email: 'x@y.z', password: 'wrong-pass' } }, { renewOn401: false }),
    ).rejects.toMatchObject({ status: 401, serverMessage: 'Invalid email or password', code: 'INVALID_CREDENTIALS' });
    expect(server.calls).toHaveLength(1);
    expect(sessionEnded).not.toHaveBeenCalled();
  });

  it("rejects an answer of the wrong shape: the entry's schema, or the narrower one the caller gives", async () => {
    server.signedInBefore();
    await expect(client.call(wrongShape)).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
    await expect(client.call(ops.platformData)).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
    await expect(client.call(privateCall, {}, { answer: z.object({ balance: z.number() }) })).rejects.toMatchObject({
      code: 'BAD_RESPONSE',
    });
  });

  it('turns a refused fetch into a NetworkError carrying its message', async () => {
    server.script('/api/health/', 'network-error');
    await expect(client.call(ops.health)).rejects.toThrow(new NetworkError('Failed to fetch'));
  });

  describe('the selected account (docs/accounts.md#choosing-the-account)', () => {
    let selection: AccountSelection;
    let onAccounts: ApiClient;
    const queryOf = (path: string) => server.callsTo(path).map((c) => c.query);

    beforeEach(() => {
      server.signedInBefore();
      selection = new AccountSelection();
      onAccounts = new ApiClient(tokens, '/api', selection);
    });

    it('names the selected account on a call that takes one, beside its own query', async () => {
      selection.select(7);
      await onAccounts.call(tradingOperations.platformData, {}, { answer: okSchema });
      await onAccounts.call(tradingOperations.listOrders, { query: { status: 'FILLED' } }, { answer: anyAnswer });
      expect(queryOf('/api/trading/platform-data/')).toEqual([{ account: '7' }]);
      expect(queryOf('/api/trading/orders/')).toEqual([{ status: 'FILLED', account: '7' }]);
    });

    it('names no account for the primary one, nor on a call that takes none', async () => {
      await onAccounts.call(tradingOperations.platformData, {}, { answer: okSchema });
      selection.select(7);
      await onAccounts.call(tradingOperations.listAccounts, {}, { answer: anyAnswer });
      await onAccounts.call(ops.health, undefined, { answer: anyAnswer });
      expect(queryOf('/api/trading/platform-data/')).toEqual([{}]);
      expect(queryOf('/api/trading/accounts/')).toEqual([{}]);
      expect(queryOf('/api/health/')).toEqual([{}]);
    });

    it("sends the input's account rather than the selected one", async () => {
      selection.select(7);
      await onAccounts.call(tradingOperations.platformData, { account: 9 }, { answer: okSchema });
      expect(queryOf('/api/trading/platform-data/')).toEqual([{ account: '9' }]);
    });

    it("never names the caller's selected account on a call about another person's account (a student's)", async () => {
      selection.select(7);
      await onAccounts.call(consoleOperations.studentDashboard, { ids: { id: 5 } }, { answer: anyAnswer });
      await onAccounts.call(consoleOperations.studentDashboard, { ids: { id: 5 }, account: 12 }, { answer: anyAnswer });
      expect(queryOf('/api/academy/students/5/')).toEqual([{}, { account: '12' }]);
    });

    it('names the selected account on a file download too', async () => {
      selection.select(7);
      await onAccounts.downloadCall(tradingOperations.exportOrders, { query: { side: 'BUY' } });
      expect(queryOf('/api/trading/orders/export.csv')).toEqual([{ side: 'BUY', account: '7' }]);
    });

    it('reads the selection at each call, so a switch applies to the next call', async () => {
      selection.select(7);
      await onAccounts.call(tradingOperations.platformData, {}, { answer: okSchema });
      selection.select(undefined);
      await onAccounts.call(tradingOperations.platformData, {}, { answer: okSchema });
      expect(queryOf('/api/trading/platform-data/')).toEqual([{ account: '7' }, {}]);
    });
  });

  describe('download', () => {
    /** The file's answer: CSV, which the JSON-speaking fake server cannot give, so it is answered here. */
    let fileReply: (signedIn: boolean) => Response;
    let fileCalls: Array<{ url: URL; accept: string | null; authorization: string | null }>;
    /** Access tokens the file answers 401 to (as after the server forgot them). */
    let revoked: Set<string>;

    beforeEach(() => {
      fileCalls = [];
      revoked = new Set();
      fileReply = (signedIn) =>
        signedIn
          ? new Response(CSV, { status: 200, headers: { 'content-type': 'text/csv' } })
          : new Response(JSON.stringify({ success: false, error: 'Invalid or expired token' }), { status: 401 });
      const json = server.fetch.getMockImplementation()!;
      server.fetch.mockImplementation(async (input: RequestInfo | URL, init: RequestInit = {}) => {
        const url = new URL(String(input), 'http://pipdesk.test');
        if (url.pathname !== FILE) return json(input, init);
        const headers = new Headers(init.headers);
        const authorization = headers.get('authorization');
        fileCalls.push({ url, accept: headers.get('accept'), authorization });
        const token = authorization?.replace(/^Bearer /, '');
        return fileReply(token !== undefined && token === tokens.read().access && !revoked.has(token));
      });
    });

    it('GETs the file with the bearer token, the Accept asked for and the query, and returns its bytes', async () => {
      const { access } = server.signedInBefore();
      const blob = await client.download('/files/report.csv', {
        query: { status: 'FILLED', side: '', page: null },
        accept: 'text/csv',
      });
      expect(await blob.text()).toBe(CSV);
      expect(fileCalls).toHaveLength(1);
      expect(fileCalls[0]!.authorization).toBe(`Bearer ${access}`);
      expect(fileCalls[0]!.accept).toBe('text/csv');
      expect(Object.fromEntries(fileCalls[0]!.url.searchParams)).toEqual({ status: 'FILLED' });
      expect(readApiLog().at(-1)).toMatchObject({ method: 'GET', path: FILE, status: 200 });
    });

    it('answers a 401 with the shared refresh and one retry carrying the new token', async () => {
      const old = server.signedInBefore();
      revoked.add(old.access);
      const blob = await client.download('/files/report.csv');
      expect(await blob.text()).toBe(CSV);
      expect(server.callsTo('/api/auth/refresh/')).toHaveLength(1);
      expect(fileCalls.map((c) => c.authorization)).toEqual([`Bearer ${old.access}`, `Bearer ${tokens.read().access}`]);
      expect(tokens.read().access).not.toBe(old.access);
      expect(sessionEnded).not.toHaveBeenCalled();
    });

    it('ends the session when the retry is refused too', async () => {
      server.signedInBefore();
      fileReply = () => new Response(JSON.stringify({ success: false, error: 'Invalid or expired token' }), { status: 401 });
      await expect(client.download('/files/report.csv')).rejects.toMatchObject({ status: 401 });
      expect(fileCalls).toHaveLength(2);
      expect(sessionEnded).toHaveBeenCalledTimes(1);
      expect(tokens.read().access).toBeNull();
    });

    it("reads a refusal as the JSON envelope: the server's code and text", async () => {
      server.signedInBefore();
      fileReply = () =>
        new Response(JSON.stringify({ success: false, code: 'VALIDATION_ERROR', error: 'date_from must be a date' }), {
          status: 400,
        });
      const failure = await client.download('/files/report.csv').catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(ApiError);
      expect(failure).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', serverMessage: 'date_from must be a date' });
    });
  });
});

describe('API call log', () => {
  it(`keeps the last ${API_LOG_LIMIT} calls with method, path, status and duration`, async () => {
    const server = new FakeAuthServer().install();
    const client = new ApiClient(new TokenStore());
    server.signedInBefore();
    for (let i = 0; i < 130; i++) await client.call(loggedCall, { params: { n: String(i) }, query: { page: String(i) } });
    const log = readApiLog();
    expect(log).toHaveLength(API_LOG_LIMIT);
    expect(log[0]).toMatchObject({ method: 'GET', path: '/api/calls/30/', status: 200 });
    expect(log.at(-1)).toMatchObject({ method: 'GET', path: '/api/calls/129/', status: 200 });
    for (const entry of log) {
      expect(Object.keys(entry).sort()).toEqual(['at', 'duration_ms', 'method', 'path', 'status']);
      expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('never records a token or a password', async () => {
    const server = new FakeAuthServer().install();
    const tokens = new TokenStore();
    const client = new ApiClient(tokens);
    client.onSessionEnded(() => {});
    await client.call(ops.login, signIn, { renewOn401: false });
    const first = server.signedInBefore();
    server.revokeAccessTokens();
    await client.call(privateCall); // 401, refresh, retry
    const raw = sessionStorage.getItem('pipdesk.apiLog') ?? '';
    expect(readApiLog().map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'POST /api/auth/login/ 200',
      'GET /api/private/ 401',
      'POST /api/auth/refresh/ 200',
      'GET /api/private/ 200',
    ]);
    const secrets = [DEMO_PASSWORD, first.access, first.refresh, tokens.read().access!, tokens.read().refresh!];
    for (const secret of secrets) expect(raw).not.toContain(secret);
    expect(raw).not.toMatch(/eyJ/); // no JWT of any kind
  });

  it('records a call that got no answer with status 0', async () => {
    const server = new FakeAuthServer().install();
    server.script('/api/health/', 'network-error');
    await expect(new ApiClient(new TokenStore()).call(ops.health)).rejects.toBeInstanceOf(NetworkError);
    expect(readApiLog()).toMatchObject([{ method: 'GET', path: '/api/health/', status: 0 }]);
  });
});
