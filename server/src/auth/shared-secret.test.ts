import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { addTrader, signIn } from '../test/traders.js';

/*
 * Nodes share a database, not a disk (docs/operations.md#tokens-and-sessions): with no
 * JWT_SECRET, a token one node signed is accepted by every other.
 */
describe('the generated JWT secret is shared through the database', () => {
  const apps: TestApp[] = [];
  const dirs: string[] = [];
  let dropDatabase: (() => Promise<void>) | undefined;
  afterAll(async () => {
    for (const app of apps) await app.close();
    await dropDatabase?.();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a token signed by one node is accepted by another with its own data directory, and JWT_SECRET still overrides', async () => {
    const database = await freshDatabase();
    dropDatabase = database.drop;
    const otherDir = mkdtempSync(path.join(tmpdir(), 'pipdesk-node-b-'));
    dirs.push(otherDir);
    // No JWT_SECRET; on SQLite both nodes open one database file from their own data directories.
    const env = {
      JWT_SECRET: undefined,
      ...(testDbKind === 'sqlite' ? { DATABASE_URL: `sqlite:${path.join(database.dataDir, 'shared.sqlite')}` } : {}),
    } as unknown as Record<string, string>;
    const node = (dataDir: string, extra: Record<string, string> = {}) =>
      startTestApp({
        dataDir,
        ...(database.pgSchema ? { pgSchema: database.pgSchema } : {}),
        env: { ...env, ...extra },
        keep: true,
      });

    const a = await node(database.dataDir);
    apps.push(a);
    const b = await node(otherDir);
    apps.push(b);
    // Each node generated a candidate of its own; they differ, so agreement comes from the database.
    const candidateA = readFileSync(path.join(database.dataDir, 'jwt-secret'), 'utf8').trim();
    const candidateB = readFileSync(path.join(otherDir, 'jwt-secret'), 'utf8').trim();
    expect(candidateA).not.toBe(candidateB);

    const trader = await addTrader(a);
    const session = await signIn(a, trader.email, trader.password);
    const me = await b.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Bearer ${session.token}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.email).toBe(trader.email);
    // And the other way round: node B's sign-in works on node A.
    const fromB = await signIn(b, trader.email, trader.password);
    const back = await a.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Bearer ${fromB.token}` } });
    expect(back.statusCode).toBe(200);

    // A node with JWT_SECRET set signs with it, not with the shared one.
    const overriddenDir = mkdtempSync(path.join(tmpdir(), 'pipdesk-node-c-'));
    dirs.push(overriddenDir);
    const c = await node(overriddenDir, { JWT_SECRET: 'z'.repeat(48) });
    apps.push(c);
    const refused = await c.app.inject({
      method: 'GET',
      url: '/api/auth/me/',
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(refused.statusCode).toBe(401);
  });
});
