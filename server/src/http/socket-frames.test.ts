import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import {
  afterQueuedWrites,
  FrameOutbox,
  framePayloads,
  textFrame,
  textFrames,
  WAITING_WRITES_PER_TURN,
} from './socket-frames.js';

/** A real ws server and client; resolves with the server's side of the connection. */
async function connected(): Promise<{ server: WebSocket; client: WebSocket; received: string[]; wss: WebSocketServer }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const port = (wss.address() as { port: number }).port;
  const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  const received: string[] = [];
  client.on('message', (data, isBinary) => {
    expect(isBinary).toBe(false);
    received.push(String(data));
  });
  await new Promise<void>((resolve, reject) => {
    client.once('open', () => resolve());
    client.once('error', reject);
  });
  return { server: await serverSide, client, received, wss };
}

/**
 * An open socket whose TCP stream records what is written to it, for counting writes over many
 * sockets without opening them (the real-socket tests above show what such a write carries).
 */
function recordingSocket(): { socket: WebSocket; writes: string[] } {
  const writes: string[] = [];
  const raw = { writable: true, writableLength: 0, write: (chunk: Buffer) => writes.push(String(chunk)) > 0 };
  const socket = { _socket: raw, extensions: '', readyState: 1, OPEN: 1, bufferedAmount: 0 } as unknown as WebSocket;
  return { socket, writes };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('socket frames', () => {
  const open: Array<{ client: WebSocket; wss: WebSocketServer }> = [];
  afterEach(async () => {
    for (const { client, wss } of open.splice(0)) {
      client.terminate();
      await new Promise((r) => wss.close(r));
    }
  });

  it('a client reads each payload of every length form (7-bit, 16-bit, 64-bit), in order', async () => {
    const c = await connected();
    open.push(c);
    const payloads = ['{"a":1}', 'é'.repeat(100), 'x'.repeat(70_000), ''];
    const outbox = new FrameOutbox(c.server);
    outbox.push(textFrames(payloads.slice(0, 2)));
    outbox.push(textFrame(payloads[2]!));
    outbox.push(textFrame(payloads[3]!));
    await until(() => c.received.length === 4);
    expect(c.received).toEqual(payloads);
  });

  it('frames pushed in one event-loop turn leave in one write', async () => {
    const c = await connected();
    open.push(c);
    const raw = (c.server as unknown as { _socket: { write: (...a: unknown[]) => boolean } })._socket;
    const write = raw.write.bind(raw);
    let writes = 0;
    raw.write = (...a: unknown[]) => {
      writes++;
      return write(...a);
    };
    const outbox = new FrameOutbox(c.server);
    for (let i = 0; i < 5; i++) outbox.push(textFrame(`{"n":${i}}`));
    expect(outbox.bufferedBytes).toBeGreaterThan(0);
    await until(() => c.received.length === 5);
    expect(writes).toBe(1);
    outbox.push(textFrame('{"n":5}'));
    await until(() => c.received.length === 6);
    expect(writes).toBe(2);
    expect(c.received.map((m) => JSON.parse(m).n)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('flush writes at once, so a close frame ws writes next comes after what waited', async () => {
    const c = await connected();
    open.push(c);
    const closed = new Promise<number>((resolve) => c.client.once('close', (code) => resolve(code)));
    const outbox = new FrameOutbox(c.server);
    outbox.push(textFrame('{"type":"error"}'));
    outbox.flush();
    c.server.close(4001, 'bye');
    expect(await closed).toBe(4001);
    expect(c.received).toEqual(['{"type":"error"}']);
  });

  it('splits frames laid end to end back into their payloads', () => {
    const payloads = ['a', 'b'.repeat(300), 'c'.repeat(66_000)];
    expect(framePayloads(textFrames(payloads)).map(String)).toEqual(payloads);
  });

  it('frames that can wait leave a slice of sockets per turn, after the frames of the turn', async () => {
    const count = 2 * WAITING_WRITES_PER_TURN + 100;
    const sockets = Array.from({ length: count }, () => recordingSocket());
    const outboxes = sockets.map((s) => new FrameOutbox(s.socket));
    const price = textFrame('{"type":"price_update"}');
    for (const outbox of outboxes) outbox.push(price, { canWait: true });
    const written = () => sockets.filter((s) => s.writes.length > 0).length;
    let last = false;
    afterQueuedWrites(() => {
      last = sockets.every((s) => s.writes.length === 1);
    });
    await nextTurn();
    expect(written()).toBe(WAITING_WRITES_PER_TURN);
    // Between two slices: a frame of this turn for a socket still waiting, and for one that is not.
    const late = outboxes[count - 1]!;
    late.push(textFrame('{"type":"pnl_batch_update"}'));
    const other = recordingSocket();
    new FrameOutbox(other.socket).push(textFrame('{"type":"order_confirmation"}'));
    await nextTurn();
    expect(other.writes).toHaveLength(1);
    // It took the waiting price with it, in order, in one write.
    expect(sockets[count - 1]!.writes).toEqual([`${price}${textFrame('{"type":"pnl_batch_update"}')}`]);
    expect(written()).toBe(2 * WAITING_WRITES_PER_TURN + 1);
    expect(last).toBe(false);
    await nextTurn();
    await nextTurn();
    expect(written()).toBe(count);
    // Every socket got its price once: the one written early was not written again.
    expect(sockets.every((s) => s.writes.length === 1)).toBe(true);
    expect(last).toBe(true);
  });

  it('a frame that can wait joins what a socket already has for this turn', async () => {
    const s = recordingSocket();
    const outbox = new FrameOutbox(s.socket);
    outbox.push(textFrame('{"n":0}'));
    outbox.push(textFrame('{"n":1}'), { canWait: true });
    await nextTurn();
    expect(s.writes).toEqual([`${textFrame('{"n":0}')}${textFrame('{"n":1}')}`]);
  });
});
