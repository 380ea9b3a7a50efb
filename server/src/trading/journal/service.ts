import { JOURNAL_PAGE_SIZE, type JournalEntryDto, type JournalEntryRequest, type JournalQuery } from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import type { TradingAccountRow } from '../../accounts/index.js';
import type { Database } from '../../db/schema.js';
import { writeTransaction } from '../../db/transaction.js';
import { errors } from '../../errors.js';
import type { TradingDeps } from '../deps.js';
import * as performanceRepo from '../performance/repo.js';
import { accountOfUser, currentPeriodOf } from '../performance/service.js';
import { tradeDto } from '../presenter.js';
import { readSnapshot } from '../repo.js';
import type { AccountId, UserId } from '../types.js';
import * as repo from './repo.js';

type Deps = Pick<TradingDeps, 'db' | 'pricing' | 'clock'>;

/** How many of the trader's tags the suggestions list. */
const TAG_SUGGESTIONS = 50;

export interface JournalPageData {
  count: number;
  page: number;
  pageSize: number;
  results: JournalEntryDto[];
}

const tradeNotFound = () => errors.notFound('Trade not found');

/** Entries with their tags and comments, in the rows' order. */
async function entryDtos(
  q: Kysely<Database>,
  deps: Pick<TradingDeps, 'pricing'>,
  rows: readonly repo.EntryWithTradeRow[],
): Promise<JournalEntryDto[]> {
  const ids = rows.map((r) => Number(r.trade_id));
  const tags = new Map<number, string[]>();
  for (const t of await repo.tagsOf(q, ids)) {
    const id = Number(t.trade_id);
    tags.set(id, [...(tags.get(id) ?? []), t.tag]);
  }
  const comments = new Map<number, JournalEntryDto['comments']>();
  for (const c of await repo.commentsOf(q, ids)) {
    const id = Number(c.trade_id);
    comments.set(id, [
      ...(comments.get(id) ?? []),
      {
        id: Number(c.id),
        author: { id: Number(c.author_id), full_name: c.author_name },
        text: c.text,
        created_at: new Date(Number(c.created_at)).toISOString(),
      },
    ]);
  }
  return rows.map((r) => ({
    trade: tradeDto(r, deps.pricing.pair(r.symbol)),
    note: r.note,
    tags: tags.get(Number(r.trade_id)) ?? [],
    rating: r.rating === null ? null : Number(r.rating),
    comments: comments.get(Number(r.trade_id)) ?? [],
  }));
}

/**
 * One page of the account's journal for the current period, newest first
 * (docs/performance.md#the-journal). The count of an unfiltered or per-pair journal comes from the
 * period's statistics (no count over the trades); a tag filter counts its tags.
 */
export async function journalOfAccount(deps: Deps, account: TradingAccountRow, query: JournalQuery): Promise<JournalPageData> {
  await currentPeriodOf(deps, account);
  const page = query.page ?? 1;
  const pageSize = JOURNAL_PAGE_SIZE;
  return readSnapshot(deps.db, async (q) => {
    const period = await performanceRepo.currentPeriod(q, Number(account.id));
    if (!period) throw errors.tradingAccountNotFound();
    const periodId = Number(period.id);
    let count: number;
    if (query.tag !== undefined) count = await repo.countTagged(q, periodId, query.tag, query.symbol);
    else if (query.symbol !== undefined)
      count = Number((await performanceRepo.pairStatsOf(q, periodId, query.symbol))?.trades ?? 0);
    else count = Number(period.closed_trades);
    const offset = (page - 1) * pageSize;
    const rows =
      offset >= count
        ? []
        : await repo.entriesPage(
            q,
            {
              periodId,
              ...(query.symbol === undefined ? {} : { symbol: query.symbol }),
              ...(query.tag === undefined ? {} : { tag: query.tag }),
            },
            pageSize,
            offset,
          );
    return { count, page, pageSize, results: await entryDtos(q, deps, rows) };
  });
}

export async function journalOfUser(
  deps: Deps,
  userId: UserId,
  query: JournalQuery,
  accountId?: AccountId,
): Promise<JournalPageData> {
  return journalOfAccount(deps, await accountOfUser(deps, userId, accountId), query);
}

/** The tags the trader used in the current period, most used first (suggestions for the tag chips). */
export async function journalTagsOfUser(deps: Deps, userId: UserId, accountId?: AccountId): Promise<string[]> {
  const account = await accountOfUser(deps, userId, accountId);
  const period = await currentPeriodOf(deps, account);
  return repo.tagsInPeriod(deps.db.kysely, Number(period.id), TAG_SUGGESTIONS);
}

/**
 * PUT trading/journal/{tradeId}/: only the trade's owner writes; a trade that is not one of the
 * trader's closed trades is 404. Note, rating and tags change together or not at all.
 */
export async function updateJournalEntry(
  deps: Deps,
  userId: UserId,
  tradeId: number,
  input: JournalEntryRequest,
  named?: AccountId,
): Promise<JournalEntryDto> {
  const account = await accountOfUser(deps, userId, named);
  // An account from before the journal gets its entries first.
  await currentPeriodOf(deps, account);
  const accountId = Number(account.id);
  return writeTransaction(deps.db, async (trx) => {
    const entry = await repo.lockEntry(trx, deps.db.kind, accountId, tradeId);
    if (!entry) throw tradeNotFound();
    await repo.updateEntry(trx, tradeId, {
      ...(input.note === undefined ? {} : { note: input.note }),
      ...(input.rating === undefined ? {} : { rating: input.rating }),
      updated_at: deps.clock.now(),
    });
    if (input.tags !== undefined) await repo.replaceTags(trx, tradeId, Number(entry.period_id), input.tags);
    const rows = await repo.entryWithTrade(trx, tradeId);
    const [dto] = await entryDtos(trx, deps, rows);
    return dto!;
  });
}
