import { type PricesServerMessage, parsePricesServerMessage } from '@pipdesk/contract';
import WebSocket from 'ws';
import type { TestApp } from './helpers.js';

/** A real `ws` client that records every message and waits for the ones a test expects. */
export class PriceSocketClient {
  readonly messages: PricesServerMessage[] = [];
  readonly raw: string[] = [];
  closed: { code: number; reason: string } | undefined;
  private waiters: Array<() => void> = [];

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const text = data.toString();
      this.raw.push(text);
      const parsed = parsePricesServerMessage(text);
      if (!parsed.ok) throw new Error(`server sent a message outside the contract: ${text} (${parsed.error})`);
      this.messages.push(parsed.message);
      this.wake();
    });
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static async open(t: TestApp, headers: Record<string, string> = {}): Promise<PriceSocketClient> {
    const socket = new WebSocket(`${t.url.replace(/^http/, 'ws')}/ws/prices/`, { headers });
    const client = new PriceSocketClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Waits until `count` messages match, and returns them. */
  async waitFor<T extends PricesServerMessage['type']>(
    type: T,
    match: (m: Extract<PricesServerMessage, { type: T }>) => boolean = () => true,
    count = 1,
    timeoutMs = 4000,
  ): Promise<Array<Extract<PricesServerMessage, { type: T }>>> {
    const found = () =>
      this.messages.filter((m): m is Extract<PricesServerMessage, { type: T }> => m.type === type && match(m as never));
    const deadline = Date.now() + timeoutMs;
    while (found().length < count) {
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${count} × ${type}; got ${JSON.stringify(this.messages).slice(0, 2000)}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return found();
  }

  async waitClosed(timeoutMs = 4000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('socket did not close');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.closed;
  }

  close(): void {
    this.socket.close();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
