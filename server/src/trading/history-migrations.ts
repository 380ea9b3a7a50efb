import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db/database.js';

/**
 * The order history at any size (docs/orders.md#history-at-any-size): the counts of the orders
 * list kept per account and filter value by triggers, one covering index the list's filters and
 * pages read without the table, a per-pair index for the pair page, and no index that serves no query.
 */
export function historyMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0012_history_indexes': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        // One row per account and (symbol, side, status, type) the account has used: a few dozen.
        let counts = db.schema
          .createTable('order_counts')
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('symbol', 'varchar(12)', (c) => c.notNull())
          .addColumn('side', 'varchar(4)', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('order_type', 'varchar(16)', (c) => c.notNull())
          .addColumn('n', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('order_counts_pk', ['account_id', 'symbol', 'side', 'status', 'order_type']);
        // SQLite: the rows live in the primary key's tree, so a count update writes one tree.
        if (kind === 'sqlite') counts = counts.modifyEnd(sql`without rowid`);
        await counts.execute();
        await sql`
          insert into order_counts (account_id, symbol, side, status, order_type, n)
          select account_id, symbol, side, status, order_type, count(*) from orders
          group by account_id, symbol, side, status, order_type`.execute(db);

        // Kept by the database itself, in the transaction of every change to an order, whatever
        // the path that writes it (placement, triggers, cancel, expiry, reset, a rebuild).
        if (kind === 'sqlite') {
          const add = `insert into order_counts (account_id, symbol, side, status, order_type, n)
            values (new.account_id, new.symbol, new.side, new.status, new.order_type, 1)
            on conflict (account_id, symbol, side, status, order_type) do update set n = n + 1;`;
          const remove = `update order_counts set n = n - 1 where account_id = old.account_id and symbol = old.symbol
            and side = old.side and status = old.status and order_type = old.order_type;`;
          await sql.raw(`create trigger orders_count_insert after insert on orders begin ${add} end`).execute(db);
          await sql.raw(`create trigger orders_count_delete after delete on orders begin ${remove} end`).execute(db);
          await sql
            .raw(
              `create trigger orders_count_update after update of account_id, symbol, side, status, order_type on orders
              when old.account_id is not new.account_id or old.symbol is not new.symbol or old.side is not new.side
                or old.status is not new.status or old.order_type is not new.order_type
              begin ${remove} ${add} end`,
            )
            .execute(db);
        } else {
          await sql
            .raw(`create function order_counts_track() returns trigger language plpgsql as $$
            begin
              if tg_op in ('UPDATE', 'DELETE') then
                update order_counts set n = n - 1 where account_id = old.account_id and symbol = old.symbol
                  and side = old.side and status = old.status and order_type = old.order_type;
              end if;
              if tg_op in ('INSERT', 'UPDATE') then
                insert into order_counts (account_id, symbol, side, status, order_type, n)
                values (new.account_id, new.symbol, new.side, new.status, new.order_type, 1)
                on conflict (account_id, symbol, side, status, order_type) do update set n = order_counts.n + 1;
              end if;
              return null;
            end $$`)
            .execute(db);
          await sql
            .raw(
              'create trigger orders_count_insert_delete after insert or delete on orders for each row execute function order_counts_track()',
            )
            .execute(db);
          await sql
            .raw(
              `create trigger orders_count_update after update of account_id, symbol, side, status, order_type on orders
              for each row when (old.account_id is distinct from new.account_id or old.symbol is distinct from new.symbol
                or old.side is distinct from new.side or old.status is distinct from new.status
                or old.order_type is distinct from new.order_type)
              execute function order_counts_track()`,
            )
            .execute(db);
        }

        // Newest first per account with every filter column in the entry: the list's pages, its
        // filters and its date-range counts read the index alone. Replaces (account_id, created_at, id).
        await db.schema
          .createIndex('orders_history_idx')
          .on('orders')
          .columns(['account_id', 'created_at', 'id', 'status', 'side', 'order_type', 'symbol'])
          .execute();
        await db.schema.dropIndex('orders_account_created_idx').execute();
        // The pair page's recent orders: one pair's newest first, a seek. Replaces (account_id, symbol, id).
        // The symbol leads so that only a query naming the pair can use it: SQLite would otherwise
        // pick it for a whole-account sort (by quantity) and read the table in pair order.
        await db.schema
          .createIndex('orders_pair_history_idx')
          .on('orders')
          .columns(['symbol', 'account_id', 'created_at', 'id'])
          .execute();
        await db.schema.dropIndex('orders_account_symbol_idx').execute();
        // No query reads executions by order or by position, and neither is ever deleted: each of
        // these cost every fill a tree write for nothing.
        await db.schema.dropIndex('trades_order_idx').execute();
        await db.schema.dropIndex('trades_position_idx').execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.createIndex('trades_position_idx').on('trades').columns(['position_id']).execute();
        await db.schema.createIndex('trades_order_idx').on('trades').columns(['order_id']).execute();
        await db.schema.createIndex('orders_account_symbol_idx').on('orders').columns(['account_id', 'symbol', 'id']).execute();
        await db.schema.dropIndex('orders_pair_history_idx').execute();
        await db.schema
          .createIndex('orders_account_created_idx')
          .on('orders')
          .columns(['account_id', 'created_at', 'id'])
          .execute();
        await db.schema.dropIndex('orders_history_idx').execute();
        if (kind === 'sqlite') {
          for (const t of ['orders_count_insert', 'orders_count_delete', 'orders_count_update']) {
            await sql.raw(`drop trigger ${t}`).execute(db);
          }
        } else {
          await sql.raw('drop trigger orders_count_insert_delete on orders').execute(db);
          await sql.raw('drop trigger orders_count_update on orders').execute(db);
          await sql.raw('drop function order_counts_track()').execute(db);
        }
        await db.schema.dropTable('order_counts').execute();
      },
    },
  };
}
