import { Dec } from '@pipdesk/contract';
import type { AppContext } from '../core/context.js';
import type { ChallengeOrderRules, ChallengeRulesSource } from '../trading/index.js';
import { type AttemptRow, findProgram } from './attempts.js';
import { dayStartAfter } from './day.js';
import { phaseEndsAt, specOf } from './phase.js';
import { type ProgramRow, phaseRules, phasesOf, type StoredPhase } from './programs.js';
import { dailyLossFloor, maxLossFloor, type PhaseRules } from './rules.js';

/** An active attempt as every node keeps it: its program, its phase's rules and its floors in cents. */
export interface BookEntry {
  attempt: AttemptRow;
  program: ProgramRow;
  phase: StoredPhase;
  rules: PhaseRules;
  initialMinor: number;
  floors: { daily: number | null; maxLoss: number };
  /**
   * The higher of the two floors as a `Dec`'s raw integer: the live book watches the account's
   * equity against it (`engine.ts`), and only an equity at or below it is looked at rule by rule.
   */
  thresholdRaw: bigint;
  /**
   * When its next day starts and when its phase runs out (null: no `max_days`), worked out once
   * when the entry is put: the leader's day check then compares instants and calls no time-zone
   * code per attempt (engine.ts `checkDays`).
   */
  nextDayStart: number;
  phaseEndsAt: number | null;
  /**
   * The phase's trading days and closed P&L per day (`phase.ts` `phaseDays`), read once and kept
   * until the next fill on the account (`daysOf`, `noteFill`): the meter and the pass check then
   * read no trades while nothing filled. `daysVersion` counts the fills seen, so a read that a
   * fill overtook is not kept.
   */
  days: { tradingDays: number; dayPnlsMinor: number[] } | undefined;
  daysVersion: number;
  /** This book's count of changes when the read that put the entry began (`EvaluationBook.reload`). */
  changedAt: number;
  /** Set while this node applies a breach or a pass, so a tick meanwhile does not start another. */
  busy: boolean;
}

/**
 * The active attempts of every program, in memory on every node (docs/evaluations.md#on-many-nodes),
 * keyed by their challenge account: the breach check on each tick and the order rules of each
 * order read them, never the database. Loaded at start and after a bus outage; one attempt is read
 * again whenever the bus says it changed.
 */
export class EvaluationBook implements ChallengeRulesSource {
  private readonly byAccount = new Map<number, BookEntry>();
  /**
   * Counts reads and drops: each entry carries the count its read began at, and `forgottenAt` the
   * count each recently forgotten account was dropped at (the last 10,000), so `reload` and
   * `loadAll` drop a read that began before the entry's own read or before it was forgotten: of
   * two reads the later one wins, whichever finishes last.
   */
  private changes = 0;
  private readonly forgottenAt = new Map<number, number>();
  /** Next day starts by program and day (`nextDayStart`); cleared past 10,000. */
  private readonly nextDays = new Map<string, number>();
  /** Told of every entry put (and, with undefined, dropped): the engine's equity watches follow the book. */
  private follower: ((accountId: number, entry: BookEntry | undefined) => void) | undefined;

  constructor(private readonly deps: Pick<AppContext, 'db'>) {}

  get(accountId: number): BookEntry | undefined {
    return this.byAccount.get(accountId);
  }

  entries(): IterableIterator<BookEntry> {
    return this.byAccount.values();
  }

  size(): number {
    return this.byAccount.size;
  }

  /** Calls `follower` for every entry now and on every change after; returns the way to stop. */
  follow(follower: (accountId: number, entry: BookEntry | undefined) => void): () => void {
    this.follower = follower;
    for (const [accountId, entry] of this.byAccount) follower(accountId, entry);
    // Stopping drops every entry's watch too: no tick after it starts a breach nobody awaits.
    return () => {
      for (const accountId of this.byAccount.keys()) follower(accountId, undefined);
      this.follower = undefined;
    };
  }

  orderRules(accountId: number): ChallengeOrderRules | undefined {
    const entry = this.byAccount.get(accountId);
    return entry ? { requireStopLoss: entry.rules.requireStopLoss, maxLotsCentilots: entry.rules.maxLotsCentilots } : undefined;
  }

  /** Every active attempt, read again (start-up, a bus outage healed). */
  async loadAll(): Promise<void> {
    const q = this.deps.db.kysely;
    const started = ++this.changes;
    const attempts = await q.selectFrom('evaluation_attempts').selectAll().where('status', '=', 'active').execute();
    const programIds = [...new Set(attempts.map((a) => Number(a.program_id)))];
    const programs =
      programIds.length === 0
        ? []
        : await q.selectFrom('evaluation_programs').selectAll().where('id', 'in', programIds).execute();
    const byId = new Map(programs.map((p) => [Number(p.id), p]));
    const active = new Set(attempts.map((a) => Number(a.account_id)));
    // What changed while the attempts were read is newer than this read: it stays as it is.
    for (const accountId of [...this.byAccount.keys()])
      if (!active.has(accountId) && this.changedSince(accountId) < started) this.forget(accountId);
    for (const attempt of attempts)
      if (this.changedSince(Number(attempt.account_id)) < started)
        this.put(attempt, byId.get(Number(attempt.program_id))!, started);
  }

  /** One attempt read again after a change (started, failed, passed, next phase, a day recorded). */
  async reload(attemptId: number): Promise<void> {
    const q = this.deps.db.kysely;
    const started = ++this.changes;
    const attempt = await q.selectFrom('evaluation_attempts').selectAll().where('id', '=', attemptId).executeTakeFirst();
    if (!attempt) return;
    const accountId = Number(attempt.account_id);
    if (attempt.status !== 'active') {
      this.forget(accountId);
      return;
    }
    const program = await findProgram(q, Number(attempt.program_id));
    // Reads of one attempt may finish out of order: one that began before the entry last changed
    // (a later read, or the attempt ended here) would put back what is already out of date.
    if (program && this.changedSince(accountId) < started) this.put(attempt, program, started);
  }

  /** A fill on the account (every node hears of it on the bus): its trading days are read again when next needed. */
  noteFill(accountId: number): void {
    const entry = this.byAccount.get(accountId);
    if (!entry) return;
    entry.daysVersion++;
    entry.days = undefined;
  }

  /** Forgets an attempt at once (its breach is being applied on this node). */
  forget(accountId: number): void {
    this.forgottenAt.delete(accountId);
    if (this.forgottenAt.size >= 10_000) this.forgottenAt.delete(this.forgottenAt.keys().next().value!);
    this.forgottenAt.set(accountId, ++this.changes);
    if (this.byAccount.delete(accountId)) this.follower?.(accountId, undefined);
  }

  /** When the account's entry last changed (put or forgotten), on this book's counter. */
  private changedSince(accountId: number): number {
    return Math.max(this.byAccount.get(accountId)?.changedAt ?? 0, this.forgottenAt.get(accountId) ?? 0);
  }

  /**
   * The start of the day after `dayStart` in the program's zone. The attempts of one program
   * mostly share their day, so it is worked out once per program and day: loading 10,000
   * attempts then calls the time-zone code a few times, not 10,000.
   */
  private nextDayStart(program: ProgramRow, dayStart: number): number {
    const key = `${program.id}:${program.time_zone}:${program.day_start}:${dayStart}`;
    let next = this.nextDays.get(key);
    if (next === undefined) {
      if (this.nextDays.size >= 10_000) this.nextDays.clear();
      next = dayStartAfter(dayStart, specOf({ program }), 1);
      this.nextDays.set(key, next);
    }
    return next;
  }

  private put(attempt: AttemptRow, program: ProgramRow, readAt: number): void {
    const phase = phasesOf(program)[Number(attempt.phase_index)]!;
    const rules = phaseRules(phase);
    const initialMinor = Number(program.initial_balance_minor);
    const floors = {
      daily: dailyLossFloor(rules, initialMinor, Number(attempt.day_basis_minor)),
      maxLoss: maxLossFloor(rules, initialMinor, Number(attempt.highest_day_end_minor)),
    };
    const entry: BookEntry = {
      attempt,
      program,
      phase,
      rules,
      initialMinor,
      floors,
      thresholdRaw: Dec.scaled(Math.max(floors.daily ?? floors.maxLoss, floors.maxLoss), 2).raw,
      nextDayStart: this.nextDayStart(program, Number(attempt.day_start_at)),
      phaseEndsAt: phaseEndsAt({ program, attempt, rules }),
      days: undefined,
      daysVersion: 0,
      changedAt: readAt,
      // A new entry (a day recorded, the next phase) starts free: the work that read it again is done.
      busy: false,
    };
    const accountId = Number(attempt.account_id);
    this.byAccount.set(accountId, entry);
    this.follower?.(accountId, entry);
  }
}
