import { type Migration, type MigrationProvider, Migrator } from 'kysely';
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
  const migrator = new Migrator({ db: db.kysely, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
}
