import { type QueryExecutorProvider, sql } from 'kysely';
import type { AppContext } from '../core/context.js';
import { realTimers, type Timers } from './sources/timers.js';

/**
 * Who runs the price source (docs/operations.md#one-process-or-many). With one process (in-memory bus) that process
 * always does. With PostgreSQL and Redis, exactly one node holds a PostgreSQL advisory
 * lock and leads; the lock lives on one pooled connection, so if the leader dies or loses
 * its database connection PostgreSQL releases it and another node takes over; a leader that
 * loses its Redis bus steps down (AdvisoryLockLeadership below).
 */
export interface Leadership {
  isLeader(): boolean;
  /** Starts trying; resolves after the first attempt so a lone node leads before it serves. */
  start(onChange: (leader: boolean) => void): Promise<void>;
  stop(): Promise<void>;
}

export function createLeadership(ctx: AppContext, timers: Timers = realTimers): Leadership {
  if (ctx.db.kind === 'postgres' && ctx.bus.name === 'redis') return new AdvisoryLockLeadership(ctx, timers);
  return new LocalLeadership();
}

class LocalLeadership implements Leadership {
  private leader = false;
  isLeader() {
    return this.leader;
  }
  async start(onChange: (leader: boolean) => void) {
    this.leader = true;
    onChange(true);
  }
  async stop() {
    this.leader = false;
  }
}

/** Retry period of followers, and how often the leader checks its lock connection. */
const RETRY_MS = 3_000;
const CHECK_MS = 2_000;
/** A leader whose bus stays down this long steps down; a shorter blip changes nothing. */
export const STEP_DOWN_AFTER_MS = 1_500;
/** A node whose bus is down bids for the lock only after this long, so a node that can still publish wins it first. */
export const STANDBY_MS = 10_000;

/**
 * The lock decides who leads; the bus decides whether a node should bid
 * (docs/operations.md#redis-outages-and-leadership): a leader that loses its bus for
 * STEP_DOWN_AFTER_MS stops leading before it unlocks, so a node that can still publish takes
 * over; a node whose bus is down bids only once it has been down STANDBY_MS, so when every
 * node lost Redis one of them still runs the price source for its own traders.
 */
class AdvisoryLockLeadership implements Leadership {
  private leader = false;
  private stopping = false;
  private retryTimer: unknown;
  private checkTimer: unknown;
  private stepDownTimer: unknown;
  private held: Promise<void> | undefined;
  private releaseHeld: (() => void) | undefined;
  /** When this node's bus went down (undefined while it is up). */
  private busDownSince: number | undefined;
  /** Whether this term of leadership has had a working bus: only then does losing the bus end it. */
  private busUpWhileLeading = false;
  private offBusHealth: (() => void) | undefined;
  private onChange: (leader: boolean) => void = () => {};

  constructor(
    private readonly ctx: AppContext,
    private readonly timers: Timers,
  ) {}

  isLeader() {
    return this.leader;
  }

  async start(onChange: (leader: boolean) => void) {
    this.onChange = onChange;
    if (!this.ctx.bus.healthy()) this.busDownSince = this.ctx.clock.now();
    this.offBusHealth = this.ctx.bus.onHealthChange((up) => this.onBusHealth(up));
    await this.attempt();
  }

  async stop() {
    this.stopping = true;
    this.offBusHealth?.();
    for (const timer of [this.retryTimer, this.checkTimer, this.stepDownTimer]) {
      if (timer !== undefined) this.timers.clearTimeout(timer);
    }
    this.releaseHeld?.();
    await this.held;
  }

  private onBusHealth(up: boolean): void {
    if (up) {
      this.busDownSince = undefined;
      if (this.leader) this.busUpWhileLeading = true;
      return;
    }
    this.busDownSince = this.ctx.clock.now();
    if (!this.leader || !this.busUpWhileLeading) return;
    if (this.stepDownTimer !== undefined) this.timers.clearTimeout(this.stepDownTimer);
    this.stepDownTimer = this.timers.setTimeout(() => {
      this.stepDownTimer = undefined;
      if (this.stopping || !this.leader || this.ctx.bus.healthy() || !this.releaseHeld) return;
      this.ctx.log.warn('lost the Redis bus: stepping down as price-source leader so a node that can publish takes over');
      this.releaseHeld();
    }, STEP_DOWN_AFTER_MS);
  }

  private scheduleAttempt(ms: number): void {
    if (!this.stopping) this.retryTimer = this.timers.setTimeout(() => void this.attempt(), ms);
  }

  /** One try: on success, keeps the connection (and the lock) until stop, a failed check or a lost bus. */
  private attempt(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.busDownSince !== undefined) {
      const wait = this.busDownSince + STANDBY_MS - this.ctx.clock.now();
      if (wait > 0) {
        this.scheduleAttempt(Math.min(wait, RETRY_MS));
        return Promise.resolve();
      }
    }
    return new Promise<void>((firstAttemptDone) => {
      this.held = this.ctx.db.kysely
        .connection()
        .execute(async (conn) => {
          // The schema is part of the key: test schemas in one database must not share a leader.
          const got = await sql<{
            ok: boolean;
          }>`select pg_try_advisory_lock(hashtext(current_schema() || ':pipdesk:price-source')) as ok`.execute(conn);
          if (!got.rows[0]?.ok) {
            firstAttemptDone();
            return;
          }
          if (this.stopping) {
            await unlock(conn);
            firstAttemptDone();
            return;
          }
          this.busUpWhileLeading = this.ctx.bus.healthy();
          this.setLeader(true);
          firstAttemptDone();
          if (!this.busUpWhileLeading) {
            this.ctx.log.warn('leading the price source with the Redis bus down: its ticks reach this node only');
          }
          await new Promise<void>((release) => {
            this.releaseHeld = release;
            const check = () => {
              this.checkTimer = undefined;
              if (this.stopping) return release();
              sql`select 1`
                .execute(conn)
                .then(() => {
                  if (this.releaseHeld === release) this.checkTimer = this.timers.setTimeout(check, CHECK_MS);
                })
                .catch((err: unknown) => {
                  this.ctx.log.error({ err }, 'lost the price-source lock connection; stepping down');
                  release();
                });
            };
            this.checkTimer = this.timers.setTimeout(check, CHECK_MS);
          });
          this.releaseHeld = undefined;
          for (const timer of [this.checkTimer, this.stepDownTimer]) {
            if (timer !== undefined) this.timers.clearTimeout(timer);
          }
          this.checkTimer = undefined;
          this.stepDownTimer = undefined;
          // Stop leading before the lock is free: two nodes never lead at once.
          this.setLeader(false);
          await unlock(conn);
        })
        .catch((err: unknown) => {
          this.ctx.log.error({ err }, 'price-source leader election failed');
          firstAttemptDone();
        })
        .finally(() => {
          if (this.leader) this.setLeader(false);
          this.scheduleAttempt(RETRY_MS);
        });
    });
  }

  private setLeader(leader: boolean) {
    if (this.leader === leader) return;
    this.leader = leader;
    try {
      this.onChange(leader);
    } catch (err) {
      this.ctx.log.error({ err }, 'leadership change handler failed');
    }
  }
}

function unlock(conn: QueryExecutorProvider) {
  return sql`select pg_advisory_unlock(hashtext(current_schema() || ':pipdesk:price-source'))`.execute(conn).catch(() => {});
}
