import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
// The repositories register their prepared (hot) queries when imported.
import './accounts/ledger.js';
import './accounts/repo.js';
import './auth/repo.js';
import { preparedQueries } from './db/prepared.js';
import type { Database } from './db/schema.js';
import './trading/repo.js';
import './trading/equity-curve/repo.js';
import './trading/fill-statement.js';
import './trading/journal/repo.js';
import './trading/order-reads.js';
import './trading/performance/repo.js';

/**
 * The compiled SQL of every hot query on both databases, kept under version control
 * (`__snapshots__/hot-queries.*.sql`): a change to a query on the order or request path shows
 * up in review as a diff of its SQL. After an intended change, `npx vitest run -u` rewrites them.
 */

// Compiling needs a dialect, never a connection: neither database is opened or reached.
const sqlite = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
const postgres = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ max: 1 }) }) });

afterAll(async () => {
  await sqlite.destroy();
  await postgres.destroy();
});

function snapshot(q: Kysely<Database>): string {
  const queries = [...preparedQueries].sort((a, b) => a.name.localeCompare(b.name));
  return `${queries
    .map((query) => {
      const { sql, parameters } = query.describe(q);
      return `-- ${query.name}\n-- parameters: ${parameters.join(', ') || '(none)'}\n${sql};\n`;
    })
    .join('\n')}`;
}

describe('hot queries', () => {
  it('compile on SQLite to the committed SQL', async () => {
    await expect(snapshot(sqlite)).toMatchFileSnapshot('./__snapshots__/hot-queries.sqlite.sql');
  });

  it('compile on PostgreSQL to the committed SQL', async () => {
    await expect(snapshot(postgres)).toMatchFileSnapshot('./__snapshots__/hot-queries.postgres.sql');
  });

  it('are all named and all imported here, so none escapes the snapshot', () => {
    // Every `prepare(` call outside the tests and db/ must pass a name before its build function.
    const root = import.meta.dirname;
    const unnamed: string[] = [];
    const named: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'db' && entry.name !== 'test') walk(file);
        } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
          for (const call of prepareCalls(readFileSync(file, 'utf8'))) {
            if (call.startsWith('(')) unnamed.push(`${path.relative(root, file)}: prepare${call.slice(0, 40)}`);
            const name = /^'([^']+)'/.exec(call)?.[1];
            if (name) named.push(name);
          }
        }
      }
    };
    walk(root);
    expect(unnamed).toEqual([]);
    expect(preparedQueries.length).toBeGreaterThan(0);
    // A file with hot queries that this test does not import would leave them out of the snapshots.
    const registered = new Set(preparedQueries.map((q) => q.name));
    expect(named.filter((name) => !registered.has(name))).toEqual([]);
  });
});

/** The text after `prepare(` (type arguments skipped) of every `prepare` call in `source`. */
function prepareCalls(source: string): string[] {
  const calls: string[] = [];
  for (const match of source.matchAll(/\bprepare\s*[<(]/g)) {
    let i = match.index + match[0].length - 1;
    if (source[i] === '<') {
      // Skip balanced type arguments: `prepare<{ key: number }, Row<T>>(`.
      let depth = 0;
      for (; i < source.length; i++) {
        if (source[i] === '<') depth++;
        else if (source[i] === '>' && source[i - 1] !== '=' && --depth === 0) break;
      }
      i++;
      while (/\s/.test(source[i] ?? '')) i++;
      if (source[i] !== '(') continue;
    }
    calls.push(source.slice(i + 1).trimStart());
  }
  return calls;
}
