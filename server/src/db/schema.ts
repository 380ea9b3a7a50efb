/**
 * The whole database as Kysely sees it. The storage layer knows no feature, so this starts
 * empty: each module adds its own tables from its `tables.ts` with a
 * `declare module '../db/schema.js'` block (TypeScript merges the declarations), and the app
 * hands `db/` the modules' migrations (see `server/src/migrations.ts`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by every module's tables.ts
export interface Database {}
