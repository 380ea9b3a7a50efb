import { describe, expect, it } from 'vitest';
import type { Db } from '../db/database.js';
import type { AttemptRow } from './attempts.js';
import { type BookEntry, EvaluationBook } from './book.js';
import type { ProgramRow } from './programs.js';

// The book's reads of one attempt can finish out of order (each is two awaited reads); a read
// that began before the entry last changed must not put back what is already out of date. The
// database here is a stand-in whose reads the test answers one at a time, in the order it wants.

const program: ProgramRow = {
  id: 1,
  cohort_id: 1,
  name: 'Challenge',
  initial_balance_minor: 10_000_000,
  leverage: 100,
  time_zone: 'Europe/Prague',
  day_start: '00:00',
  allow_self_start: 0,
  status: 'active',
  phases: JSON.stringify([
    {
      name: 'Phase 1',
      profit_target: 1000,
      max_daily_loss: 500,
      daily_loss_basis: 'balance',
      max_loss: 1000,
      max_loss_mode: 'static',
      min_trading_days: 0,
      max_days: null,
      best_day: null,
      require_stop_loss: false,
      max_lots_centilots: null,
    },
  ]),
  created_by: 1,
  created_at: 0,
  updated_at: 0,
};

const attempt = (over: Partial<AttemptRow>): AttemptRow => ({
  id: 7,
  program_id: 1,
  user_id: 3,
  account_id: 40,
  phase_index: 0,
  status: 'active',
  started_at: 0,
  phase_started_at: 0,
  ended_at: null,
  failure: null,
  day_start_at: Date.UTC(2026, 10, 1, 23),
  day_basis_minor: 10_000_000,
  highest_day_end_minor: 10_000_000,
  started_by: 1,
  updated_at: 0,
  ...over,
});

/** A database whose `executeTakeFirst` calls wait until the test answers them, in any order. */
function heldDb() {
  const waiting: Array<{ table: string; answer: (row: unknown) => void }> = [];
  const query = (table: string) => {
    const builder = {
      selectAll: () => builder,
      where: () => builder,
      executeTakeFirst: () => new Promise((answer) => waiting.push({ table, answer })),
    };
    return builder;
  };
  const db = { kysely: { selectFrom: query } } as unknown as Db;
  /** Answers the oldest waiting read of `table` with `row`, then lets the reader run on. */
  const answer = async (table: string, row: unknown) => {
    const i = waiting.findIndex((w) => w.table === table);
    if (i < 0) throw new Error(`no read of ${table} is waiting`);
    waiting.splice(i, 1)[0]!.answer(row);
    for (let n = 0; n < 5; n++) await Promise.resolve();
  };
  return { db, answer };
}

describe('EvaluationBook reads that finish out of order', () => {
  it('does not put back an attempt forgotten while an earlier read of it was under way', async () => {
    const { db, answer } = heldDb();
    const book = new EvaluationBook({ db });
    const watched: Array<[number, BookEntry | undefined]> = [];
    book.follow((accountId, entry) => watched.push([accountId, entry]));
    // A read after "a day recorded" starts, then this node applies the breach and forgets it.
    const late = book.reload(7);
    book.forget(40);
    await answer('evaluation_attempts', attempt({ day_basis_minor: 9_900_000 }));
    await answer('evaluation_programs', program);
    await late;
    expect(book.get(40)).toBeUndefined();
    // No watch was set again on the account.
    expect(watched.filter(([, entry]) => entry !== undefined)).toEqual([]);
  });

  it('keeps the newer of two reads of one attempt whichever finishes last', async () => {
    const { db, answer } = heldDb();
    const book = new EvaluationBook({ db });
    const older = book.reload(7);
    const newer = book.reload(7);
    // The newer read sees the day recorded; it finishes first.
    await answer('evaluation_attempts', attempt({ day_basis_minor: 10_000_000 }));
    await answer('evaluation_attempts', attempt({ day_basis_minor: 9_500_000 }));
    await answer('evaluation_programs', program);
    await answer('evaluation_programs', program);
    await Promise.all([older, newer]);
    expect(book.get(40)?.attempt.day_basis_minor).toBe(9_500_000);
    expect(book.get(40)?.floors.daily).toBe(9_500_000 - 500_000);
  });
});
