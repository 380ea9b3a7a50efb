import { accountsByIds } from '../../accounts/index.js';
import type { AppContext } from '../../core/context.js';
import type { TradingService } from '../service.js';
import { accountId as toAccountId } from '../types.js';
import type { LiveAccount, LiveBook } from './book.js';
import type { HeldEvents } from './held-events.js';
import { positionsFrame, type SendToAccount } from './trader-messages.js';

/** A failed reload (the database is down too) is tried again after this long. */
const RETRY_AFTER_MS = 5_000;

export interface BookResyncDeps {
  db: Pick<AppContext['db'], 'kysely'>;
  log: Pick<AppContext['log'], 'info' | 'error'>;
  service: Pick<TradingService, 'loadOpenBook'>;
  book: LiveBook;
  /** The bus events that arrive during the reload wait for it. */
  held: HeldEvents;
  send: SendToAccount;
}

/**
 * docs/operations.md#redis-outages-and-leadership: after a bus outage (this node's or another's)
 * the events it hid are lost, so the book reloads balances, leverage and open positions (with
 * their protection) from the database, and each connected trader gets their positions again.
 * Resyncs that arrive while one runs are folded into one more.
 */
export class BookResync {
  /** False until the book has loaded (start() loads from the database anyway) and after stop. */
  private enabled = false;
  private running: Promise<void> | undefined;
  private again = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly deps: BookResyncDeps) {}

  /** The book is loaded: a resync reloads it from now on. */
  enable(): void {
    this.enabled = true;
  }

  /** A bus `resync`: reloads now, or once more after the reload that runs. */
  request(): void {
    if (!this.enabled) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.reload()
      .catch((err: unknown) => {
        this.deps.log.error({ err }, 'reloading the open book after a bus outage failed; retrying');
        this.retry = setTimeout(() => this.request(), RETRY_AFTER_MS);
        this.retry.unref();
      })
      .finally(() => {
        this.running = undefined;
        if (this.again && this.enabled) {
          this.again = false;
          this.request();
        }
      });
  }

  /** No resync from now on (at once); resolves when a reload that runs has ended. */
  stop(): Promise<void> {
    this.enabled = false;
    clearTimeout(this.retry);
    return this.running ?? Promise.resolve();
  }

  private async reload(): Promise<void> {
    const { book, held, service, db, send, log } = this.deps;
    held.hold();
    const reloaded: LiveAccount[] = [];
    try {
      const entries = await service.loadOpenBook();
      const withPositions = new Set(entries.map((e) => Number(e.accountId)));
      // Accounts this node holds whose positions are all closed now: their balance moved too.
      const others = book.accountIds().filter((id) => !withPositions.has(id));
      const rows = others.length > 0 ? await accountsByIds(db.kysely, others) : [];
      for (const entry of entries) reloaded.push(book.replaceAccount(entry));
      for (const row of rows) {
        reloaded.push(
          book.replaceAccount({
            accountId: toAccountId(row.id),
            userId: Number(row.user_id),
            balanceMinor: Number(row.balance_minor),
            leverage: Number(row.leverage),
            status: row.status,
            positions: [],
          }),
        );
      }
    } finally {
      held.release();
    }
    for (const account of reloaded) send(account.userId, account.accountId, () => [positionsFrame(account)]);
    log.info({ accounts: reloaded.length }, 'open book reloaded after a bus outage');
  }
}
