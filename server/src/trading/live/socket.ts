import { type PositionDto, parseTradingClientMessage, type TradingClientMessage } from '@pipdesk/contract';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { AuthModule, AuthUser } from '../../auth/index.js';
import type { Clock } from '../../core/clock.js';
import { AppError } from '../../errors.js';
import { CLOSE_ACCOUNT_NOT_FOUND, CLOSE_POLICY, CLOSE_UNAUTHENTICATED, TradingConnection } from './connection.js';
import type { Pacing } from './pacer.js';

export interface TradingSocketOptions {
  /** A connection that has not authenticated after this long is closed with 4001 (docs/api.md#trading-socket: 10 s). */
  authTimeoutMs: number;
  /** How often deadlines (authentication, token expiry) are checked. */
  sweepIntervalMs: number;
  /** Per-connection message rate limit (token bucket). */
  rate: { capacity: number; perSecond: number };
}

export const defaultSocketOptions: TradingSocketOptions = {
  authTimeoutMs: 10_000,
  sweepIntervalMs: 250,
  // The web client sends a handful of messages at start and a ping every 30 s; a burst of 30
  // and 10 a second leave room for any honest client.
  rate: { capacity: 30, perSecond: 10 },
};

/** Longer than any token verification takes; short enough that a re-enabled trader can connect soon after. */
const RECENT_REVOCATION_MS = 30_000;

/** What the socket asks of the rest of the live trading part. */
export interface TradingSocketHandlers {
  /** `get_positions_update`: the trader's open positions as the REST calls answer them. */
  openPositions(conn: TradingConnection): Promise<PositionDto[]>;
  /** The account a socket serves: the one named if it is the trader's (else 'not_found'), or their primary one (null without). */
  resolveAccount(userId: number, named: number | undefined): Promise<number | null | 'not_found'>;
  /** Marks (`ownMarket`) a socket whose account trades on a market of its own, before it joins the node's sockets. */
  adoptAccount(conn: TradingConnection): Promise<void>;
  /** `subscribe_to_pnl`: starts P&L and account streaming (the confirmation is sent first). */
  subscribePnl(conn: TradingConnection): Promise<void>;
  onClosed(conn: TradingConnection): void;
}

interface Deps {
  auth: Pick<AuthModule, 'verifyAccessToken'>;
  clock: Clock;
  pacing: Pacing;
  log: FastifyBaseLogger;
  handlers: TradingSocketHandlers;
  options: TradingSocketOptions;
}

/**
 * /ws/trading/: the authenticate handshake, message dispatch and the socket hardening of
 * docs/operations.md#socket-hardening (rate limit; closing on logout, disable and token expiry). Keeps the node's
 * connections indexed by user and session for fan-out.
 */
export class TradingSocketServer {
  /** Authenticated connections of this node. */
  readonly authenticated = new Set<TradingConnection>();
  private readonly unauthenticated = new Set<TradingConnection>();
  private readonly byUser = new Map<number, Set<TradingConnection>>();
  private readonly bySession = new Map<string, Set<TradingConnection>>();
  private sweeper: NodeJS.Timeout | null = null;
  /**
   * Sessions revoked and users disabled in the last moments (app clock time): a token
   * verified just before its revocation committed must not slip in after the bus event.
   */
  private readonly recentlyRevoked = new Map<string, number>();
  private readonly recentlyDisabled = new Map<number, number>();

  constructor(private readonly deps: Deps) {}

  async register(app: FastifyInstance): Promise<void> {
    app.get('/ws/trading/', { websocket: true }, (socket) => this.accept(socket));
  }

  start(): void {
    this.sweeper = setInterval(() => this.sweep(), this.deps.options.sweepIntervalMs);
    this.sweeper.unref();
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  /** The node's authenticated connections of one trader (empty when none). */
  forUser(userId: number): ReadonlySet<TradingConnection> | undefined {
    return this.byUser.get(userId);
  }

  /** Logout or a revoked session family: its sockets close at once. */
  closeSession(sessionId: string): void {
    this.recentlyRevoked.set(sessionId, this.deps.clock.now());
    const conns = this.bySession.get(sessionId);
    if (!conns) return;
    for (const conn of [...conns]) conn.fail(CLOSE_UNAUTHENTICATED, 'Session ended');
  }

  /** A disabled trader: every socket of theirs closes. */
  closeUser(userId: number): void {
    this.recentlyDisabled.set(userId, this.deps.clock.now());
    const conns = this.byUser.get(userId);
    if (!conns) return;
    for (const conn of [...conns]) conn.fail(CLOSE_UNAUTHENTICATED, 'Account disabled');
  }

  private accept(socket: WebSocket): void {
    const { clock, pacing, options } = this.deps;
    const conn = new TradingConnection(socket, clock.now(), { ...options.rate, now: pacing.now() });
    this.unauthenticated.add(conn);
    socket.on('message', (data, isBinary) => this.receive(conn, data, isBinary));
    socket.on('close', () => this.forget(conn));
    socket.on('error', (err) => this.deps.log.debug({ err }, 'trading socket error'));
    conn.send('auth_required', { message: 'Send {"type":"authenticate","token":"<access token>"} within 10 seconds' });
  }

  private receive(conn: TradingConnection, data: RawData, isBinary: boolean): void {
    if (conn.closed) return;
    if (!conn.bucket.take(this.deps.pacing.now())) {
      conn.fail(CLOSE_POLICY, 'Too many messages');
      return;
    }
    if (isBinary) {
      conn.send('error', { message: 'Messages must be JSON text' });
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(rawText(data));
    } catch {
      conn.send('error', { message: 'Invalid JSON' });
      return;
    }
    const parsed = parseTradingClientMessage(raw);
    if (!parsed.ok) {
      conn.send('error', { message: parsed.error.slice(0, 200) });
      return;
    }
    const message = parsed.message;
    conn.chain = conn.chain
      .then(() => this.dispatch(conn, message))
      .catch((err) => {
        this.deps.log.error({ err, type: message.type }, 'trading socket message failed');
        conn.send('error', { message: 'Internal error' });
      });
  }

  private async dispatch(conn: TradingConnection, message: TradingClientMessage): Promise<void> {
    if (conn.closed) return;
    if (message.type === 'authenticate') return this.authenticate(conn, message.token, message.account);
    if (message.type === 'ping') {
      conn.send('pong', { timestamp: new Date(this.deps.clock.now()).toISOString() });
      return;
    }
    if (!conn.user) {
      conn.send('error', { message: 'Authenticate first' });
      return;
    }
    try {
      if (message.type === 'get_positions_update') {
        const data = await this.deps.handlers.openPositions(conn);
        conn.send('positions_update', { data });
      } else {
        await this.deps.handlers.subscribePnl(conn);
      }
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      conn.send('error', { message: err.message });
    }
  }

  private async authenticate(conn: TradingConnection, token: string, named: number | undefined): Promise<void> {
    let user: AuthUser;
    try {
      user = await this.deps.auth.verifyAccessToken(token);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      conn.fail(CLOSE_UNAUTHENTICATED, err.message);
      return;
    }
    if (conn.closed) return;
    if (this.recentlyRevoked.has(user.sessionId) || this.recentlyDisabled.has(user.userId)) {
      conn.fail(CLOSE_UNAUTHENTICATED, 'Invalid or expired token');
      return;
    }
    const previous = conn.user;
    if (previous && previous.userId !== user.userId) {
      conn.fail(CLOSE_UNAUTHENTICATED, 'The token belongs to another user');
      return;
    }
    if (previous && named !== undefined && named !== conn.named) {
      conn.fail(CLOSE_ACCOUNT_NOT_FOUND, 'This socket serves another account: open a new one');
      return;
    }
    if (!previous) {
      const serves = await this.deps.handlers.resolveAccount(user.userId, named);
      if (conn.closed) return;
      if (serves === 'not_found') {
        conn.fail(CLOSE_ACCOUNT_NOT_FOUND, 'Trading account not found');
        return;
      }
      conn.serves = serves;
      conn.named = named ?? null;
      // Before it joins the node's sockets, so no live price reaches a practice account's.
      await this.deps.handlers.adoptAccount(conn);
      if (conn.closed) {
        // Closed meanwhile: its close handler found it unauthenticated, so it is let go here.
        this.deps.handlers.onClosed(conn);
        return;
      }
    }
    if (previous) this.unindexSession(conn, previous.sessionId);
    conn.user = user;
    index(this.bySession, user.sessionId, conn);
    if (!previous) {
      this.unauthenticated.delete(conn);
      this.authenticated.add(conn);
      index(this.byUser, user.userId, conn);
    }
    conn.send('connection_established', { user: { id: user.userId, email: user.email, full_name: user.fullName } });
  }

  /** Deadlines run on the app clock, so tests move time by hand. */
  private sweep(): void {
    const now = this.deps.clock.now();
    const deadline = now - this.deps.options.authTimeoutMs;
    for (const conn of this.unauthenticated) {
      if (conn.openedAt <= deadline) conn.fail(CLOSE_UNAUTHENTICATED, 'Authentication timeout');
    }
    for (const conn of this.authenticated) {
      if (conn.user && conn.user.expiresAt <= now) conn.fail(CLOSE_UNAUTHENTICATED, 'Token expired');
    }
    const forgetBefore = now - RECENT_REVOCATION_MS;
    for (const [sessionId, at] of this.recentlyRevoked) if (at < forgetBefore) this.recentlyRevoked.delete(sessionId);
    for (const [userId, at] of this.recentlyDisabled) if (at < forgetBefore) this.recentlyDisabled.delete(userId);
  }

  private forget(conn: TradingConnection): void {
    conn.closed = true;
    this.unauthenticated.delete(conn);
    if (!this.authenticated.delete(conn) || !conn.user) return;
    unindex(this.byUser, conn.user.userId, conn);
    this.unindexSession(conn, conn.user.sessionId);
    this.deps.handlers.onClosed(conn);
  }

  private unindexSession(conn: TradingConnection, sessionId: string): void {
    unindex(this.bySession, sessionId, conn);
  }
}

function index<K>(map: Map<K, Set<TradingConnection>>, key: K, conn: TradingConnection): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(conn);
}

function unindex<K>(map: Map<K, Set<TradingConnection>>, key: K, conn: TradingConnection): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(conn);
  if (set.size === 0) map.delete(key);
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
