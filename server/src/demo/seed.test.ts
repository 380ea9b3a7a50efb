import { afterAll, describe, expect, it } from 'vitest';
import { findAccountByUser, findProfileByUser, ledgerSum } from '../accounts/index.js';
import { freshDatabase, startTestApp } from '../test/helpers.js';
import { signIn } from '../test/traders.js';
import { DEMO_EMAIL, DEMO_NAME, DEMO_PASSWORD, seedDemo } from './seed.js';

describe('demo seed (docs/operations.md#seeded-demo)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('creates the demo trader with a 10,000.00 USD account at 1:100 once, and leaves it alone on restart', async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    const where = { dataDir: db.dataDir, ...(db.pgSchema ? { pgSchema: db.pgSchema } : {}), keep: true };
    const first = await startTestApp({ ...where, env: { SEED_DEMO: 'true' } });
    const session = await signIn(first, DEMO_EMAIL, DEMO_PASSWORD);
    expect(session.user).toMatchObject({ email: DEMO_EMAIL, full_name: DEMO_NAME });
    const userId = session.user.id;
    const account = await findAccountByUser(first.ctx.db.kysely, userId);
    expect(account).toMatchObject({ currency: 'USD', balance_minor: 1_000_000, leverage: 100, status: 'ACTIVE' });
    expect(await findProfileByUser(first.ctx.db.kysely, userId)).toBeDefined();
    const ledger = await first.ctx.db.kysely
      .selectFrom('ledger_entries')
      .selectAll()
      .where('account_id', '=', account!.id)
      .execute();
    expect(ledger.map((e) => [e.kind, Number(e.amount_minor), Number(e.balance_after_minor)])).toEqual([
      ['deposit', 1_000_000, 1_000_000],
    ]);
    await seedDemo(first.ctx); // idempotent in-process too
    await first.close();

    const second = await startTestApp({ ...where, env: { SEED_DEMO: 'true' } });
    cleanups.push(() => second.close());
    const users = await second.ctx.db.kysely.selectFrom('users').select(['id', 'email']).execute();
    expect(users).toEqual([{ id: userId, email: DEMO_EMAIL }]);
    expect(await ledgerSum(second.ctx.db.kysely, Number(account!.id))).toBe(1_000_000);
    const entries = await second.ctx.db.kysely.selectFrom('ledger_entries').select('id').execute();
    expect(entries).toHaveLength(1);
  });

  it('does not seed when SEED_DEMO is off', async () => {
    const t = await startTestApp({ env: { SEED_DEMO: 'false' } });
    cleanups.push(() => t.close());
    expect(await t.ctx.db.kysely.selectFrom('users').select('id').execute()).toEqual([]);
  });
});
