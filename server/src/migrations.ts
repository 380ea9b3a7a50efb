import type { Migration } from 'kysely';
import { academyMigrations } from './academy/migrations.js';
import { accountsMigrations } from './accounts/migrations.js';
import { alertsMigrations } from './alerts/migrations.js';
import { authMigrations } from './auth/migrations.js';
import { chartingMigrations } from './charting/migrations.js';
import type { Db, DbKind } from './db/database.js';
import { listMigrations, runMigrations } from './db/migrate.js';
import { evaluationsMigrations } from './evaluations/migrations.js';
import { marketMigrations } from './market/migrations.js';
import { newsMigrations } from './news/migrations.js';
import { replayMigrations } from './replay/migrations.js';
import { historyMigrations } from './trading/history-migrations.js';
import { tradingMigrations } from './trading/migrations.js';
import { performanceMigrations } from './trading/performance/migrations.js';

/** All migrations of all modules; names are globally ordered by their numeric prefix. */
export function allMigrations(kind: DbKind): Record<string, Migration> {
  return {
    ...authMigrations(kind),
    ...accountsMigrations(kind),
    ...marketMigrations(kind),
    ...tradingMigrations(kind),
    ...performanceMigrations(kind),
    ...newsMigrations(kind),
    ...academyMigrations(kind),
    ...historyMigrations(kind),
    ...alertsMigrations(kind),
    ...chartingMigrations(kind),
    ...evaluationsMigrations(kind),
    ...replayMigrations(kind),
  };
}

/** Brings the schema up to date with every module's migrations; run at every start-up (idempotent). */
export function migrateToLatest(db: Db): Promise<void> {
  return runMigrations(db, allMigrations);
}

/** Applied and pending migrations (`npm run trader -- migrations`); changes nothing. */
export function migrationStatus(db: Db) {
  return listMigrations(db, allMigrations);
}
