// `npm run torture -- --cycles 200 [--db sqlite|postgres|both]`: the long variant of the crash
// suites (docs/operations.md#durability), outside CI. Each cycle SIGKILLs a real server in the
// middle of an order load (trading/crash.test.ts) and in the middle of a sweep of triggers
// (trading/engine/orders.crash.test.ts), restarts it, and checks that no acknowledged order was
// lost, nothing was half-applied and no trigger ran twice. PostgreSQL runs against
// TEST_DATABASE_URL (default: the local postgres://postgres@127.0.0.1:5432/test).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { cycles: { type: 'string', default: '200' }, db: { type: 'string', default: 'both' } },
});
const cycles = Number(values.cycles);
if (!Number.isInteger(cycles) || cycles < 1) {
  console.error(`--cycles must be a whole number above 0 (got "${values.cycles}")`);
  process.exit(2);
}
if (!['sqlite', 'postgres', 'both'].includes(values.db)) {
  console.error(`--db must be sqlite, postgres or both (got "${values.db}")`);
  process.exit(2);
}
const databases = values.db === 'both' ? ['sqlite', 'postgres'] : [values.db];
const env = {
  ...process.env,
  CRASH_KILLS: String(cycles),
  ORDERS_CRASH_KILLS: String(cycles),
  TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
};
let failed = false;
for (const db of databases) {
  console.log(`\n== ${cycles} kill -9 cycles on ${db}`);
  const started = Date.now();
  const { status } = spawnSync(
    'npx',
    [
      'vitest',
      'run',
      '--project',
      `server-${db}`,
      'server/src/trading/crash.test.ts',
      'server/src/trading/engine/orders.crash.test.ts',
    ],
    { stdio: 'inherit', env },
  );
  console.log(`== ${db}: ${status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`);
  failed ||= status !== 0;
}
process.exit(failed ? 1 : 0);
