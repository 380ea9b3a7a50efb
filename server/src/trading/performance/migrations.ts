import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../../db/database.js';
import { withId } from '../../db/migration-helpers.js';

/** The period and its statistics, the equity curve and the journal (docs/performance.md). */
export function performanceMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0008_performance': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('performance_periods'))
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id').onDelete('cascade'))
          .addColumn('started_at', 'bigint', (c) => c.notNull())
          .addColumn('start_balance_minor', 'bigint', (c) => c.notNull())
          .addColumn('ended_at', 'bigint')
          .addColumn('closed_trades', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('wins', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('losses', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('breakevens', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('gross_profit_minor', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('gross_loss_minor', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('largest_win_minor', 'bigint')
          .addColumn('largest_loss_minor', 'bigint')
          .addColumn('current_win_streak', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('current_loss_streak', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('longest_win_streak', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('longest_loss_streak', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('peak_equity_minor', 'bigint')
          .addColumn('max_drawdown_pct', 'varchar(64)', (c) => c.notNull().defaultTo('0'))
          .execute();
        // One current period per account: a reset ends it and starts the next in one transaction.
        await db.schema
          .createIndex('performance_periods_current')
          .on('performance_periods')
          .column('account_id')
          .unique()
          .where(sql.ref('ended_at'), 'is', null)
          .execute();

        await db.schema
          .createTable('performance_pair_stats')
          .addColumn('period_id', 'bigint', (c) => c.notNull().references('performance_periods.id').onDelete('cascade'))
          .addColumn('symbol', 'varchar(12)', (c) => c.notNull())
          .addColumn('trades', 'integer', (c) => c.notNull())
          .addColumn('wins', 'integer', (c) => c.notNull())
          .addColumn('losses', 'integer', (c) => c.notNull())
          .addColumn('net_pnl_minor', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('performance_pair_stats_pk', ['period_id', 'symbol'])
          .execute();

        await withId(kind, db.schema.createTable('equity_points'))
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id').onDelete('cascade'))
          .addColumn('period_id', 'bigint', (c) => c.notNull().references('performance_periods.id').onDelete('cascade'))
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addColumn('equity_minor', 'bigint', (c) => c.notNull())
          .addColumn('balance_minor', 'bigint', (c) => c.notNull())
          .execute();
        // The curve of a period by time (its ranges and the thinning).
        await db.schema
          .createIndex('equity_points_period_time_idx')
          .on('equity_points')
          .columns(['period_id', 'time', 'id'])
          .execute();

        await db.schema
          .createTable('journal_entries')
          .addColumn('trade_id', 'bigint', (c) => c.primaryKey().references('trades.id').onDelete('cascade'))
          .addColumn('period_id', 'bigint', (c) => c.notNull().references('performance_periods.id').onDelete('cascade'))
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('symbol', 'varchar(12)', (c) => c.notNull())
          .addColumn('realized_pnl_minor', 'bigint', (c) => c.notNull())
          .addColumn('executed_at', 'bigint', (c) => c.notNull())
          .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('rating', 'integer')
          .addColumn('updated_at', 'bigint')
          .execute();
        // Newest first, whole period or one pair: the journal's pages walk these indexes.
        await db.schema
          .createIndex('journal_entries_period_idx')
          .on('journal_entries')
          .columns(['period_id', 'trade_id'])
          .execute();
        await db.schema
          .createIndex('journal_entries_period_symbol_idx')
          .on('journal_entries')
          .columns(['period_id', 'symbol', 'trade_id'])
          .execute();

        await db.schema
          .createTable('journal_tags')
          .addColumn('trade_id', 'bigint', (c) => c.notNull().references('journal_entries.trade_id').onDelete('cascade'))
          .addColumn('period_id', 'bigint', (c) => c.notNull())
          .addColumn('tag', 'varchar(32)', (c) => c.notNull())
          .addColumn('position', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('journal_tags_pk', ['trade_id', 'tag'])
          .execute();
        await db.schema
          .createIndex('journal_tags_period_tag_idx')
          .on('journal_tags')
          .columns(['period_id', 'tag', 'trade_id'])
          .execute();

        await withId(kind, db.schema.createTable('journal_comments'))
          .addColumn('trade_id', 'bigint', (c) => c.notNull().references('journal_entries.trade_id').onDelete('cascade'))
          .addColumn('author_user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('text', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('journal_comments_trade_idx').on('journal_comments').columns(['trade_id', 'id']).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        for (const table of [
          'journal_comments',
          'journal_tags',
          'journal_entries',
          'equity_points',
          'performance_pair_stats',
          'performance_periods',
        ]) {
          await db.schema.dropTable(table).execute();
        }
      },
    },
  };
}
