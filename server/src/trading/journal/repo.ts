import { type Kysely, type Selectable, sql } from 'kysely';
import { userNamesByIds } from '../../auth/repo.js';
import type { DbKind } from '../../db/database.js';
import { prepare } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import { lockForUpdate } from '../../db/transaction.js';
import type { JournalEntriesTable } from './tables.js';

type Q = Kysely<Database>;
export type JournalEntryRow = Selectable<JournalEntriesTable>;
export type NewJournalEntry = Omit<JournalEntryRow, 'note' | 'rating' | 'updated_at'>;

const insertOneEntry = prepare<NewJournalEntry, never>('journal.insertEntry', (q, value) =>
  q.insertInto('journal_entries').values({
    trade_id: value('trade_id'),
    period_id: value('period_id'),
    account_id: value('account_id'),
    symbol: value('symbol'),
    realized_pnl_minor: value('realized_pnl_minor'),
    executed_at: value('executed_at'),
    note: '',
    rating: null,
    updated_at: null,
  }),
);

/** A closed trade enters the journal in its fill's transaction (prepared: it is on the order path). */
export async function insertEntry(trx: Q, entry: NewJournalEntry): Promise<void> {
  await insertOneEntry.execute(trx, entry);
}

/** A period's rebuild enters many at once. */
export async function insertEntries(trx: Q, entries: readonly NewJournalEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 200) {
    await trx
      .insertInto('journal_entries')
      .values(entries.slice(i, i + 200).map((e) => ({ ...e, note: '', rating: null, updated_at: null })))
      .execute();
  }
}

export interface JournalFilter {
  periodId: number;
  symbol?: string;
  tag?: string;
}

/** Journal entries joined to their executions (the answer's `trade`). */
function entriesWithTrades(q: Q) {
  return q
    .selectFrom('journal_entries as j')
    .innerJoin('trades as t', 't.id', 'j.trade_id')
    .select([
      'j.trade_id',
      'j.note',
      'j.rating',
      't.id',
      't.account_id',
      't.order_id',
      't.position_id',
      't.pair_id',
      't.symbol',
      't.side',
      't.quantity_centilots',
      't.price_e10',
      't.realized_pnl_minor',
      't.executed_at',
    ]);
}

export type EntryWithTradeRow = Awaited<ReturnType<typeof entryWithTrade>>[number];

export function entryWithTrade(q: Q, tradeId: number) {
  return entriesWithTrades(q).where('j.trade_id', '=', tradeId).execute();
}

/**
 * One page of the period's closed trades with their executions, newest first: it walks
 * `journal_entries_period_idx` (or the symbol or tag index) backwards, so the first page costs
 * the same with a hundred trades or a hundred thousand.
 */
export function entriesPage(q: Q, filter: JournalFilter, limit: number, offset: number) {
  let query = entriesWithTrades(q).where('j.period_id', '=', filter.periodId);
  if (filter.symbol !== undefined) query = query.where('j.symbol', '=', filter.symbol);
  if (filter.tag !== undefined) {
    const { tag, periodId } = filter;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('journal_tags as g')
          .select(sql.lit(1).as('one'))
          .whereRef('g.trade_id', '=', 'j.trade_id')
          .where('g.period_id', '=', periodId)
          .where('g.tag', '=', tag),
      ),
    );
  }
  return query.orderBy('j.trade_id', 'desc').limit(limit).offset(offset).execute();
}

/** How many entries a tag filter matches (the other counts come from the period's statistics). */
export async function countTagged(q: Q, periodId: number, tag: string, symbol?: string): Promise<number> {
  let query = q.selectFrom('journal_tags as g').where('g.period_id', '=', periodId).where('g.tag', '=', tag);
  if (symbol !== undefined) {
    query = query.innerJoin('journal_entries as j', 'j.trade_id', 'g.trade_id').where('j.symbol', '=', symbol);
  }
  // count(*) is an int8 on PostgreSQL, which db/database.ts reads as a number.
  const row = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return row.n;
}

export function tagsOf(q: Q, tradeIds: readonly number[]) {
  if (tradeIds.length === 0) return Promise.resolve([]);
  return q
    .selectFrom('journal_tags')
    .select(['trade_id', 'tag'])
    .where('trade_id', 'in', [...tradeIds])
    .orderBy('trade_id')
    .orderBy('position')
    .execute();
}

/**
 * The comments on these trades, oldest first per trade, with their authors' names. The users
 * table is auth's: the names come through auth/repo.ts, one query for all of the page's authors.
 */
export async function commentsOf(q: Q, tradeIds: readonly number[]) {
  if (tradeIds.length === 0) return [];
  const rows = await q
    .selectFrom('journal_comments')
    .select(['id', 'trade_id', 'text', 'created_at', 'author_user_id as author_id'])
    .where('trade_id', 'in', [...tradeIds])
    .orderBy('trade_id')
    .orderBy('id')
    .execute();
  const authorIds = rows.map((r) => r.author_id);
  const names = await userNamesByIds(q, authorIds);
  // A comment whose author is gone is left out, as the join it replaces did (the foreign key deletes them together).
  return rows.flatMap((r) => {
    const authorName = names.get(r.author_id);
    return authorName === undefined ? [] : [{ ...r, author_name: authorName }];
  });
}

/**
 * The entry of one of the account's closed trades (of any period: a trade of an earlier period is
 * still the trader's), locked for the rest of the transaction on PostgreSQL.
 */
export function lockEntry(trx: Q, kind: DbKind, accountId: number, tradeId: number): Promise<JournalEntryRow | undefined> {
  return lockForUpdate(
    kind,
    trx.selectFrom('journal_entries').selectAll().where('trade_id', '=', tradeId).where('account_id', '=', accountId),
  ).executeTakeFirst();
}

export async function updateEntry(
  trx: Q,
  tradeId: number,
  change: { note?: string; rating?: number | null; updated_at: number },
): Promise<void> {
  await trx.updateTable('journal_entries').set(change).where('trade_id', '=', tradeId).execute();
}

export async function replaceTags(trx: Q, tradeId: number, periodId: number, tags: readonly string[]): Promise<void> {
  await trx.deleteFrom('journal_tags').where('trade_id', '=', tradeId).execute();
  if (tags.length === 0) return;
  await trx
    .insertInto('journal_tags')
    .values(tags.map((tag, position) => ({ trade_id: tradeId, period_id: periodId, tag, position })))
    .execute();
}

/** The tags the account used in the period, most used first. */
export async function tagsInPeriod(q: Q, periodId: number, limit: number): Promise<string[]> {
  const rows = await q
    .selectFrom('journal_tags')
    .select(['tag', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('period_id', '=', periodId)
    .groupBy('tag')
    .orderBy('n', 'desc')
    .orderBy('tag')
    .limit(limit)
    .execute();
  return rows.map((r) => r.tag);
}

/** An instructor's comment on a closed trade (the academy's call); returns its id. */
export async function insertComment(
  trx: Q,
  comment: { trade_id: number; author_user_id: number; text: string; created_at: number },
): Promise<number> {
  const row = await trx.insertInto('journal_comments').values(comment).returning('id').executeTakeFirstOrThrow();
  return row.id;
}
