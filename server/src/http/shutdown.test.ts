import net from 'node:net';
import fastifyWebsocket from '@fastify/websocket';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { installErrorHandler } from '../errors.js';
import { installShutdownGuard } from './shutdown.js';

/** A listening app with the guard, one slow call, and an onClose hook that records when "the database" closed. */
async function slowApp() {
  const app = Fastify({ logger: false, return503OnClosing: false, forceCloseConnections: 'idle' });
  installErrorHandler(app);
  const guard = installShutdownGuard(app);
  const events: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let entered!: () => void;
  const inHandler = new Promise<void>((r) => {
    entered = r;
  });
  app.post('/api/slow', async () => {
    entered();
    await released;
    events.push('handler done');
    return { ok: true };
  });
  app.get('/api/fast', async () => ({ ok: true }));
  app.addHook('onClose', async () => {
    events.push(`drained, ${await guard.drained(2_000)} left`);
    events.push('database closed');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, guard, events, release, inHandler, url: `http://127.0.0.1:${port}` };
}

describe('the shutdown guard', () => {
  it('closes the database only after a request whose client went away has finished its work', async () => {
    const { app, events, release, inHandler, url } = await slowApp();
    const abort = new AbortController();
    const call = fetch(`${url}/api/slow`, { method: 'POST', signal: abort.signal }).catch(() => 'aborted');
    await inHandler;
    abort.abort();
    expect(await call).toBe('aborted');
    // The connection is gone, so the listener's close does not wait for the handler: the guard does.
    const closed = app.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual([]);
    release();
    await closed;
    expect(events).toEqual(['handler done', 'drained, 0 left', 'database closed']);
  });

  it('answers a request that arrives once the shutdown began 503 UNAVAILABLE with Retry-After, in the envelope', async () => {
    const { app, guard, release, inHandler, url } = await slowApp();
    // Holds the listener open while the late request comes in.
    const slow = fetch(`${url}/api/slow`, { method: 'POST' });
    await inHandler;
    // A connection busy with a request's first line when the close begins: the close does not cut it.
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    socket.write('GET /api/fast HTTP/1.1\r\n');
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    const late = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise((r) => setTimeout(r, 20));
    const closed = app.close();
    while (!guard.closing()) await new Promise((r) => setTimeout(r, 1));
    socket.write('Host: localhost\r\n\r\n');
    await late;
    const [head = '', body = ''] = received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(head).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(body)).toEqual({
      success: false,
      error: 'The server is shutting down. Try again in 1 second.',
      code: 'UNAVAILABLE',
      details: { retry_after_seconds: 1 },
    });
    release();
    const answer = await slow;
    // Admitted before the shutdown: answered in full, and told to close its connection.
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).toBe('close');
    await closed;
  });

  it('closes open sockets with 1001 (going away)', async () => {
    const app = Fastify({ logger: false, return503OnClosing: false });
    installShutdownGuard(app);
    await app.register(fastifyWebsocket);
    app.get('/ws/test/', { websocket: true }, () => {});
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws/test/`);
    await new Promise((resolve) => socket.once('open', resolve));
    const closedWith = new Promise<[number, string]>((resolve) =>
      socket.once('close', (code, reason) => resolve([code, reason.toString()])),
    );
    await app.close();
    expect(await closedWith).toEqual([1001, 'Server shutting down']);
  });

  it('gives up waiting after the bound and says how many requests were left', async () => {
    const app = Fastify({ logger: false, return503OnClosing: false });
    const guard = installShutdownGuard(app);
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => {
      entered = r;
    });
    app.get('/api/never', async () => {
      entered();
      await new Promise(() => {});
    });
    void app.inject({ method: 'GET', url: '/api/never' });
    await inHandler;
    const started = Date.now();
    expect(await guard.drained(50)).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
