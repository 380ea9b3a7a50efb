import {
  type TradingClientMessageMap,
  type TradingClientMessageType,
  type TradingServerMessage,
  tradingClientCodec,
  tradingServerCodec,
} from '@pipdesk/contract';

/** docs/screens.md#live-data-and-polling: the trading socket's timing rules. */
export const TRADING_SOCKET_RULES = {
  connectDelayMs: 100,
  pingIntervalMs: 30_000,
  reconnectDelayMs: 3_000,
  /**
   * Up to this much is added to each reconnect delay at random, so the clients of a restarted
   * node do not all come back in the same instant (docs/decisions.md).
   */
  reconnectJitterMs: 1_000,
  maxReconnects: 5,
  /** RFC 6455 normal closure: the server or we ended the connection on purpose; never reconnect. */
  normalCloseCode: 1000,
} as const;

/** The part of the browser's WebSocket the client uses (tests hand in a fake). */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

const OPEN = 1;

export interface TradingSocketOptions {
  /** ws(s)://host/ws/trading/ */
  url: string;
  /** The current access token, read at every (re)authentication. */
  token: () => string | null;
  /**
   * The selected account (undefined: the primary one), read when a socket opens: the socket serves
   * that account until it closes (docs/accounts.md#the-trading-socket). After a change, `restart()`.
   */
  account?: () => number | undefined;
  /** Called with true on connection_established and false when that connection ends. */
  onConnectedChange: (connected: boolean) => void;
  /** Every valid server message, after the client's own handling. */
  onMessage: (message: TradingServerMessage) => void;
  /**
   * The socket stopped trying: the reconnect attempts are spent, or the server closed it
   * normally. Only `retryNow()` (or the browser coming back online) starts it again.
   */
  onGiveUp?: () => void;
  /** A number in [0, 1) for the reconnect jitter; defaults to Math.random. */
  random?: () => number;
  /** Defaults to the browser's WebSocket. */
  createSocket?: (url: string) => SocketLike;
  /** docs/screens.md#live-data-and-polling: socket errors are only logged. */
  log?: (message: string, detail?: unknown) => void;
}

/**
 * The /ws/trading/ client of docs/screens.md#live-data-and-polling: it connects 100 ms after `start()`, authenticates
 * when the socket opens, counts as connected on `connection_established`, then asks for the
 * positions and subscribes to P&L, pings every 30 s, and after an unexpected close tries
 * again up to 5 times, 3 s apart plus a jitter of up to 1 s (never after a normal close,
 * code 1000).
 */
export class TradingSocket {
  private socket: SocketLike | null = null;
  private connectTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private reconnects = 0;
  private running = false;
  private established = false;
  /** The account the current socket authenticated for; undefined: the primary one. */
  private servedAccount: number | undefined;
  private readonly log: (message: string, detail?: unknown) => void;

  constructor(private readonly options: TradingSocketOptions) {
    // console.warn, not console.error: a dropped live feed is expected and handled by polling.
    this.log = options.log ?? ((message, detail) => console.warn(`[trading socket] ${message}`, detail ?? ''));
  }

  /** True between connection_established and the end of that connection. */
  get connected(): boolean {
    return this.established;
  }

  /** How many reconnect attempts the current outage has used. */
  get reconnectAttempts(): number {
    return this.reconnects;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.reconnects = 0;
    this.schedule(TRADING_SOCKET_RULES.connectDelayMs);
  }

  /** Ends the connection on purpose (code 1000) and cancels any pending attempt. */
  stop(): void {
    this.running = false;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      detach(socket);
      try {
        socket.close(TRADING_SOCKET_RULES.normalCloseCode, 'Client closed');
      } catch (err) {
        this.log('close failed', err);
      }
    }
    this.setEstablished(false);
  }

  /**
   * After the socket gave up, connects again at once (the Offline state's Retry, or the
   * browser back online): the reconnect limit of docs/screens.md#live-data-and-polling is per
   * outage, and a trader who fixes the network should not have to reload. Returns whether an
   * attempt started; nothing happens while one is under way or scheduled.
   */
  retryNow(): boolean {
    if (!this.running || this.socket || this.connectTimer) return false;
    this.reconnects = 0;
    this.connect();
    return true;
  }

  /** Sends a client message when the socket is open; returns whether it went out. */
  send<K extends TradingClientMessageType>(type: K, payload: TradingClientMessageMap[K]): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return false;
    socket.send(tradingClientCodec.encode(type, payload));
    return true;
  }

  /**
   * Sends the current token again (after a token refresh: the server closes a socket whose token
   * expires), for the account the socket serves: naming another would close it (4004).
   */
  reauthenticate(): void {
    const token = this.options.token();
    if (token) this.send('authenticate', authentication(token, this.servedAccount));
  }

  /**
   * Serves the account now selected: closes this socket normally (1000) and opens one for it
   * after the usual connect delay (docs/accounts.md#the-trading-socket: a socket never changes
   * account). Nothing happens before `start()` or after `stop()`.
   */
  restart(): void {
    if (!this.running) return;
    this.stop();
    this.start();
  }

  private schedule(delayMs: number): void {
    this.connectTimer = setTimeout(() => {
      this.connectTimer = null;
      this.connect();
    }, delayMs);
  }

  private connect(): void {
    if (!this.running) return;
    let socket: SocketLike;
    try {
      socket = (this.options.createSocket ?? browserSocket)(this.options.url);
    } catch (err) {
      this.log('could not open', err);
      this.afterClose(1006);
      return;
    }
    this.socket = socket;
    this.servedAccount = this.options.account?.();
    socket.onopen = () => {
      const token = this.options.token();
      if (token) this.send('authenticate', authentication(token, this.servedAccount));
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onerror = (event) => this.log('error', event);
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      detach(socket);
      this.afterClose(event.code);
    };
  }

  private receive(data: unknown): void {
    // Between a switch and `restart()` the old socket may still speak: its account's figures and
    // fills must not land on the newly selected account's screens and notices.
    if (this.options.account && this.options.account() !== this.servedAccount) return;
    // JSON first, apart from the codec's `decode`: an unreadable frame is logged with the frame itself.
    let raw: unknown;
    try {
      raw = JSON.parse(String(data));
    } catch {
      this.log('unreadable message', data);
      return;
    }
    const parsed = tradingServerCodec.parse(raw);
    if (!parsed.ok) {
      this.log(parsed.error);
      return;
    }
    const message = parsed.message;
    if (message.type === 'connection_established') {
      this.reconnects = 0;
      this.setEstablished(true);
      this.send('get_positions_update', {});
      this.send('subscribe_to_pnl', {});
      this.startPing();
    } else if (message.type === 'error') {
      this.log(`server error: ${message.message}`);
    }
    this.options.onMessage(message);
  }

  private afterClose(code: number): void {
    this.stopPing();
    this.setEstablished(false);
    if (!this.running) return;
    if (code === TRADING_SOCKET_RULES.normalCloseCode) {
      this.options.onGiveUp?.();
      return;
    }
    if (this.reconnects >= TRADING_SOCKET_RULES.maxReconnects) {
      this.log(`gave up after ${TRADING_SOCKET_RULES.maxReconnects} reconnect attempts`);
      this.options.onGiveUp?.();
      return;
    }
    this.reconnects++;
    const jitter = Math.floor((this.options.random ?? Math.random)() * TRADING_SOCKET_RULES.reconnectJitterMs);
    this.schedule(TRADING_SOCKET_RULES.reconnectDelayMs + jitter);
  }

  private startPing(): void {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      this.send('ping', { timestamp: new Date().toISOString() });
    }, TRADING_SOCKET_RULES.pingIntervalMs);
  }

  private stopPing(): void {
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private clearTimers(): void {
    if (this.connectTimer !== null) clearTimeout(this.connectTimer);
    this.connectTimer = null;
    this.stopPing();
  }

  private setEstablished(value: boolean): void {
    if (this.established === value) return;
    this.established = value;
    this.options.onConnectedChange(value);
  }
}

/** The authenticate message: the primary account is named by no `account`, as the spec's client sends it. */
function authentication(token: string, account: number | undefined): TradingClientMessageMap['authenticate'] {
  return account === undefined ? { token } : { token, account };
}

function browserSocket(url: string): SocketLike {
  return new WebSocket(url);
}

function detach(socket: SocketLike): void {
  socket.onopen = null;
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = null;
}

/** The trading socket's address on this page's host. */
export function tradingSocketUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/trading/`;
}
