// `npm test`: everything, in order: lint, type check, import rules, unit and integration tests (server on
// SQLite, and on PostgreSQL when reachable), web component tests, and the browser suite in
// Chromium. Ends with one line `N passed, N failed` counting every test of every suite.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { ensureNginx } from './cluster-lib.mjs';
import { buildIfChanged, ensureInstalled, root, run } from './lib.mjs';

/** Runs a command with its output captured (stdout and stderr in arrival order); resolves with both. */
function runCaptured(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
    child.on('error', (err) => resolve({ code: 127, output: String(err) }));
  });
}

/** Works through `tasks` with at most `lanes` of them running at once. */
async function runInLanes(tasks, lanes, work) {
  const queue = [...tasks];
  await Promise.all(
    Array.from({ length: Math.min(lanes, queue.length) }, async () => {
      while (queue.length) await work(queue.shift());
    }),
  );
}

const tmp = path.join(root, '.tmp');
mkdirSync(tmp, { recursive: true });
let passed = 0;
let failed = 0;
const failures = [];
const check = (name, ok) => {
  if (ok) passed++;
  else {
    failed++;
    failures.push(name);
  }
};

function reachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}

async function serviceUrl(envUrl, fallback, requireFlag, label) {
  const url = envUrl && /^(postgres|redis)/.test(envUrl) ? envUrl : fallback;
  const u = new URL(url);
  const ok = await reachable(u.hostname, Number(u.port || (label === 'PostgreSQL' ? 5432 : 6379)));
  if (ok) return url;
  if (requireFlag) {
    console.error(`${label} is required (${requireFlag}=1) but ${u.host} is not reachable.`);
    check(`${label} reachable`, false);
  } else console.log(`${label} not reachable at ${u.host}: its suite is not run (set ${requireFlag}=1 to make this an error).`);
  return undefined;
}

await ensureInstalled();

// The static checks are independent single-threaded processes (tsc, biome, dependency-cruiser):
// run side by side, one per core, each one's output printed whole when it ends (not interleaved).
// The server's `tsc -b` is the build the browser suite and the process tests use, so the web
// build for the browser suite follows it in the same lane instead of after the Vitest run.
console.log('\n== Lint, type check, import rules and build (side by side)');
const lanes = Math.max(2, availableParallelism());
let buildError;
const staticChecks = [
  {
    name: 'typecheck',
    label: 'tsc -b server/tsconfig.json, then the build for the browser suite',
    cmd: ['npx', 'tsc', '-b', 'server/tsconfig.json'],
    // After the type check built contract + server: the same build the browser suite needs.
    afterwards: async () => {
      try {
        await buildIfChanged();
      } catch (err) {
        buildError = err;
      }
    },
  },
  { name: 'typecheck', label: 'tsc -p server/tsconfig.check.json', cmd: ['npx', 'tsc', '-p', 'server/tsconfig.check.json'] },
  { name: 'typecheck', label: 'tsc -p web/tsconfig.json', cmd: ['npx', 'tsc', '-p', 'web/tsconfig.json'] },
  { name: 'typecheck', label: 'tsc -p e2e/tsconfig.json', cmd: ['npx', 'tsc', '-p', 'e2e/tsconfig.json'] },
  {
    name: 'imports',
    label: 'import rules (dependency-cruiser: no circles, db/ knows no feature)',
    cmd: ['npm', 'run', '--silent', 'check:imports'],
  },
  { name: 'lint', label: 'lint (biome)', cmd: ['npx', 'biome', 'check', '.'] },
];
const staticOk = new Map();
await runInLanes(staticChecks, lanes, async (task) => {
  const started = Date.now();
  const { code, output } = await runCaptured(task.cmd[0], task.cmd.slice(1));
  console.log(`\n-- ${task.label}: ${code === 0 ? 'ok' : `failed (${code})`} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (output.trim()) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
  staticOk.set(task.name, (staticOk.get(task.name) ?? true) && code === 0);
  if (task.afterwards && code === 0) await task.afterwards();
  else if (task.afterwards) buildError = new Error(`${task.label} failed`);
});
for (const name of ['lint', 'typecheck', 'imports']) check(name, staticOk.get(name) ?? false);

const pgUrl = await serviceUrl(
  process.env.DATABASE_URL,
  'postgres://postgres@127.0.0.1:5432/test',
  process.env.REQUIRE_POSTGRES === '1' ? 'REQUIRE_POSTGRES' : '',
  'PostgreSQL',
);
const redisUrl = await serviceUrl(
  process.env.REDIS_URL,
  'redis://127.0.0.1:6379',
  process.env.REQUIRE_REDIS === '1' ? 'REQUIRE_REDIS' : '',
  'Redis',
);

// The multi-node suite runs two nodes behind nginx (docs/deployment.md); as root, Debian's nginx is
// installed when missing (as Chromium below). Without it that suite fails under REQUIRE_*=1.
if (pgUrl && redisUrl && !ensureNginx())
  console.log('nginx not found: the multi-node suite needs it (sudo apt-get install -y nginx).');

console.log('\n== Unit and integration tests (vitest)');
const vitestJson = path.join(tmp, 'vitest.json');
rmSync(vitestJson, { force: true });
const vitestEnv = { ...(pgUrl ? { TEST_DATABASE_URL: pgUrl } : {}), ...(redisUrl ? { TEST_REDIS_URL: redisUrl } : {}) };
delete process.env.DATABASE_URL;
delete process.env.REDIS_URL;
const vitestCode = await run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${vitestJson}`], {
  env: vitestEnv,
});
if (existsSync(vitestJson)) {
  const r = JSON.parse(readFileSync(vitestJson, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  if (r.numFailedTests > 0) failures.push(`${r.numFailedTests} vitest test(s)`);
  // A file that fails to load has no tests but must still fail the run.
  const brokenFiles = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0);
  for (const f of brokenFiles) check(`vitest file ${path.relative(root, f.name)}`, false);
  if (vitestCode !== 0 && r.numFailedTests === 0 && brokenFiles.length === 0) check('vitest run', false);
} else check('vitest run', false);

console.log('\n== Browser suite (Playwright in Chromium)');
let browserReady = true;
if (buildError) {
  console.error(buildError.message);
  browserReady = false;
  check('build', false);
}
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (browserReady && !existsSync(chromium)) {
  if (process.getuid?.() === 0) {
    console.log('Chromium is missing: installing Debian chromium (apt-get)...');
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  if (!existsSync(chromium)) {
    console.error(
      `Chromium not found at ${chromium}. Install it with: sudo apt-get install -y chromium (or set CHROMIUM_PATH). The browser suite cannot run.`,
    );
    browserReady = false;
    check('chromium available', false);
  }
}
if (browserReady) {
  const e2eJson = path.join(tmp, 'e2e-results.json');
  rmSync(e2eJson, { force: true });
  const code = await run('npx', ['playwright', 'test', '--config', 'e2e/playwright.config.ts']);
  if (existsSync(e2eJson)) {
    const r = JSON.parse(readFileSync(e2eJson, 'utf8'));
    passed += (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
    failed += r.stats?.unexpected ?? 0;
    if (r.stats?.unexpected) failures.push(`${r.stats.unexpected} browser test(s)`);
    if (code !== 0 && !r.stats?.unexpected) check('playwright run', false);
  } else check('playwright run', false);
}

const summary = `${passed} passed, ${failed} failed`;
writeFileSync(path.join(tmp, 'test-summary.txt'), `${summary}\n`);
if (failures.length) console.log(`\nFailed: ${failures.join('; ')}`);
console.log(`\n${summary}`);
process.exit(failed > 0 ? 1 : 0);
