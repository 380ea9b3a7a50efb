/**
 * PostgreSQL outages (docs/operations.md#database-outages): which errors mean "the database
 * cannot be reached" (as opposed to a bug or a constraint), and a breaker that stops every
 * request from paying a connection timeout while the database is known to be down.
 */

/** Thrown instead of connecting while the breaker is open; the error handler answers 503 with Retry-After. */
export class DatabaseUnavailableError extends Error {
  readonly code = 'DATABASE_UNAVAILABLE';
  constructor(
    /** Whole seconds until the next connection attempt (at least 1). */
    readonly retryAfterSeconds: number,
    override readonly cause?: unknown,
  ) {
    super('The database is unavailable');
    this.name = 'DatabaseUnavailableError';
  }
}

/** Socket-level failures Node reports while connecting or talking to the server. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs of an unreachable or refusing server: class 08 (connection exception),
 * 57P01–57P03 (shut down by the administrator, crash shutdown, cannot connect now) and 53300
 * (too many connections).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** pg-pool's error when every pooled connection stayed busy for the whole connection timeout. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/** What pg says when the connection ends or cannot be made in time (it gives these no code). */
const PG_MESSAGES = [
  'Connection terminated',
  POOL_WAIT_TIMEOUT,
  'Client has encountered a connection error and is not queryable',
];

/** Whether `err` means the database could not be reached, so the request may succeed later. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (typeof message === 'string' && PG_MESSAGES.some((m) => message.startsWith(m))) return true;
  // AggregateError (Node's dual-stack connect) carries the socket errors inside.
  const inner = (err as { errors?: unknown }).errors;
  return Array.isArray(inner) && inner.length > 0 && inner.every(isDatabaseUnavailable);
}

/** Seconds a client should wait before retrying a request that met `err`. */
export function retryAfterSeconds(err: unknown): number {
  return err instanceof DatabaseUnavailableError ? err.retryAfterSeconds : 1;
}

export interface BreakerOptions {
  now?: () => number;
  /** First wait after a failure; doubled on each failed probe up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Told when the database becomes unreachable (with the error) and when it is back: one log line each. */
  onChange?: (reachable: boolean, error?: unknown) => void;
}

/**
 * Closed: every connection attempt goes through. After a connection failure it opens: attempts
 * fail at once with DatabaseUnavailableError until the backoff has passed, then one attempt
 * (the probe) is let through; its success closes the breaker, its failure doubles the wait.
 */
export class ConnectionBreaker {
  private openUntil = 0;
  private delayMs = 0;
  private probing = false;
  private readonly now: () => number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly onChange: (reachable: boolean, error?: unknown) => void;

  constructor(options: BreakerOptions = {}) {
    this.onChange = options.onChange ?? (() => {});
    this.now = options.now ?? Date.now;
    this.initialDelayMs = options.initialDelayMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 2_000;
  }

  /** Wraps one connection attempt. */
  async run<T>(connect: () => Promise<T>): Promise<T> {
    const probe = this.delayMs > 0;
    if (probe) {
      const wait = this.openUntil - this.now();
      if (wait > 0 || this.probing) throw new DatabaseUnavailableError(Math.max(1, Math.ceil(Math.max(wait, 0) / 1000)));
      this.probing = true;
    }
    try {
      const value = await connect();
      if (this.delayMs > 0) {
        this.delayMs = 0;
        this.openUntil = 0;
        this.onChange(true);
      }
      return value;
    } catch (err) {
      // A wait for a free pooled connection that timed out means busy, not down: it answers 503
      // but does not shut the door on everyone else.
      if (isDatabaseUnavailable(err) && !(err instanceof Error && err.message === POOL_WAIT_TIMEOUT)) {
        const opening = this.delayMs === 0;
        this.delayMs = opening ? this.initialDelayMs : Math.min(this.delayMs * 2, this.maxDelayMs);
        this.openUntil = this.now() + this.delayMs;
        if (opening) this.onChange(false, err);
        throw new DatabaseUnavailableError(Math.max(1, Math.ceil(this.delayMs / 1000)), err);
      }
      throw err;
    } finally {
      if (probe) this.probing = false;
    }
  }
}
