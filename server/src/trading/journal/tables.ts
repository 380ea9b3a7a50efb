import type { Generated } from 'kysely';

/**
 * One closed trade of the journal (docs/performance.md#the-journal): written in the fill's
 * transaction for every execution that realizes P&L, so the journal pages through its own
 * index; the trader's note and rating live on it. Money in cents, times in epoch ms.
 */
export interface JournalEntriesTable {
  /** The execution's id (trades.id). */
  trade_id: number;
  period_id: number;
  account_id: number;
  symbol: string;
  realized_pnl_minor: number;
  executed_at: number;
  /** Empty when the trader wrote none. */
  note: string;
  rating: number | null;
  updated_at: number | null;
}

export interface JournalTagsTable {
  trade_id: number;
  period_id: number;
  tag: string;
  /** Keeps the tags in the order the trader gave them. */
  position: number;
}

/** An instructor's comment on a closed trade (written by the academy's calls). */
export interface JournalCommentsTable {
  id: Generated<number>;
  trade_id: number;
  author_user_id: number;
  text: string;
  created_at: number;
}

export interface JournalTables {
  journal_entries: JournalEntriesTable;
  journal_tags: JournalTagsTable;
  journal_comments: JournalCommentsTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../../db/schema.js' {
  interface Database extends JournalTables {}
}
