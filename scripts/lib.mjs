// Shared helpers of the start, build and test scripts (plain Node, no dependencies, so
// they run on a fresh clone before `npm ci`).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { precompress } from './precompress.mjs';

export const root = path.resolve(import.meta.dirname, '..');

/**
 * V8 flags every server process runs with (npm start, the cluster, the benchmarks): a young
 * generation of up to 64 MB a semi-space. A tick revalues every open position with exact
 * decimals, which allocates briefly at a high rate; with the default 16 MB the scavenges ran
 * often enough to promote that garbage and stall the event loop for seconds at 10,000 open
 * positions (docs/operations.md#the-node-process, bench/README.md#evaluations-through-the-server).
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=64'];

/** Runs a command inheriting stdio; resolves with its exit code. */
export function run(cmd, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', ...options, env: { ...process.env, ...options.env } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(127));
  });
}

/** npm ci (or install) when node_modules is missing or older than the lockfile. */
export async function ensureInstalled() {
  const marker = path.join(root, 'node_modules/.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
  if (!stale) return;
  console.log('Installing dependencies (first run; better-sqlite3 compiles, about a minute)...');
  const code = await run('npm', existsSync(lock) ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund']);
  if (code !== 0) throw new Error('npm install failed');
}

function hashTree(dirs, files = []) {
  const hash = createHash('sha256');
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) {
        if (name === 'node_modules' || name === 'dist' || name.endsWith('.tsbuildinfo')) continue;
        walk(path.join(p, name));
      }
    } else if (!/\.test\.tsx?$/.test(p)) {
      hash.update(p);
      hash.update(readFileSync(p));
    }
  };
  for (const d of [...dirs, ...files]) walk(path.join(root, d));
  return hash.digest('hex');
}

/** Builds contract, server and web when their sources changed since the last build. */
export async function buildIfChanged({ force = false } = {}) {
  const targets = [
    {
      name: 'contract + server',
      stamp: 'server/dist/.build-stamp',
      hash: hashTree(
        ['contract/src', 'server/src'],
        ['contract/tsconfig.json', 'server/tsconfig.json', 'tsconfig.base.json', 'package-lock.json'],
      ),
      build: () => run('npx', ['tsc', '-b', 'server/tsconfig.json']),
    },
    {
      name: 'web',
      stamp: 'web/dist/.build-stamp',
      hash: hashTree(
        ['contract/src', 'web/src', 'web/public'],
        ['web/index.html', 'web/vite.config.ts', 'scripts/precompress.mjs', 'package-lock.json'],
      ),
      build: async () => {
        const code = await run('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: path.join(root, 'web') });
        if (code === 0) precompress(path.join(root, 'web/dist'));
        return code;
      },
    },
  ];
  for (const t of targets) {
    const stampFile = path.join(root, t.stamp);
    if (!force && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === t.hash) continue;
    console.log(`Building ${t.name}...`);
    const code = await t.build();
    if (code !== 0) throw new Error(`Build of ${t.name} failed`);
    writeFileSync(stampFile, t.hash);
  }
}

export function commandExists(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}
