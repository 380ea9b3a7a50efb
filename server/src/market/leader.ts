import { sql } from 'kysely';
import type { AppContext } from '../core/context.js';
import { realTimers, type Timers } from './sources/timers.js';

/**
 * Who runs the price source (docs/operations.md#one-process-or-many). With one process (in-memory bus) that process
 * always does. With PostgreSQL and Redis, exactly one node holds a PostgreSQL advisory
 * lock and leads; the lock lives on one pooled connection, so if the leader dies or loses
 * its database connection PostgreSQL releases it and another node takes over.
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

class AdvisoryLockLeadership implements Leadership {
  private leader = false;
  private stopping = false;
  private retryTimer: unknown;
  private held: Promise<void> | undefined;
  private releaseHeld: (() => void) | undefined;
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
    await this.attempt();
  }

  async stop() {
    this.stopping = true;
    if (this.retryTimer !== undefined) this.timers.clearTimeout(this.retryTimer);
    this.releaseHeld?.();
    await this.held;
  }

  /** One try: on success, keeps the connection (and the lock) until stop or a failed check. */
  private attempt(): Promise<void> {
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
          this.setLeader(true);
          firstAttemptDone();
          await new Promise<void>((release) => {
            this.releaseHeld = release;
            const check = () => {
              if (this.stopping) return release();
              sql`select 1`
                .execute(conn)
                .then(() => {
                  this.retryTimer = this.timers.setTimeout(check, CHECK_MS);
                })
                .catch((err: unknown) => {
                  this.ctx.log.error({ err }, 'lost the price-source lock connection; stepping down');
                  release();
                });
            };
            this.retryTimer = this.timers.setTimeout(check, CHECK_MS);
          });
          this.releaseHeld = undefined;
          await sql`select pg_advisory_unlock(hashtext(current_schema() || ':pipdesk:price-source'))`
            .execute(conn)
            .catch(() => {});
        })
        .catch((err: unknown) => {
          this.ctx.log.error({ err }, 'price-source leader election failed');
          firstAttemptDone();
        })
        .finally(() => {
          if (this.leader) this.setLeader(false);
          if (!this.stopping) this.retryTimer = this.timers.setTimeout(() => void this.attempt(), RETRY_MS);
        });
    });
  }

  private setLeader(leader: boolean) {
    this.leader = leader;
    try {
      this.onChange(leader);
    } catch (err) {
      this.ctx.log.error({ err }, 'leadership change handler failed');
    }
  }
}
