import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, testDbKind } from './test/helpers.js';

describe('server core', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers health without auth, naming the database kind', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.data.db).toEqual({ kind: testDbKind, ok: true });
    expect(body.data.status).toBe('ok');
  });

  it('sets security headers on every answer', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(res.headers['content-security-policy']).toContain("object-src 'none'");
    expect(res.headers['content-security-policy']).toContain("base-uri 'none'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('answers unknown API paths with a 404 envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nope/' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it('rejects malformed JSON and oversized bodies with 400/413, never 500', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login/',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, error: 'Request body is not valid JSON' });
    const big = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login/',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(t.config.bodyLimitBytes + 10) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ success: false, error: 'Request body is too large' });
  });

  it('requires sign-in for the unused demo calls', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/demo/account/create/' });
    expect(res.statusCode).toBe(401);
  });
});

describe('serving the built app', () => {
  it('answers client-side routes with index.html and keeps API 404s as JSON', async () => {
    const web = mkdtempSync(path.join(tmpdir(), 'pipdesk-web-'));
    mkdirSync(path.join(web, 'assets'));
    writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>Pipdesk</title>');
    writeFileSync(path.join(web, 'assets', 'app-1234.js'), 'console.log(1)');
    const t = await startTestApp({ env: { WEB_DIST: web } });
    try {
      const page = await t.app.inject({ method: 'GET', url: '/pair/EURUSD' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<title>Pipdesk</title>');
      expect(page.headers['cache-control']).toBe('no-cache');
      const asset = await t.app.inject({ method: 'GET', url: '/assets/app-1234.js' });
      expect(asset.headers['cache-control']).toContain('immutable');
      const api = await t.app.inject({ method: 'GET', url: '/api/unknown/' });
      expect(api.statusCode).toBe(404);
      expect(api.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    } finally {
      await t.close();
    }
  });

  describe('transfer (docs/operations.md#transfer)', () => {
    const source = `console.log(${JSON.stringify('x'.repeat(4000))});`;
    let web: string;
    beforeAll(() => {
      web = mkdtempSync(path.join(tmpdir(), 'pipdesk-web-'));
      mkdirSync(path.join(web, 'assets'));
      writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>Pipdesk</title>');
      writeFileSync(path.join(web, 'assets', 'app-1234.js'), source);
      writeFileSync(path.join(web, 'assets', 'app-1234.js.br'), brotliCompressSync(source));
      writeFileSync(path.join(web, 'assets', 'app-1234.js.gz'), gzipSync(source));
      writeFileSync(path.join(web, 'assets', 'app-1234.js.map'), '{"version":3,"sources":["secret.ts"]}');
    });

    it('sends the pre-compressed copy the browser accepts, with Content-Encoding, and the plain file to others', async () => {
      const t = await startTestApp({ env: { WEB_DIST: web } });
      try {
        const br = await t.app.inject({
          method: 'GET',
          url: '/assets/app-1234.js',
          headers: { 'accept-encoding': 'gzip, deflate, br' },
        });
        expect(br.statusCode).toBe(200);
        expect(br.headers['content-encoding']).toBe('br');
        expect(br.headers.vary).toMatch(/accept-encoding/i);
        expect(brotliDecompressSync(br.rawPayload).toString()).toBe(source);
        const gz = await t.app.inject({ method: 'GET', url: '/assets/app-1234.js', headers: { 'accept-encoding': 'gzip' } });
        expect(gz.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(gz.rawPayload).toString()).toBe(source);
        const plain = await t.app.inject({
          method: 'GET',
          url: '/assets/app-1234.js',
          headers: { 'accept-encoding': 'identity' },
        });
        expect(plain.headers['content-encoding']).toBeUndefined();
        expect(plain.body).toBe(source);
      } finally {
        await t.close();
      }
    });

    it('keeps source maps, missing files and /metrics out of the app: 404 in the envelope, unless maps are asked for', async () => {
      const t = await startTestApp({ env: { WEB_DIST: web } });
      try {
        for (const url of ['/assets/app-1234.js.map', '/assets/missing-5678.js', '/metrics']) {
          const res = await t.app.inject({ method: 'GET', url });
          expect(res.statusCode, url).toBe(404);
          expect(res.json(), url).toMatchObject({ success: false, code: 'NOT_FOUND' });
        }
        expect((await t.app.inject({ method: 'GET', url: '/assets/app-1234.js' })).headers.sourcemap).toBeUndefined();
      } finally {
        await t.close();
      }
      const withMaps = await startTestApp({ env: { WEB_DIST: web, SERVE_SOURCEMAPS: 'true' } });
      try {
        const map = await withMaps.app.inject({ method: 'GET', url: '/assets/app-1234.js.map' });
        expect(map.statusCode).toBe(200);
        expect(map.body).toContain('secret.ts');
        expect((await withMaps.app.inject({ method: 'GET', url: '/assets/app-1234.js' })).headers.sourcemap).toBe(
          'app-1234.js.map',
        );
      } finally {
        await withMaps.close();
      }
    });
  });
});
