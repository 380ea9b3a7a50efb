import { type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { accountsMigrations } from '../accounts/migrations.js';
import { authMigrations } from '../auth/migrations.js';
import { marketMigrations } from '../market/migrations.js';
import { newsMigrations } from '../news/migrations.js';
import { tradingMigrations } from '../trading/migrations.js';
import type { Db, DbKind } from './database.js';

/** All migrations of all modules; names are globally ordered by their numeric prefix. */
export function allMigrations(kind: DbKind): Record<string, Migration> {
  return {
    ...authMigrations(kind),
    ...accountsMigrations(kind),
    ...marketMigrations(kind),
    ...tradingMigrations(kind),
    ...newsMigrations(kind),
  };
}

/** Brings the schema up to date; run at every start-up (idempotent). */
export async function migrateToLatest(db: Db): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => allMigrations(db.kind) };
  // Kysely looks for its bookkeeping tables in every schema unless told which one: on a
  // PostgreSQL shared by several schemas (tests, tenants) it would find another schema's
  // tables and skip creating its own. Name the schema the connection works in.
  const migrationTableSchema = db.kind === 'postgres' ? await currentSchema(db) : undefined;
  const migrator = new Migrator({ db: db.kysely, provider, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
}

async function currentSchema(db: Db): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check search_path');
  return schema;
}
