// `npm run bench`: every benchmark in turn against the built server (each starts its own
// server on a temp SQLite database). Figures print as each finishes; see bench/README.md.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const steps = [
  ['build', 'npx', ['tsc', '-b', 'server/tsconfig.json']],
  ['place-market-order vs health', process.execPath, ['bench/orders.mjs']],
  ['platform-data', process.execPath, ['bench/platform-data.mjs']],
  ['price socket', process.execPath, ['bench/prices-socket.mjs']],
  ['trading socket', process.execPath, ['bench/trading-socket.mjs']],
  ['order engine: trigger check per tick, book memory', process.execPath, ['bench/order-engine.mjs']],
  ['order engine: 1,000 triggers on one tick', process.execPath, ['bench/order-burst.mjs']],
  ['performance and journal, 100,000 closed trades', process.execPath, ['bench/performance.mjs']],
  ['academy roster and leaderboard, 1,000 students', process.execPath, ['bench/academy.mjs']],
];
let failed = 0;
for (const [name, cmd, args] of steps) {
  console.log(`\n== ${name}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
