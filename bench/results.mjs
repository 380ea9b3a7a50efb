// The benchmarks' figures kept in the repository (bench/results.json), so a change in speed
// shows in review: each run prints every figure beside its previous value and writes the new
// one (pass --no-record to only compare). A figure that got worse by more than 10 % is marked.
//
//   import { record } from './results.mjs';
//   record('orders.sqlite', {
//     'saturated orders/s': { value: 3131, better: 'higher' },
//     'p99 ms at 1,000/s': { value: 9.2, better: 'lower' },
//   });
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, root } from './lib.mjs';

const FILE = path.join(root, 'bench/results.json');
/** Worse than this fraction of the previous value is a regression worth a look. */
const TOLERANCE = 0.1;

function load() {
  return existsSync(FILE) ? JSON.parse(readFileSync(FILE, 'utf8')) : {};
}

function commit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/**
 * Compares `figures` with the previous run of the same benchmark (`name` includes the
 * database, e.g. `orders.postgres`) and records them, with `note` (e.g. the runs behind a
 * median) when given. Returns the comparison rows.
 */
export function record(
  name,
  figures,
  { write = parseArgs(process.argv.slice(2))['no-record'] === undefined, note = undefined } = {},
) {
  const all = load();
  const previous = all[name]?.figures ?? {};
  const rows = Object.entries(figures).map(([figure, { value, better }]) => {
    const before = previous[figure]?.value;
    const change = before === undefined || before === 0 ? undefined : (value - before) / Math.abs(before);
    const worse = change !== undefined && (better === 'higher' ? change < -TOLERANCE : change > TOLERANCE);
    return {
      figure,
      previous: before ?? '-',
      now: value,
      change: change === undefined ? '-' : `${(change * 100).toFixed(1)} %`,
      regression: worse ? 'WORSE' : '',
    };
  });
  console.log(`\n${name}: compared with bench/results.json (${all[name]?.commit ?? 'no previous run'})`);
  console.table(rows);
  if (write) {
    all[name] = { commit: commit(), at: new Date().toISOString().slice(0, 10), ...(note ? { note } : {}), figures };
    const sorted = Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  }
  return rows;
}
