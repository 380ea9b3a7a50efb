import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';

/** An echo server as the proxy's target. */
let echo: net.Server;
let echoPort: number;
let proxy: FaultProxy;

beforeEach(async () => {
  echo = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as net.AddressInfo).port;
  proxy = await startFaultProxy({ host: '127.0.0.1', port: echoPort });
});
afterEach(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

interface Conn {
  socket: net.Socket;
  received(): string;
  closed: Promise<void>;
}

/** Connects through the proxy; a refused connection is accepted by TCP, then closed with no byte. */
async function connect(): Promise<Conn> {
  const socket = net.connect(proxy.port, '127.0.0.1');
  let data = '';
  socket.on('data', (chunk) => {
    data += chunk.toString();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, received: () => data, closed };
}

async function roundTrip(conn: Conn, text: string): Promise<void> {
  const before = conn.received().length;
  conn.socket.write(text);
  await expect.poll(() => conn.received().slice(before), { timeout: 5_000 }).toBe(text);
}

describe('fault proxy', () => {
  it('passes bytes both ways', async () => {
    const conn = await connect();
    await roundTrip(conn, 'hello');
    await expect.poll(() => proxy.openConnections()).toBe(1);
    conn.socket.destroy();
  });

  it('cut destroys open connections and refuses new ones until healed', async () => {
    const conn = await connect();
    await roundTrip(conn, 'before');
    proxy.cut();
    await conn.closed;
    expect(proxy.openConnections()).toBe(0);

    const refused = await connect();
    await refused.closed; // accepted at the TCP level, then closed at once with no byte
    expect(refused.received()).toBe('');

    proxy.heal();
    const again = await connect();
    await roundTrip(again, 'after');
    again.socket.destroy();
  });

  it('refuse keeps open connections working but closes new ones', async () => {
    const open = await connect();
    proxy.refuse();
    const refused = await connect();
    await refused.closed;
    await roundTrip(open, 'still here');
    open.socket.destroy();
  });

  it('slow delays each chunk by about the given time', async () => {
    const conn = await connect();
    proxy.slow(150);
    const started = performance.now();
    await roundTrip(conn, 'slow');
    // Two hops (there and back), each delayed; a lower bound only, the machine may be loaded.
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    conn.socket.destroy();
  });

  it('dropMidStream delivers half of the next chunk then closes that connection', async () => {
    const conn = await connect();
    proxy.dropMidStream();
    conn.socket.write('0123456789');
    await conn.closed;
    // The request half reached the echo server, whose answer is cut with the connection.
    expect('0123456789'.startsWith(conn.received())).toBe(true);
    expect(conn.received().length).toBeLessThan(10);
  });
});
