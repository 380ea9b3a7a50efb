import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { clientErrorAnswer } from './client-errors.js';

/** Sends raw bytes and reads everything the server writes until it closes the connection. */
function rawExchange(url: string, request: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may close while the request is still being sent: what it answered is what counts.
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(err),
    );
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(request);
  });
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseResponse(raw: string): RawResponse {
  const [head = '', body = ''] = raw.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

function expectEnvelope(res: RawResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toContain('application/json');
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body).toMatchObject({ success: false, code });
  expect(typeof body.error).toBe('string');
}

describe("Node's parser-level errors answer in the envelope with the security headers", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ listen: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a malformed request head is 400 BAD_REQUEST', async () => {
    for (const head of [
      'GARBAGE\r\n\r\n',
      'GET /api/health/ HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /api/health/ HTTP/1.1\r\nHost: x\r\nBad Header Name: y\r\n\r\n',
      'GET /api/health/ HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n',
      'POST /api/auth/login/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
    ]) {
      const res = parseResponse(await rawExchange(t.url, head));
      expectEnvelope(res, 400, 'BAD_REQUEST');
    }
  });

  it('headers over the limit are 431 HEADERS_TOO_LARGE', async () => {
    const huge = `GET /api/health/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`;
    const res = parseResponse(await rawExchange(t.url, huge));
    expectEnvelope(res, 431, 'HEADERS_TOO_LARGE');
  });

  it('a well-formed request on the same server still answers normally', async () => {
    const res = parseResponse(await rawExchange(t.url, 'GET /api/health/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    expect(res.status).toBe(200);
  });

  it('maps the other parser errors as Node does (timeout 408, chunk extensions 413)', () => {
    const of = (code: string) => {
      const answer = clientErrorAnswer(Object.assign(new Error(code), { code }));
      return [answer.status, answer.code];
    };
    expect(of('ERR_HTTP_REQUEST_TIMEOUT')).toEqual([408, 'REQUEST_TIMEOUT']);
    expect(of('HPE_CHUNK_EXTENSIONS_OVERFLOW')).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(of('HPE_INVALID_METHOD')).toEqual([400, 'BAD_REQUEST']);
  });
});
