import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { addTrader, signedInTrader } from '../test/traders.js';

/** Every answer, error or not: the envelope's failure shape and the security headers. */
function expectFailureEnvelope(res: { statusCode: number; headers: Record<string, unknown>; body: string }, what: string) {
  expect(res.statusCode, what).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, what).toBeLessThan(500);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body.success, what).toBe(false);
  expect(typeof body.error, what).toBe('string');
  expect(typeof body.code, what).toBe('string');
  expect(res.headers['content-security-policy'], what).toContain("object-src 'none'");
  expect(res.headers['x-content-type-options'], what).toBe('nosniff');
  expect(res.body, what).not.toMatch(/\bat .+\.(ts|js):\d+|node_modules|stack/i);
}

describe('hostile input never gets a 500, a foreign shape or a stack trace', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp({ env: { LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000', LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' } });
    // Added before the first request: Fastify takes no routes once it is ready.
    t.app.get('/api/test-only/throws/', async () => {
      throw new Error('secret internals at /srv/pipdesk/server/src/x.ts:12:3');
    });
    t.app.get('/api/test-only/throws-null/', async () => {
      throw null;
    });
    headers = (await signedInTrader(t)).headers;
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a malformed URL with the envelope and the security headers', async () => {
    for (const url of ['/api/%ZZ/', '/api/news/%E0%A4%A/', '/api/demo/position/%ZZ/close/', '/%ZZ']) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expectFailureEnvelope(res, url);
      expect(res.statusCode).toBe(400);
    }
  });

  it('bodies of the wrong kind on every JSON call of sign-in, news and demo are 4xx', async () => {
    const bodies: Array<[string, string]> = [
      ['application/json', '[]'],
      ['application/json', '[{"email":"a@example.com","password":"whatever-123"}]'],
      ['application/json', '"a string"'],
      ['application/json', '1e400'],
      ['application/json', '{"email":1e400,"password":"whatever-123"}'],
      ['application/json', '{"email":null,"password":null,"refresh":null,"type":null}'],
      ['application/json', '{"email":{"$ne":""},"password":{"$gt":""},"refresh":["x"],"type":["all"]}'],
      ['application/json', '{"__proto__":{"admin":true},"email":"a@example.com","password":"whatever-123"}'],
      ['application/json', '{"constructor":{"prototype":{"admin":true}}}'],
      ['application/json', '{"email":"a@example.com"'],
      ['application/json', ''],
      ['text/plain', 'email=a@example.com'],
      ['application/x-www-form-urlencoded', 'email=a@example.com&password=whatever-123'],
      ['multipart/form-data; boundary=x', '--x--'],
    ];
    const calls = [
      { url: '/api/auth/login/', auth: false },
      { url: '/api/auth/refresh/', auth: false },
      { url: '/api/news/clear-cache/', auth: true },
      { url: '/api/demo/account/create/', auth: true },
    ];
    for (const call of calls) {
      for (const [type, payload] of bodies) {
        const res = await t.app.inject({
          method: 'POST',
          url: call.url,
          headers: { 'content-type': type, ...(call.auth ? headers : {}) },
          payload,
        });
        expectFailureEnvelope(res, `${call.url} ${type} ${payload}`);
      }
    }
    // Logout ignores what it cannot use, but a body it cannot read is still a 4xx, not a 500.
    for (const [type, payload] of bodies.filter(([, p]) => p !== '' && !p.startsWith('{"email":null'))) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout/', headers: { 'content-type': type }, payload });
      if (res.statusCode !== 200) expectFailureEnvelope(res, `logout ${type} ${payload}`);
    }
  });

  it('repeated, unknown, huge and odd query parameters of the news calls are 400 naming the field', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/api/news/?limit=5&limit=6', /^limit: /],
      ['/api/news/?limit=99999999999999999999999', /^limit: /],
      ['/api/news/?limit=-1', /^limit: /],
      ['/api/news/?limit=1e2', /^limit: /],
      ['/api/news/?refresh=maybe', /^refresh: /],
      ['/api/news/?refresh=true&refresh=false', /^refresh: /],
      ['/api/news/?admin=1', /^Unknown field: admin/],
      ['/api/news/?__proto__=1', /^Unknown field: __proto__/],
      ['/api/news/trading/?pairs=EURUSD&pairs=GBPUSD', /^pairs: /],
      ['/api/news/trading/?pairs=__proto__', /^pairs: /],
      ['/api/news/trading/?pairs=constructor,toString', /^pairs: /],
      [`/api/news/trading/?pairs=${'EURUSD,'.repeat(80)}`, /^pairs: /],
      ['/api/news/trading/?limit=0', /^limit: /],
    ];
    for (const [url, message] of cases) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expectFailureEnvelope(res, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toMatch(message);
    }
  });

  it('odd Authorization headers are 401, never 500', async () => {
    for (const authorization of [
      `Bearer ${'a'.repeat(20_000)}`,
      'Bearer a.b.c',
      'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.',
      'Basic ZGVtbzpkZW1v',
      'Bearer ',
      'Bearer \u0000',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization } });
      expectFailureEnvelope(res, authorization.slice(0, 40));
      expect(res.statusCode).toBe(401);
    }
  });

  it('an unexpected failure is a plain 500 without its message or stack', async () => {
    for (const url of ['/api/test-only/throws/', '/api/test-only/throws-null/']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ success: false, error: 'Internal server error', code: 'INTERNAL' });
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });
});

describe('the log never holds a password or a token', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestApp({ listen: true, logger: true, logStream: sink, env: { LOG_LEVEL: 'trace' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('after a failed sign-in, a sign-in, a refresh, a reused refresh, authenticated calls, a socket and a logout', async () => {
    const trader = await addTrader(t, { password: 'Pw-that-must-never-be-logged-7' });
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login/',
      payload: { email: trader.email, password: 'Wrong-pw-never-logged-either-9' },
    });
    expect(wrong.statusCode).toBe(401);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login/',
      payload: { email: trader.email, password: trader.password },
    });
    expect(login.statusCode).toBe(200);
    const { token, refresh } = login.json().data as { token: string; refresh: string };

    const refreshed = await t.app.inject({ method: 'POST', url: '/api/auth/refresh/', payload: { refresh } });
    expect(refreshed.statusCode).toBe(200);
    const rotated = refreshed.json().data as { access: string; refresh: string };
    // The reuse ends the family; sign in again for the rest.
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/refresh/', payload: { refresh } })).statusCode).toBe(401);
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login/',
      payload: { email: trader.email, password: trader.password },
    });
    const second = again.json().data as { token: string; refresh: string };
    const bearer = { authorization: `Bearer ${second.token}` };
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me/', headers: bearer })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/news/?limit=1', headers: bearer })).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Bearer ${token}` } })).statusCode,
    ).toBe(401);

    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws/trading/`);
    const established = new Promise<void>((resolve, reject) => {
      ws.on('message', (data) => {
        if ((JSON.parse(String(data)) as { type: string }).type === 'connection_established') resolve();
      });
      ws.once('error', reject);
    });
    await new Promise<void>((resolve) => ws.once('open', () => resolve()));
    ws.send(JSON.stringify({ type: 'authenticate', token: second.token }));
    await established;
    ws.send(JSON.stringify({ type: 'authenticate', token: second.refresh, password: trader.password }));
    ws.close();

    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout/',
      headers: bearer,
      payload: { refresh: second.refresh },
    });
    expect(logout.statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 200));

    const log = lines.join('\n');
    // The log is really captured: the requests are in it.
    expect(log).toContain('/api/auth/login/');
    expect(log).toContain('/api/auth/refresh/');
    expect(log).toContain('/api/auth/me/');
    const secrets = {
      password: trader.password,
      wrongPassword: 'Wrong-pw-never-logged-either-9',
      token,
      refresh,
      rotatedAccess: rotated.access,
      rotatedRefresh: rotated.refresh,
      secondAccess: second.token,
      secondRefresh: second.refresh,
    };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(log.includes(secret), `${name} is in the log`).toBe(false);
      // A token's signature alone is enough to be a leak.
      const signature = secret.split('.')[2];
      if (signature) expect(log.includes(signature), `${name}'s signature is in the log`).toBe(false);
    }
  });
});
