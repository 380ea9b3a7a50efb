import {
  PRICE_SOCKET_TIMEFRAME,
  parsePricesClientMessage,
  pricesMessage,
  roundPrice,
  type SocketTimeframe,
  TIMEFRAME_MINUTES,
} from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import WebSocket from 'ws';
import type { AuthModule, AuthUser } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import { textFrame } from '../http/socket-frames.js';
import type { Catalog } from './catalogue.js';
import type { MarketFeed } from './feed.js';
import { PriceClient } from './price-client.js';
import type { MarketService } from './service.js';
import { realTimers, type Timers } from './sources/timers.js';
import type { AccountMarketView, Pair, PriceBook, Quote } from './types.js';

export interface PriceSocketDeps {
  ctx: AppContext;
  catalog: Catalog;
  book: PriceBook;
  service: MarketService;
  feed: MarketFeed;
  auth: AuthModule | undefined;
  /** The owner of a trading account (undefined: no such account): a socket may name only its trader's. */
  accountOwner?: (accountId: number) => Promise<number | undefined>;
  timers?: Timers;
}

/** Close code of a socket that names an account not its trader's, or a second account (as /ws/trading/). */
const CLOSE_ACCOUNT_NOT_FOUND = 4004;
/**
 * Candles a practice socket is sent after one move of its session, per pair: the live socket's gap
 * fill bounds (a day of one-minute candles, 1,000 of a larger timeframe).
 */
const OWN_MOVE_CANDLES_M1 = 24 * 60;
const OWN_MOVE_CANDLES = 1_000;

/**
 * At most this often per symbol a `chart_update` of the live candle goes out (the last change
 * always does): a one-minute candle redrawn every second looks live, and every message is a
 * write per subscriber.
 */
const CHART_UPDATE_MS = 1000;
/** Symbols one connection may follow at once. */
const MAX_SUBSCRIPTIONS = 24;

/**
 * The market data socket (docs/api.md#price-socket). Ticks fan out from the price book: each tick is
 * serialised once per symbol and written to that symbol's subscribers, no database on the
 * way. A bearer token is optional; one that is sent must be valid (4001 otherwise), and an
 * authenticated socket closes on logout, on a disabled user and when its token expires (docs/operations.md#socket-hardening).
 */
export class PriceSocketHub {
  private readonly clients = new Set<PriceClient>();
  private readonly bySymbol = new Map<string, Set<PriceClient>>();
  /** Sockets following the market of an account of its own, by account (never in `bySymbol`). */
  private readonly byAccount = new Map<number, Set<PriceClient>>();
  private readonly chartThrottle = new Map<string, { sentAt: number; timer: unknown }>();
  private readonly timers: Timers;
  private readonly cleanups: Array<() => void> = [];

  constructor(private readonly deps: PriceSocketDeps) {
    this.timers = deps.timers ?? realTimers;
    this.cleanups.push(deps.book.onTick((quote) => this.onTick(quote)));
    this.cleanups.push(deps.feed.onStatusChange((up) => this.onFeedStatus(up)));
    this.cleanups.push(
      deps.ctx.bus.subscribe('session_revoked', (e) => this.closeWhere((c) => c.user?.sessionId === e.sessionId)),
    );
    this.cleanups.push(deps.ctx.bus.subscribe('user_disabled', (e) => this.closeWhere((c) => c.user?.userId === e.userId)));
  }

  register(app: FastifyInstance): void {
    app.get('/ws/prices/', { websocket: true }, (socket, request) => this.onConnection(socket, request));
  }

  /** Number of open connections (health, benchmarks). */
  get connections(): number {
    return this.clients.size;
  }

  close(): void {
    for (const cleanup of this.cleanups) cleanup();
    for (const t of this.chartThrottle.values()) if (t.timer !== undefined) this.timers.clearTimeout(t.timer);
    for (const client of this.clients) client.close(1001, 'Server shutting down');
  }

  private onConnection(socket: WebSocket, request: FastifyRequest): void {
    const client = new PriceClient(socket);
    this.clients.add(client);
    socket.on('close', () => this.drop(client));
    socket.on('error', () => this.drop(client));
    socket.on('message', (data, isBinary) => {
      const verdict = client.allowMessage();
      if (verdict === 'close') {
        client.close(1008, 'Too many messages');
        return;
      }
      if (verdict === 'drop') return;
      if (isBinary) {
        client.send('error', { message: 'Malformed message: expected a JSON object' });
        return;
      }
      const text = data.toString();
      client.enqueue(() => this.onMessage(client, text));
    });
    const token = bearerToken(request);
    if (token !== undefined) client.enqueue(() => this.authenticate(client, token, undefined));
    client.enqueue(async () => {
      if (this.deps.feed.feedConnected()) client.send('external_feed_connected', { source: this.deps.feed.health().name });
    });
  }

  /**
   * The Bearer header or an `authenticate` message: a valid token of the same trader signs the socket
   * in (again: its expiry moves to the new token's). `account`, once named, is the socket's for good.
   */
  private async authenticate(client: PriceClient, token: string, account: number | undefined): Promise<void> {
    let user: AuthUser;
    try {
      if (!this.deps.auth) throw new Error('no auth module');
      user = await this.deps.auth.verifyAccessToken(token);
    } catch {
      client.send('error', { message: 'Invalid or expired token' });
      client.close(4001, 'Invalid or expired token');
      return;
    }
    if (client.user && client.user.userId !== user.userId) {
      client.send('error', { message: 'The token belongs to another user' });
      client.close(4001, 'The token belongs to another user');
      return;
    }
    client.user = user;
    if (client.expiryTimer !== undefined) this.timers.clearTimeout(client.expiryTimer);
    const left = user.expiresAt - this.deps.ctx.clock.now();
    client.expiryTimer = this.timers.setTimeout(() => client.close(4001, 'Token expired'), Math.max(0, left));
    if (account === undefined || account === client.account) return;
    // One market per socket: what it follows never changes under its subscriptions.
    if (client.account !== null || client.symbols.size > 0) {
      client.send('error', { message: 'This socket follows another market: open a new one' });
      client.close(CLOSE_ACCOUNT_NOT_FOUND, 'This socket follows another market');
      return;
    }
    if ((await this.deps.accountOwner?.(account)) !== user.userId) {
      client.send('error', { message: 'Trading account not found' });
      client.close(CLOSE_ACCOUNT_NOT_FOUND, 'Trading account not found');
      return;
    }
    client.account = account;
    // An account on the live market (the primary, a challenge) follows the live market.
    const own = await this.deps.service.accountMarket(account);
    if (!own || client.socket.readyState !== WebSocket.OPEN) return;
    client.own = own;
    let set = this.byAccount.get(account);
    if (!set) {
      set = new Set();
      this.byAccount.set(account, set);
    }
    set.add(client);
  }

  private async onMessage(client: PriceClient, text: string): Promise<void> {
    if (client.socket.readyState !== WebSocket.OPEN) return;
    const parsed = parsePricesClientMessage(text);
    if (!parsed.ok) {
      client.send('error', { message: parsed.error });
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case 'ping':
        client.send('pong', message.ts === undefined ? {} : { ts: message.ts });
        return;
      case 'unsubscribe_prices': {
        const symbol = message.symbol.toUpperCase();
        client.symbols.delete(symbol);
        client.ownSent.delete(symbol);
        this.bySymbol.get(symbol)?.delete(client);
        return;
      }
      case 'authenticate':
        await this.authenticate(client, message.token, message.account);
        return;
      case 'subscribe_prices':
        await this.subscribe(client, message.symbol, message.timeframe, message.last_chart_time ?? undefined);
        return;
    }
  }

  private async subscribe(
    client: PriceClient,
    rawSymbol: string,
    timeframe: SocketTimeframe,
    lastChartTime: number | undefined,
  ): Promise<void> {
    const pair = this.deps.catalog.get(rawSymbol);
    if (!pair?.isActive) {
      client.send('error', { message: `Currency pair ${rawSymbol.toUpperCase().slice(0, 20)} not found` });
      return;
    }
    if (!client.symbols.has(pair.symbol) && client.symbols.size >= MAX_SUBSCRIPTIONS) {
      client.send('error', { message: `At most ${MAX_SUBSCRIPTIONS} pairs per connection` });
      return;
    }
    const tf = socketTimeframeMinutes(timeframe);
    // Charting libraries count in seconds; a value that small cannot be a time in ms since 1973.
    const since = lastChartTime === undefined ? undefined : lastChartTime < 1e11 ? lastChartTime * 1000 : lastChartTime;
    if (client.own) {
      client.symbols.set(pair.symbol, timeframe);
      const sent = { quoteAt: Number.NaN, candleTime: since };
      client.ownSent.set(pair.symbol, sent);
      this.sendOwn(client, client.own, pair, sent);
      return;
    }
    if (since !== undefined) {
      const missed = await this.deps.service.closedCandlesSince(pair, since, tf);
      for (const candle of missed) client.send('chart_update', { symbol: pair.symbol, timeframe, candle });
    }
    // The one database read of a larger timeframe's live candle: ticks then only fold memory.
    await this.deps.service.prepareFormingCandle(pair, tf);
    if (client.socket.readyState !== WebSocket.OPEN) return;
    client.symbols.set(pair.symbol, timeframe);
    let set = this.bySymbol.get(pair.symbol);
    if (!set) {
      set = new Set();
      this.bySymbol.set(pair.symbol, set);
    }
    set.add(client);
    const live = this.deps.service.formingCandle(pair, tf);
    if (live) client.send('chart_update', { symbol: pair.symbol, timeframe, candle: live });
    const quote = this.deps.book.latest(pair.symbol);
    if (quote) client.sendRaw(textFrame(this.priceUpdate(quote, pair.digits)));
  }

  private priceUpdate(quote: Quote, digits: number): string {
    return JSON.stringify(
      pricesMessage('price_update', {
        symbol: quote.symbol,
        price: roundPrice(quote.mid, digits + 1),
        bid: roundPrice(quote.bid, digits),
        ask: roundPrice(quote.ask, digits),
        timestamp: new Date(quote.timestamp).toISOString(),
      }),
    );
  }

  /**
   * A practice socket's pair after a subscribe or a move of its market: the candles from the newest
   * one it was sent (inclusive: that one was still forming) up to the one forming at the market's
   * clock, or that one alone, then the quote at the clock.
   */
  private sendOwn(
    client: PriceClient,
    own: AccountMarketView,
    pair: Pair,
    sent: { quoteAt: number; candleTime: number | undefined },
  ): void {
    const timeframe = client.symbols.get(pair.symbol) ?? PRICE_SOCKET_TIMEFRAME;
    const tf = socketTimeframeMinutes(timeframe);
    const from = sent.candleTime;
    const quote = own.quote(pair.symbol);
    // The candles from `from` to the one of the latest tick (the one forming) are at most the buckets
    // between them: a move asks for those, not for the whole gap-fill bound every time.
    const size = tf * 60_000;
    const span = quote && from !== undefined ? Math.floor((quote.timestamp - from) / size) + 1 : 1;
    const limit = Math.min(Math.max(span, 1), tf === 1 ? OWN_MOVE_CANDLES_M1 : OWN_MOVE_CANDLES);
    const candles =
      from === undefined ? own.candles(pair, tf, { limit: 1 }) : own.candles(pair, tf, { limit }).filter((c) => c.time >= from);
    for (const candle of candles) client.send('chart_update', { symbol: pair.symbol, timeframe, candle });
    sent.candleTime = candles.at(-1)?.time ?? from;
    if (!quote) return;
    sent.quoteAt = quote.timestamp;
    client.sendRaw(textFrame(this.priceUpdate(quote, pair.digits)));
  }

  /**
   * The market of an account of its own moved (a replay session's clock advanced): each socket
   * following it gets, for each of its pairs whose quote moved, the candles since the last it was
   * sent and the new quote. The session's moves pace it (4 a second while it plays, one per step or
   * seek), so a socket never gets more than the live pacing would.
   */
  accountMoved(accountId: number): void {
    const clients = this.byAccount.get(accountId);
    if (!clients) return;
    for (const client of clients) {
      const own = client.own;
      if (!own) continue;
      for (const [symbol, sent] of client.ownSent) {
        const pair = this.deps.catalog.get(symbol);
        const quote = own.quote(symbol);
        if (!pair || !quote || quote.timestamp === sent.quoteAt) continue;
        this.sendOwn(client, own, pair, sent);
      }
    }
  }

  private onTick(quote: Quote): void {
    const subscribers = this.bySymbol.get(quote.symbol);
    if (!subscribers || subscribers.size === 0) return;
    const pair = this.deps.catalog.get(quote.symbol);
    if (!pair) return;
    const frame = textFrame(this.priceUpdate(quote, pair.digits));
    for (const client of subscribers) client.sendRaw(frame);
    this.scheduleChartUpdate(quote.symbol);
    this.logFanout(quote, subscribers.size);
  }

  /**
   * At most one `chart_update` per symbol a second, always from a timer (at the earliest right
   * after the current tick's fan-out), so candle messages never queue in front of the price
   * updates of the ticks that follow; the last change of the candle always goes out.
   */
  private scheduleChartUpdate(symbol: string): void {
    const state = this.chartThrottle.get(symbol) ?? { sentAt: -Infinity, timer: undefined };
    this.chartThrottle.set(symbol, state);
    if (state.timer !== undefined) return;
    const wait = Math.max(0, CHART_UPDATE_MS - (performance.now() - state.sentAt));
    state.timer = this.timers.setTimeout(() => {
      state.timer = undefined;
      state.sentAt = performance.now();
      this.sendChartUpdate(symbol);
    }, wait);
  }

  /** One frame per timeframe the symbol's subscribers follow, each built once. */
  private sendChartUpdate(symbol: string): void {
    const subscribers = this.bySymbol.get(symbol);
    const pair = this.deps.catalog.get(symbol);
    if (!subscribers || subscribers.size === 0 || !pair) return;
    const frames = new Map<SocketTimeframe, Buffer | undefined>();
    for (const client of subscribers) {
      const timeframe = client.symbols.get(symbol) ?? PRICE_SOCKET_TIMEFRAME;
      let frame = frames.get(timeframe);
      if (!frames.has(timeframe)) {
        const candle = this.deps.service.formingCandle(pair, socketTimeframeMinutes(timeframe));
        frame = candle && textFrame(JSON.stringify(pricesMessage('chart_update', { symbol, timeframe, candle })));
        frames.set(timeframe, frame);
      }
      if (frame) client.sendRaw(frame);
    }
  }

  private onFeedStatus(up: boolean): void {
    const source = this.deps.feed.health().name;
    const frame = textFrame(
      JSON.stringify(
        up ? pricesMessage('external_feed_connected', { source }) : pricesMessage('external_feed_disconnected', { source }),
      ),
    );
    // The live source's state means nothing to a socket following a market of its own.
    for (const client of this.clients) if (!client.own) client.sendRaw(frame);
  }

  private closeWhere(match: (client: PriceClient) => boolean): void {
    for (const client of this.clients) if (match(client)) client.close(4001, 'Session ended');
  }

  /**
   * At LOG_LEVEL=debug, one line per tick: its server time → the last write of its fan-out
   * (bench/prices-socket.mjs reads it as the server's own share). Writes leave at the end of the
   * turn, so the line is written on the following immediate. Off, one level check per tick.
   */
  private logFanout(quote: Quote, sockets: number): void {
    const log = this.deps.ctx.log;
    if (log.level !== 'debug' && log.level !== 'trace') return;
    setImmediate(() =>
      log.debug(
        {
          fanout: 'prices',
          symbol: quote.symbol,
          tick_at: quote.timestamp,
          sockets,
          tick_to_last_write_ms: Date.now() - quote.timestamp,
        },
        'fan-out written',
      ),
    );
  }

  private drop(client: PriceClient): void {
    if (!this.clients.delete(client)) return;
    if (client.expiryTimer !== undefined) this.timers.clearTimeout(client.expiryTimer);
    for (const symbol of client.symbols.keys()) this.bySymbol.get(symbol)?.delete(client);
    if (client.account !== null) {
      const set = this.byAccount.get(client.account);
      set?.delete(client);
      if (set?.size === 0) this.byAccount.delete(client.account);
    }
  }
}

/** Minutes of a socket timeframe: the spec's '1m' is m1. */
function socketTimeframeMinutes(timeframe: SocketTimeframe): number {
  return timeframe === PRICE_SOCKET_TIMEFRAME ? 1 : TIMEFRAME_MINUTES[timeframe];
}

/**
 * `Authorization: Bearer …` only. Not `?token=`: a query string ends up in access logs.
 * Browsers cannot set the header, so they read market data anonymously, which is allowed.
 */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const m = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
  return m?.[1];
}
