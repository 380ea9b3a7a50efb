import type { CurrentPrices, TradingServerMessage } from '@pipdesk/contract';
import { PriceBoard } from './livePrices';
import { type SocketLike, TradingSocket } from './tradingSocket';

/** docs/screens.md#live-data-and-polling: prices are polled every 5 s until the trading socket is connected. */
export const PRICE_POLL_INTERVAL_MS = 5_000;

export interface LiveTradingOptions {
  socketUrl: string;
  token: () => string | null;
  /** The selected account, read when the trading socket opens (undefined: the primary one). */
  account?: () => number | undefined;
  /** GET trading/current-prices/. */
  fetchPrices: () => Promise<CurrentPrices>;
  createSocket?: (url: string) => SocketLike;
  log?: (message: string, detail?: unknown) => void;
  /** For the reconnect jitter; defaults to Math.random. */
  random?: () => number;
}

export interface LiveListener {
  onConnectedChange?(connected: boolean): void;
  /** The socket stopped trying (prices keep polling) until `retry()`. */
  onGiveUp?(): void;
  /** Every server message (a price_update is already on the board). */
  onMessage?(message: TradingServerMessage): void;
}

/**
 * The signed-in app's live market and account feed: the trading socket when it is up, and
 * a current-prices poll every 5 s while it is not (docs/screens.md#live-data-and-polling). Prices from either land on
 * one `PriceBoard`.
 */
export class LiveTrading {
  readonly prices = new PriceBoard();
  readonly socket: TradingSocket;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private polling = false;
  private running = false;
  private readonly listeners = new Set<LiveListener>();
  private readonly log: (message: string, detail?: unknown) => void;

  constructor(private readonly options: LiveTradingOptions) {
    this.log = options.log ?? ((message, detail) => console.warn(`[live prices] ${message}`, detail ?? ''));
    this.socket = new TradingSocket({
      url: options.socketUrl,
      token: options.token,
      account: options.account,
      createSocket: options.createSocket,
      log: options.log,
      random: options.random,
      onGiveUp: () => {
        for (const l of [...this.listeners]) l.onGiveUp?.();
      },
      onConnectedChange: (connected) => {
        if (connected) this.stopPolling();
        else if (this.running) this.startPolling();
        for (const l of [...this.listeners]) l.onConnectedChange?.(connected);
      },
      onMessage: (message) => {
        if (message.type === 'price_update') this.prices.apply(message);
        for (const l of [...this.listeners]) l.onMessage?.(message);
      },
    });
  }

  listen(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  /** True while prices come from the 5 s poll (the socket is not connected). */
  get isPolling(): boolean {
    return this.pollTimer !== null;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // Not connected yet: poll at once, so prices show before the socket is up.
    this.startPolling();
    this.socket.start();
  }

  /** After the selected account changed: the socket of the new one replaces the old one's. */
  switchAccount(): void {
    this.socket.restart();
  }

  stop(): void {
    this.running = false;
    this.stopPolling();
    this.socket.stop();
  }

  private startPolling(): void {
    if (this.pollTimer !== null) return;
    this.pollTimer = setInterval(() => void this.pollOnce(), PRICE_POLL_INTERVAL_MS);
    void this.pollOnce();
  }

  private stopPolling(): void {
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  private async pollOnce(): Promise<void> {
    // A slow answer must not pile up requests behind it.
    if (this.polling) return;
    this.polling = true;
    try {
      const prices = await this.options.fetchPrices();
      if (this.running) this.prices.applyAll(prices);
    } catch (err) {
      this.log('poll failed', err);
    } finally {
      this.polling = false;
    }
  }
}
