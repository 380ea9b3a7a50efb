import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db/database.js';
import { withId } from '../db/migration-helpers.js';

export function tradingMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0004_trading': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('positions'))
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id').onDelete('cascade'))
          .addColumn('pair_id', 'bigint', (c) => c.notNull())
          .addColumn('symbol', 'varchar(12)', (c) => c.notNull())
          .addColumn('quantity_centilots', 'bigint', (c) => c.notNull())
          .addColumn('average_entry_price_e10', 'bigint', (c) => c.notNull())
          .addColumn('realized_pnl_minor', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'varchar(8)', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('closed_at', 'bigint')
          .execute();
        // Netting: at most one OPEN position per account and pair, enforced by the database too.
        await db.schema
          .createIndex('positions_one_open_per_pair')
          .on('positions')
          .columns(['account_id', 'pair_id'])
          .unique()
          .where(sql.ref('status'), '=', 'OPEN')
          .execute();
        await db.schema.createIndex('positions_account_status_idx').on('positions').columns(['account_id', 'status']).execute();

        await withId(kind, db.schema.createTable('orders'))
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id').onDelete('cascade'))
          .addColumn('pair_id', 'bigint', (c) => c.notNull())
          .addColumn('symbol', 'varchar(12)', (c) => c.notNull())
          .addColumn('order_type', 'varchar(16)', (c) => c.notNull())
          .addColumn('side', 'varchar(4)', (c) => c.notNull())
          .addColumn('quantity_centilots', 'bigint', (c) => c.notNull())
          .addColumn('filled_quantity_centilots', 'bigint', (c) => c.notNull())
          .addColumn('price_e10', 'bigint')
          .addColumn('average_fill_price_e10', 'bigint')
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('rejection_reason', 'varchar(500)')
          .addColumn('reason', 'varchar(16)', (c) => c.notNull())
          .addColumn('position_id', 'bigint', (c) => c.references('positions.id'))
          .addColumn('client_price_e10', 'bigint')
          .addColumn('submitted_at', 'bigint', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        // History: newest first per account (default ordering, date filters, recent orders).
        await db.schema
          .createIndex('orders_account_created_idx')
          .on('orders')
          .columns(['account_id', 'created_at', 'id'])
          .execute();
        await db.schema.createIndex('orders_account_symbol_idx').on('orders').columns(['account_id', 'symbol', 'id']).execute();

        await withId(kind, db.schema.createTable('trades'))
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id').onDelete('cascade'))
          .addColumn('order_id', 'bigint', (c) => c.notNull().references('orders.id'))
          .addColumn('position_id', 'bigint', (c) => c.notNull().references('positions.id'))
          .addColumn('pair_id', 'bigint', (c) => c.notNull())
          .addColumn('symbol', 'varchar(12)', (c) => c.notNull())
          .addColumn('side', 'varchar(4)', (c) => c.notNull())
          .addColumn('quantity_centilots', 'bigint', (c) => c.notNull())
          .addColumn('price_e10', 'bigint', (c) => c.notNull())
          .addColumn('realized_pnl_minor', 'bigint', (c) => c.notNull())
          .addColumn('executed_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('trades_account_idx').on('trades').columns(['account_id', 'id']).execute();
        await db.schema.createIndex('trades_position_idx').on('trades').columns(['position_id']).execute();
        await db.schema.createIndex('trades_order_idx').on('trades').columns(['order_id']).execute();

        await withId(kind, db.schema.createTable('idempotency_keys'))
          .addColumn('user_id', 'bigint', (c) => c.notNull())
          .addColumn('idempotency_key', 'varchar(255)', (c) => c.notNull())
          .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
          .addColumn('response_status', 'integer', (c) => c.notNull())
          .addColumn('response_body', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('idempotency_keys_user_key', ['user_id', 'idempotency_key'])
          .execute();
        await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').columns(['created_at']).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropTable('idempotency_keys').execute();
        await db.schema.dropTable('trades').execute();
        await db.schema.dropTable('orders').execute();
        await db.schema.dropTable('positions').execute();
      },
    },
    '0007_pending_orders': {
      // docs/orders.md: pending orders (time in force, limit price, trigger time) and protection
      // on orders (what they set) and on positions (what they have).
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        // One column per statement: SQLite adds a single column per ALTER TABLE.
        const addTo = async (table: string, columns: Array<[string, 'bigint' | 'integer']>) => {
          for (const [name, type] of columns) await db.schema.alterTable(table).addColumn(name, type).execute();
        };
        await db.schema
          .alterTable('orders')
          .addColumn('time_in_force', 'varchar(3)', (c) => c.notNull().defaultTo('GTC'))
          .execute();
        await addTo('orders', [
          ['expires_at', 'bigint'],
          ['limit_price_e10', 'bigint'],
          ['triggered_at', 'bigint'],
          ['stop_loss_e10', 'bigint'],
          ['take_profit_e10', 'bigint'],
          ['trailing_stop_pips', 'integer'],
        ]);
        await addTo('positions', [
          ['stop_loss_e10', 'bigint'],
          ['take_profit_e10', 'bigint'],
          ['trailing_stop_pips', 'integer'],
        ]);
        // Bumped by every change a trader or a fill makes to the protection, never by a trailing
        // write: a trigger acts only on the version it saw (docs/order-engine.md#the-engine).
        await db.schema
          .alterTable('positions')
          .addColumn('protection_version', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        // The armed orders: a trader's pending list and the engine's start-up load read only these.
        await db.schema
          .createIndex('orders_pending_idx')
          .on('orders')
          .columns(['account_id', 'id'])
          .where(sql.ref('status'), '=', 'PENDING')
          .execute();
        // The protected open positions the engine loads at start-up.
        await db.schema
          .createIndex('positions_protected_idx')
          .on('positions')
          .column('id')
          .where(
            sql<boolean>`status = 'OPEN' and (stop_loss_e10 is not null or take_profit_e10 is not null or trailing_stop_pips is not null)`,
          )
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropIndex('positions_protected_idx').execute();
        await db.schema.dropIndex('orders_pending_idx').execute();
        for (const column of ['stop_loss_e10', 'take_profit_e10', 'trailing_stop_pips', 'protection_version']) {
          await db.schema.alterTable('positions').dropColumn(column).execute();
        }
        for (const column of [
          'time_in_force',
          'expires_at',
          'limit_price_e10',
          'triggered_at',
          'stop_loss_e10',
          'take_profit_e10',
          'trailing_stop_pips',
        ]) {
          await db.schema.alterTable('orders').dropColumn(column).execute();
        }
      },
    },
  };
}
