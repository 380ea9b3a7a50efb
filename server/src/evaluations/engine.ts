import { Dec } from '@pipdesk/contract';
import { sql } from 'kysely';
import { lockAccountById } from '../accounts/index.js';
import type { AppContext } from '../core/context.js';
import { writeTransaction } from '../db/transaction.js';
import {
  equityWatch,
  type LiveAccount,
  type LiveTrading,
  type TradingServiceImpl,
  accountId as toAccountId,
  userId as toUserId,
} from '../trading/index.js';
import { ATTEMPT_CHANGED_TOPIC, findAttempt, findAttemptByAccount, findProgram, type StoredFailure } from './attempts.js';
import type { BookEntry, EvaluationBook } from './book.js';
import { dayOf } from './day.js';
import { meterOf } from './meter.js';
import { daysOf, specOf } from './phase.js';
import { phasesOf } from './programs.js';
import { breachOf, dayBasis, passingCheck } from './rules.js';

/** How often the leader looks for day starts and expired phases (docs/evaluations.md#the-day). */
export const DAY_CHECK_MS = 15_000;

type Deps = Pick<AppContext, 'db' | 'bus' | 'clock' | 'log'>;

/**
 * The evaluations' engine (docs/evaluations.md): on every node it keeps the book of active
 * attempts current; on the price-source leader it finds breaches on the tick or fill that causes
 * them (from memory), records day starts, ends phases whose time ran out and passes phases after
 * fills. Every change is a conditional write (`… WHERE status = 'active'`), so it is applied once
 * however many nodes see it.
 */
export class EvaluationEngine {
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribers: Array<() => void> = [];
  /** Work in flight (breaches, passes, day checks), awaited by stop(). */
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: Deps & {
      book: EvaluationBook;
      live: Pick<LiveTrading, 'watchEquity' | 'accountSnapshot' | 'accountFigures' | 'sendToAccount' | 'servesAccount'>;
      trading: Pick<TradingServiceImpl, 'closePosition' | 'cancelOrder' | 'resetAccount'>;
      isLeader: () => boolean;
    },
  ) {}

  async start(): Promise<void> {
    const { bus, book } = this.deps;
    this.unsubscribers.push(
      bus.subscribe('message', (message) => {
        if (message.topic !== ATTEMPT_CHANGED_TOPIC) return;
        const { attemptId } = message.payload;
        this.track(book.reload(attemptId).then(() => this.notify({ attemptId })));
      }),
      bus.subscribe('resync', () => this.track(book.loadAll())),
      bus.subscribe('execution', ({ accountId }) => {
        book.noteFill(accountId);
        const entry = book.get(accountId);
        if (!entry) return;
        if (this.deps.isLeader()) this.track(this.checkPassing(entry));
        this.track(this.notify({ accountId }));
      }),
      // Each active attempt's account is watched by the live book at its higher floor.
      book.follow((accountId, entry) =>
        this.deps.live.watchEquity(
          accountId,
          entry ? equityWatch(entry.thresholdRaw, (account) => this.reached(entry, account)) : null,
        ),
      ),
    );
    await book.loadAll();
    this.timer = setInterval(() => this.track(this.checkDays()), DAY_CHECK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const off of this.unsubscribers.splice(0)) off();
    await Promise.allSettled([...this.running]);
  }

  private track(work: Promise<unknown>): void {
    const run = work
      .catch((err) => this.deps.log.error({ err }, 'evaluation work failed'))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /**
   * `challenge_update` to the sockets of this node that serve the attempt's account, when more than
   * its equity changed (a fill, a day start, a breach, a pass): read only when such a socket exists.
   */
  private async notify(which: { attemptId: number } | { accountId: number }): Promise<void> {
    const q = this.deps.db.kysely;
    // After a fill the attempt is active, in the book: its trading days are read once (`daysOf`).
    const entry = 'accountId' in which ? this.deps.book.get(which.accountId) : undefined;
    const attempt =
      entry?.attempt ??
      ('attemptId' in which ? await findAttempt(q, which.attemptId) : await findAttemptByAccount(q, which.accountId));
    if (!attempt) return;
    const userId = Number(attempt.user_id);
    const accountId = Number(attempt.account_id);
    if (!this.deps.live.servesAccount(userId, accountId)) return;
    const program = entry?.program ?? (await findProgram(q, Number(attempt.program_id)));
    const user = await q.selectFrom('users').select(['id', 'email', 'full_name']).where('id', '=', userId).executeTakeFirst();
    if (!program || !user) return;
    const deps = { db: this.deps.db, clock: this.deps.clock, live: this.deps.live };
    const who = { id: Number(user.id), email: user.email, full_name: user.full_name };
    const meter = await meterOf(deps, attempt, program, who, entry ? () => daysOf(deps, entry) : undefined);
    this.deps.live.sendToAccount(userId, accountId, 'challenge_update', () => ({ data: meter }));
  }

  /**
   * Synchronous, on the tick or fill that left the account's equity at or below its higher floor
   * (the live book's watch, docs/evaluations.md#on-many-nodes): the leader compares it with each
   * floor, exactly, and ends the attempt on a breach.
   */
  private reached(entry: BookEntry, account: LiveAccount): void {
    if (entry.busy || !this.deps.isLeader()) return;
    const equity = Dec.scaled(account.balanceMinor, 2).plus(account.unrealizedSum);
    const breach = breachOf(equity, entry.floors);
    if (!breach) return;
    entry.busy = true;
    this.track(
      this.fail(entry, {
        rule: breach.rule,
        at: this.deps.clock.now(),
        equity_minor: equity.toScaledNumber(2),
        floor_minor: breach.floor,
        balance_minor: account.balanceMinor,
      }).finally(() => {
        entry.busy = false;
      }),
    );
  }

  /**
   * Ends the attempt as failed, once: under the account's lock the attempt goes from active to
   * failed with its snapshot and the account is closed to orders (409 `CHALLENGE_CLOSED`); then its
   * positions close at market (reason `challenge_breach`) and its pending orders are cancelled.
   */
  async fail(entry: BookEntry, failure: StoredFailure): Promise<boolean> {
    const accountId = Number(entry.attempt.account_id);
    const attemptId = Number(entry.attempt.id);
    const failed = await writeTransaction(this.deps.db, async (trx) => {
      await lockAccountById(trx, accountId);
      const updated = await trx
        .updateTable('evaluation_attempts')
        .set({ status: 'failed', failure: JSON.stringify(failure), ended_at: failure.at, updated_at: failure.at })
        .where('id', '=', attemptId)
        .where('status', '=', 'active')
        .where('phase_index', '=', Number(entry.attempt.phase_index))
        .returning('id')
        .executeTakeFirst();
      if (!updated) return false;
      await trx
        .updateTable('trading_accounts')
        .set({ status: 'CLOSED', updated_at: failure.at })
        .where('id', '=', accountId)
        .execute();
      return true;
    });
    if (!failed) {
      // Already ended (another node, or the trader's own pass): this node's entry was out of date.
      await this.deps.book.reload(attemptId);
      return false;
    }
    this.deps.book.forget(accountId);
    this.deps.bus.publish('message', { topic: ATTEMPT_CHANGED_TOPIC, payload: { attemptId } });
    await this.wind(entry);
    return true;
  }

  /** Closes an ended attempt's positions and cancels its pending orders. */
  private async wind(entry: BookEntry): Promise<void> {
    const { trading, db } = this.deps;
    const accountId = Number(entry.attempt.account_id);
    const userId = Number(entry.attempt.user_id);
    const rows = (table: 'positions' | 'orders', status: 'OPEN' | 'PENDING') =>
      db.kysely.selectFrom(table).select('id').where('account_id', '=', accountId).where('status', '=', status).execute();
    await settleEach(await rows('positions', 'OPEN'), 'POSITION_CLOSED', (id) =>
      trading.closePosition(userId, id, { reason: 'challenge_breach', accountId: toAccountId(accountId) }),
    );
    await settleEach(await rows('orders', 'PENDING'), 'ORDER_NOT_PENDING', (id) =>
      trading.cancelOrder(userId, id, accountId, 'evaluation'),
    );
  }

  /** The account's balance in cents: the live book's, else the database's (nothing open on it). */
  private async balanceOf(accountId: number): Promise<number> {
    const live = this.deps.live.accountFigures(accountId);
    if (live) return live.balance.toScaledNumber(2);
    const row = await this.deps.db.kysely
      .selectFrom('trading_accounts')
      .select('balance_minor')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.balance_minor);
  }

  /** After a fill on an attempt's account: passes the phase when every condition holds (flat, target, days, best day). */
  private async checkPassing(entry: BookEntry): Promise<void> {
    if (entry.busy) return;
    const accountId = Number(entry.attempt.account_id);
    const snapshot = this.deps.live.accountSnapshot(accountId);
    if (snapshot && snapshot.positions.length > 0) return;
    const days = await daysOf(this.deps, entry);
    const current = await this.balanceOf(accountId);
    const check = passingCheck(entry.rules, {
      initialMinor: entry.initialMinor,
      balanceMinor: current,
      openPositions: 0,
      ...days,
    });
    if (!check.passed) return;
    entry.busy = true;
    try {
      await this.pass(entry);
    } finally {
      entry.busy = false;
    }
  }

  /**
   * Passes the phase, once. The last phase: the attempt is passed and the account read-only. Any
   * other: the next phase starts on the same account, its balance back to the initial one (a
   * `reset` ledger entry and a new period), in the same transaction as the attempt's change.
   */
  private async pass(entry: BookEntry): Promise<void> {
    const { db, clock, trading, bus } = this.deps;
    const attemptId = Number(entry.attempt.id);
    const accountId = Number(entry.attempt.account_id);
    const phaseIndex = Number(entry.attempt.phase_index);
    const last = phaseIndex + 1 >= phasesOf(entry.program).length;
    const now = clock.now();
    if (last) {
      const passed = await writeTransaction(db, async (trx) => {
        await lockAccountById(trx, accountId);
        const updated = await trx
          .updateTable('evaluation_attempts')
          .set({ status: 'passed', ended_at: now, updated_at: now })
          .where('id', '=', attemptId)
          .where('status', '=', 'active')
          .where('phase_index', '=', phaseIndex)
          .returning('id')
          .executeTakeFirst();
        if (!updated) return false;
        await trx
          .updateTable('trading_accounts')
          .set({ status: 'CLOSED', updated_at: now })
          .where('id', '=', accountId)
          .execute();
        return true;
      });
      if (passed) {
        this.deps.book.forget(accountId);
        bus.publish('message', { topic: ATTEMPT_CHANGED_TOPIC, payload: { attemptId } });
      }
      return;
    }
    const day = dayOf(now, specOf(entry));
    let moved = false;
    await trading
      .resetAccount({
        userId: toUserId(Number(entry.attempt.user_id)),
        accountId: toAccountId(accountId),
        startingBalanceMinor: entry.initialMinor,
        actorUserId: Number(entry.attempt.user_id),
        alongside: async (trx) => {
          const updated = await trx
            .updateTable('evaluation_attempts')
            .set({
              phase_index: phaseIndex + 1,
              phase_started_at: now,
              day_start_at: day.start,
              day_basis_minor: entry.initialMinor,
              highest_day_end_minor: entry.initialMinor,
              updated_at: now,
            })
            .where('id', '=', attemptId)
            .where('status', '=', 'active')
            .where('phase_index', '=', phaseIndex)
            .returning('id')
            .executeTakeFirst();
          // Another node passed it first: roll the whole reset back.
          if (!updated) throw new PhaseAlreadyMoved();
          moved = true;
        },
      })
      .catch((err) => {
        if (!(err instanceof PhaseAlreadyMoved)) throw err;
      });
    if (moved) {
      await this.deps.book.reload(attemptId);
      bus.publish('message', { topic: ATTEMPT_CHANGED_TOPIC, payload: { attemptId } });
    }
  }

  /**
   * Day starts and time limits, on the leader (every DAY_CHECK_MS, and at start-up, so a day that
   * began while no node ran is recorded as soon as one does). A day start is written once: `WHERE
   * day_start_at < the new start`.
   */
  async checkDays(): Promise<void> {
    if (!this.deps.isLeader()) return;
    const now = this.deps.clock.now();
    for (const entry of [...this.deps.book.entries()]) {
      // The common case, for every attempt every DAY_CHECK_MS: two comparisons of instants.
      if (entry.busy || (now < entry.nextDayStart && (entry.phaseEndsAt === null || now < entry.phaseEndsAt))) continue;
      const accountId = Number(entry.attempt.account_id);
      const figures = this.deps.live.accountFigures(accountId);
      if (entry.phaseEndsAt !== null && now >= entry.phaseEndsAt) {
        entry.busy = true;
        const balanceMinor = await this.balanceOf(accountId);
        await this.fail(entry, {
          rule: 'time_limit',
          at: now,
          equity_minor: figures ? figures.equity.toScaledNumber(2) : balanceMinor,
          floor_minor: null,
          balance_minor: balanceMinor,
        }).finally(() => {
          entry.busy = false;
        });
        continue;
      }
      await this.recordDay(entry, dayOf(now, specOf(entry)).start, figures?.equity);
    }
  }

  /** A new day for one attempt: its basis, and the highest day-end balance (the trailing max loss). */
  private async recordDay(entry: BookEntry, dayStart: number, equity: Dec | undefined): Promise<void> {
    const attemptId = Number(entry.attempt.id);
    const accountId = Number(entry.attempt.account_id);
    const written = await writeTransaction(this.deps.db, async (trx) => {
      const account = await lockAccountById(trx, accountId);
      if (!account) return false;
      const balanceMinor = Number(account.balance_minor);
      const basis = dayBasis(entry.rules.dailyLossBasis, balanceMinor, equity ?? Dec.scaled(balanceMinor, 2));
      const updated = await trx
        .updateTable('evaluation_attempts')
        .set({
          day_start_at: dayStart,
          day_basis_minor: basis,
          // The balance as the day ended is the balance now: nothing moved it since the boundary but fills, which are of the new day.
          highest_day_end_minor: sql<number>`case when highest_day_end_minor > ${balanceMinor} then highest_day_end_minor else ${balanceMinor} end`,
          updated_at: this.deps.clock.now(),
        })
        .where('id', '=', attemptId)
        .where('status', '=', 'active')
        .where('day_start_at', '<', dayStart)
        .returning('id')
        .executeTakeFirst();
      return updated !== undefined;
    });
    if (!written) return;
    await this.deps.book.reload(attemptId);
    this.deps.bus.publish('message', { topic: ATTEMPT_CHANGED_TOPIC, payload: { attemptId } });
  }
}

class PhaseAlreadyMoved extends Error {}

/** Runs `act` on each row; one that ends in `gone` was settled first by someone else (the trader's own close): nothing to do. */
async function settleEach(
  rows: ReadonlyArray<{ id: number }>,
  gone: string,
  act: (id: number) => Promise<unknown>,
): Promise<void> {
  for (const row of rows) {
    try {
      await act(Number(row.id));
    } catch (err) {
      if ((err as { code?: string }).code !== gone) throw err;
    }
  }
}
