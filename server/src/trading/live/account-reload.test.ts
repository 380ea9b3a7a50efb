import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { depositToAccount } from '../../accounts/service.js';
import { systemClock } from '../../core/clock.js';
import { type Db, openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../migrations.js';
import { MemoryBus } from '../../realtime/bus.js';
import { insertTrader } from '../../test/factories.js';
import { freshDatabase, testConfig } from '../../test/helpers.js';
import { BALANCE_ADJUSTED_TOPIC } from '../events.js';
import type { ExecutionEvent } from '../types.js';
import { AccountReloader } from './account-reload.js';
import { type LiveAccount, LiveBook } from './book.js';

/**
 * docs/operations.md#deposits: a server follows `account_changes` and sets the balances they
 * name from the database, never from a read that one of the account's own events crossed.
 */
describe('AccountReloader', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Db;
  const bus = new MemoryBus();
  const log = { info: () => {}, warn: () => {} };
  /** Runs just before each read of trading_accounts (where a crossing event is published). */
  let beforeAccountRead: () => void = () => {};
  let reads = 0;
  let changed: number[] = [];
  let book: LiveBook;
  let paused = false;

  beforeAll(async () => {
    fresh = await freshDatabase();
    db = openDatabase(testConfig(fresh.dataDir).database, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db.close();
    await fresh.drop();
  });
  beforeEach(() => {
    book = new LiveBook([], (account: LiveAccount) => changed.push(account.balanceMinor));
    changed = [];
    reads = 0;
    paused = false;
    beforeAccountRead = () => {};
  });

  /** The database, with a hook before every read of the accounts' rows. */
  const watched = () => ({
    kysely: new Proxy(db.kysely, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === 'selectFrom')
          return (from: never) => {
            if (from === 'trading_accounts') {
              reads++;
              beforeAccountRead();
            }
            return value.call(target, from);
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  });

  async function reloader() {
    const r = new AccountReloader({ db: watched(), bus, log, book, paused: () => paused, pollMs: 3_600_000 });
    await r.mark();
    r.start();
    return r;
  }

  const deposit = (email: string, amountMinor: number) =>
    depositToAccount({ db, clock: systemClock }, { email, amountMinor, note: 'test' });

  async function heldTrader(balanceMinor: number) {
    const trader = await insertTrader({ db, clock: systemClock }, { balanceMinor });
    const account = book.ensureAccount(trader.accountId!, trader.userId, balanceMinor, 100);
    return { ...trader, account };
  }

  it('sets the balance of a deposited account once, from the database, and notifies', async () => {
    const earlier = await heldTrader(10_000);
    await deposit(earlier.email, 1); // before mark(): the book loads it from the database anyway
    const r = await reloader();
    const trader = await heldTrader(10_000);
    await deposit(trader.email, 2_550);
    await r.poll();
    expect(trader.account.balanceMinor).toBe(12_550);
    expect(earlier.account.balanceMinor).toBe(10_000);
    expect(changed).toEqual([12_550]);

    // Read once: a later turn without new changes sets nothing.
    trader.account.balanceMinor = 1;
    await r.poll();
    expect(trader.account.balanceMinor).toBe(1);
    r.stop();
  });

  it('holds an account no socket follows yet, so a subscription made before the deposit cannot keep the old balance', async () => {
    const r = await reloader();
    const trader = await insertTrader({ db, clock: systemClock }, { balanceMinor: 500 });
    await deposit(trader.email, 100);
    await r.poll();
    // What subscribePnl does with the balance it read before the deposit: ensureAccount keeps the newer state.
    expect(book.ensureAccount(trader.accountId!, trader.userId, 500, 100).balanceMinor).toBe(600);
    r.stop();
  });

  it('reads again when an event of the account crosses the read, and leaves it to the next turn after repeated crossings', async () => {
    const r = await reloader();
    const trader = await heldTrader(10_000);
    await deposit(trader.email, 5_000);
    const crossings = { left: 1 };
    beforeAccountRead = () => {
      if (crossings.left-- <= 0) return;
      // An execution committed around the read: its balance is applied by the live book first.
      trader.account.balanceMinor = 14_000;
      bus.publish('execution', { userId: trader.userId, accountId: trader.accountId!, payload: {} as ExecutionEvent });
    };
    await r.poll();
    expect(reads).toBe(2);
    expect(trader.account.balanceMinor).toBe(15_000);

    // Crossed at every immediate read: nothing applied now, the next turn reads it again.
    await deposit(trader.email, 1_000);
    reads = 0;
    crossings.left = 100;
    beforeAccountRead = () => {
      if (crossings.left-- <= 0) return;
      bus.publish('message', {
        topic: BALANCE_ADJUSTED_TOPIC,
        payload: { userId: trader.userId, accountId: trader.accountId!, balance_minor: 0, amount_minor: 0 },
      });
    };
    await r.poll();
    expect(reads).toBe(4);
    expect(trader.account.balanceMinor).toBe(15_000);
    crossings.left = 0;
    await r.poll();
    expect(trader.account.balanceMinor).toBe(16_000);

    // Another account's events do not hold this one back.
    const other = await heldTrader(100);
    await deposit(trader.email, 1);
    reads = 0;
    beforeAccountRead = () =>
      bus.publish('execution', { userId: other.userId, accountId: other.accountId!, payload: {} as ExecutionEvent });
    await r.poll();
    expect(reads).toBe(1);
    expect(trader.account.balanceMinor).toBe(16_001);
    r.stop();
  });

  it('waits while the live book holds events back, without losing the change', async () => {
    const r = await reloader();
    const trader = await heldTrader(700);
    await deposit(trader.email, 300);
    paused = true;
    await r.poll();
    expect(reads).toBe(0);
    // A hold that starts during the read: the read is not applied either.
    paused = false;
    beforeAccountRead = () => {
      paused = true;
    };
    await r.poll();
    expect(trader.account.balanceMinor).toBe(700);
    paused = false;
    beforeAccountRead = () => {};
    await r.poll();
    expect(trader.account.balanceMinor).toBe(1_000);
    r.stop();
  });

  it('a failing read keeps the change for the next turn and logs once per outage', async () => {
    const warnings: string[] = [];
    const r = new AccountReloader({
      db: watched(),
      bus,
      log: { info: () => {}, warn: (...args: unknown[]) => warnings.push(String(args.at(-1))) },
      book,
      paused: () => false,
      pollMs: 3_600_000,
    });
    await r.mark();
    r.start();
    const trader = await heldTrader(100);
    await deposit(trader.email, 1);
    beforeAccountRead = () => {
      throw new Error('connection lost');
    };
    await r.poll();
    await r.poll();
    expect(warnings).toEqual(['reading account changes failed; retrying']);
    expect(trader.account.balanceMinor).toBe(100);
    beforeAccountRead = () => {};
    await r.poll();
    expect(trader.account.balanceMinor).toBe(101);

    // Held over after repeated crossings, then a failing turn: still read at the next good one.
    await deposit(trader.email, 1);
    beforeAccountRead = () =>
      bus.publish('execution', { userId: trader.userId, accountId: trader.accountId!, payload: {} as ExecutionEvent });
    await r.poll();
    beforeAccountRead = () => {
      throw new Error('connection lost');
    };
    await r.poll();
    beforeAccountRead = () => {};
    await r.poll();
    expect(trader.account.balanceMinor).toBe(102);
    r.stop();
  });

  it('stop() ends the following: no more reads', async () => {
    const r = await reloader();
    const trader = await heldTrader(1);
    r.stop();
    await deposit(trader.email, 1);
    await r.poll();
    expect(reads).toBe(0);
    expect(trader.account.balanceMinor).toBe(1);
  });
});
