import type { Migration } from 'kysely';
import type { DbKind } from '../db/database.js';

export function accountsMigrations(_kind: DbKind): Record<string, Migration> {
  return {};
}
