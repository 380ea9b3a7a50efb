import { accountChangesAfter, accountsByIds, lastAccountChangeId } from '../../accounts/index.js';
import type { AppContext } from '../../core/context.js';
import { BALANCE_ADJUSTED_TOPIC } from '../events.js';
import type { LiveBook } from './book.js';

/** How often each server looks for balances changed outside it: a deposit shows within about this. */
export const ACCOUNT_CHANGES_POLL_MS = 1_000;
/** Markers read per query; a backlog (a batch of deposits) is read in several turns at once. */
const BATCH = 500;
/** Reads of an account retried at once when an event of its own crossed them; then the next turn. */
const IMMEDIATE_RETRIES = 3;

export interface AccountReloaderDeps {
  db: Pick<AppContext['db'], 'kysely'>;
  bus: AppContext['bus'];
  log: Pick<AppContext['log'], 'info' | 'warn'>;
  book: LiveBook;
  /** True while the live book holds bus events back (start-up, a resync): reloading waits for the next turn. */
  paused: () => boolean;
  pollMs?: number;
}

/**
 * Follows balance changes made outside the servers (the CLI's deposit, docs/operations.md#deposits).
 * The CLI is another process and may have no bus (SQLite), so the change travels through the
 * database: the deposit's transaction writes an `account_changes` row; every server reads the
 * rows after the last one it saw, once a second, and sets those accounts' balances in its live
 * book from the database, which streams them to the trader's sockets like any other change.
 *
 * An account's row is read from the database while its executions keep arriving on the bus with
 * their own balances. A read that an event of the same account crossed may be older than that
 * event, so it is not applied: the account is read again. Otherwise the read is at least as new
 * as every event applied before it, and events after it carry balances that include the deposit.
 */
export class AccountReloader {
  private cursor = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failing = false;
  /** Accounts being read now → events of theirs seen meanwhile. */
  private readonly crossed = new Map<number, number>();
  /** Accounts whose read an event crossed IMMEDIATE_RETRIES times: read again next turn. */
  private readonly deferred = new Set<number>();
  private readonly unsubscribers: Array<() => void> = [];

  constructor(private readonly deps: AccountReloaderDeps) {}

  /** Where to start: changes made after this call are reloaded. Call before the book loads from the database. */
  async mark(): Promise<void> {
    this.cursor = await lastAccountChangeId(this.deps.db.kysely);
  }

  /** Starts following (after the book is loaded). */
  start(): void {
    const seen = (accountId: number) => {
      const count = this.crossed.get(accountId);
      if (count !== undefined) this.crossed.set(accountId, count + 1);
    };
    this.unsubscribers.push(
      this.deps.bus.subscribe('execution', ({ accountId }) => seen(accountId)),
      this.deps.bus.subscribe('message', ({ topic, payload }) => {
        if (topic === BALANCE_ADJUSTED_TOPIC) seen(payload.accountId);
      }),
    );
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
  }

  /** Runs one turn now (tests); resolves when it is done. */
  async poll(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.turn().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => this.schedule());
    }, this.deps.pollMs ?? ACCOUNT_CHANGES_POLL_MS);
    this.timer.unref();
  }

  private async turn(): Promise<void> {
    if (this.stopped || this.deps.paused()) return;
    const accountIds = new Set(this.deferred);
    this.deferred.clear();
    try {
      let cursor = this.cursor;
      for (;;) {
        const changes = await accountChangesAfter(this.deps.db.kysely, cursor, BATCH);
        for (const change of changes) accountIds.add(change.accountId);
        if (changes.length > 0) cursor = changes.at(-1)!.id;
        if (changes.length < BATCH) break;
      }
      if (accountIds.size > 0) await this.reload([...accountIds]);
      this.cursor = cursor;
      if (this.failing) this.deps.log.info('following account changes again');
      this.failing = false;
    } catch (err) {
      // The cursor stays: the same changes are read again at the next turn, with those held over. One line per outage.
      for (const id of accountIds) this.deferred.add(id);
      if (!this.failing && !this.stopped) this.deps.log.warn({ err }, 'reading account changes failed; retrying');
      this.failing = true;
    }
  }

  private async reload(accountIds: number[]): Promise<void> {
    let pending = accountIds;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > IMMEDIATE_RETRIES) {
        for (const id of pending) this.deferred.add(id);
        return;
      }
      for (const id of pending) this.crossed.set(id, 0);
      let rows: Awaited<ReturnType<typeof accountsByIds>>;
      try {
        rows = await accountsByIds(this.deps.db.kysely, pending);
      } catch (err) {
        for (const id of pending) this.crossed.delete(id);
        throw err;
      }
      if (this.stopped) return;
      if (this.deps.paused()) {
        // Events held back now may be older than this read and would be applied after it.
        for (const id of pending) {
          this.crossed.delete(id);
          this.deferred.add(id);
        }
        return;
      }
      const again: number[] = [];
      for (const row of rows) {
        const accountId = Number(row.id);
        const crossedBy = this.crossed.get(accountId) ?? 0;
        this.crossed.delete(accountId);
        if (crossedBy > 0) {
          again.push(accountId);
          continue;
        }
        const balanceMinor = Number(row.balance_minor);
        // Held even when no socket follows it yet: a subscription that read the account just
        // before the deposit keeps this newer state (ensureAccount keeps what exists).
        this.deps.book.ensureAccount(accountId, Number(row.user_id), balanceMinor, Number(row.leverage));
        this.deps.book.setBalance(accountId, balanceMinor);
      }
      for (const id of pending) this.crossed.delete(id);
      pending = again;
    }
  }
}
