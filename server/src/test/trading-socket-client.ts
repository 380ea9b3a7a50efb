import type { TradingServerMessage } from '@pipdesk/contract';
import WebSocket from 'ws';
import type { TestApp } from './helpers.js';

export type Message = TradingServerMessage & Record<string, unknown>;

/** A real `ws` client that records every message with its arrival time. */
export class TradingSocketClient {
  readonly received: Array<{ at: number; message: Message }> = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.received.push({ at: performance.now(), message: JSON.parse(String(data)) as Message });
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static async open(t: TestApp): Promise<TradingSocketClient> {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws/trading/`);
    const client = new TradingSocketClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  /** Opens, authenticates and waits for connection_established. */
  static async signedIn(t: TestApp, token: string, account?: number): Promise<TradingSocketClient> {
    const client = await TradingSocketClient.open(t);
    client.send({ type: 'authenticate', token, ...(account === undefined ? {} : { account }) });
    await client.next('connection_established');
    return client;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** How many messages have arrived so far (to wait only for later ones). */
  mark(): number {
    return this.received.length;
  }

  of<K extends Message['type']>(type: K, from = 0): Array<Extract<Message, { type: K }>> {
    return this.received
      .slice(from)
      .flatMap(({ message }) => (message.type === type ? [message as Extract<Message, { type: K }>] : []));
  }

  /** The first message of `type` (from index `from`) that satisfies `where`. */
  async next<K extends Message['type']>(
    type: K,
    options: { from?: number; where?: (m: Extract<Message, { type: K }>) => boolean; timeoutMs?: number } = {},
  ): Promise<Extract<Message, { type: K }>> {
    const deadline = performance.now() + (options.timeoutMs ?? 5_000);
    for (;;) {
      const found = this.of(type, options.from).find((m) => options.where?.(m) ?? true);
      if (found) return found;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no ${type} message; received: ${this.received.map((r) => r.message.type).join(', ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.ws.close();
  }
}
