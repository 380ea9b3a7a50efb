import { type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Db, DbKind } from './database.js';

/** The migrations of every module, keyed by name; names are globally ordered by their numeric prefix. */
export type MigrationSet = (kind: DbKind) => Record<string, Migration>;

/** PostgreSQL's codes for a schema, table or column dropped by another session while Kysely lists them. */
const VANISHED_WHILE_LISTING = new Set(['3F000', '42P01', '42703']);

/**
 * Brings the schema up to date with the given migrations; run at every start-up (idempotent).
 * The app passes every module's migrations in (`server/src/migrations.ts`): db/ knows no feature.
 */
export async function runMigrations(db: Db, migrations: MigrationSet): Promise<void> {
  const migrator = await migratorFor(db, migrations);
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (!error && !failed) return;
    // Kysely first lists the tables of every schema to find its own bookkeeping tables; when
    // another schema is dropped during that listing (tests, tenants sharing the database),
    // PostgreSQL answers for a schema that is not ours: 3F000 "schema does not exist", or, when the
    // schema goes between reading its tables and their columns, 42P01 "relation does not exist" or
    // 42703 "column does not exist". No migration ran yet (`failed` is unset): ask again.
    const code = (error as { code?: string } | undefined)?.code;
    if (!failed && code !== undefined && VANISHED_WHILE_LISTING.has(code) && attempt < 5) continue;
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
}

/** Every migration by name, oldest first, with when it ran (undefined: pending); changes nothing. */
export async function listMigrations(
  db: Db,
  migrations: MigrationSet,
): Promise<{ name: string; executedAt: Date | undefined }[]> {
  const migrator = await migratorFor(db, migrations);
  return (await migrator.getMigrations()).map((m) => ({ name: m.name, executedAt: m.executedAt }));
}

async function migratorFor(db: Db, migrations: MigrationSet): Promise<Migrator> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(db.kind) };
  // Kysely looks for its bookkeeping tables in every schema unless told which one: on a
  // PostgreSQL shared by several schemas (tests, tenants) it would find another schema's
  // tables and skip creating its own. Name the schema the connection works in.
  const migrationTableSchema = db.kind === 'postgres' ? await currentSchema(db) : undefined;
  return new Migrator({ db: db.kysely, provider, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
}

async function currentSchema(db: Db): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check search_path');
  return schema;
}
