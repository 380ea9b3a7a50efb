import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

// A real server on a fresh data directory for every run of the suite.
const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'pipdesk-e2e-'));
process.env.E2E_DATA_DIR = dataDir;
// A port the OS says is free, unless E2E_PORT names one: a fixed port fails whenever anything
// else listens there. Kept in the environment so the workers, which load this file again, agree.
process.env.E2E_PORT ??= freePort();
const port = Number(process.env.E2E_PORT);
export const baseURL = `http://127.0.0.1:${port}`;

/** Asks the OS for a free port, from a child process so the answer is there before `defineConfig`. */
function freePort(): string {
  const listen =
    "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); });";
  return execFileSync(process.execPath, ['-e', listen], { encoding: 'utf8' }).trim();
}

export default defineConfig({
  testDir: './tests',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list'], ['json', { outputFile: path.resolve(import.meta.dirname, '../.tmp/e2e-results.json') }]],
  use: {
    baseURL,
    // A failed journey keeps its trace (actions, DOM snapshots, network) but no screencast: the
    // screenshots of a page that repaints on every tick doubled the suite's time (docs/decisions.md).
    trace: { mode: 'retain-on-failure', screenshots: false },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: 'node ../server/dist/main.js',
    url: `${baseURL}/api/health/`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      REDIS_URL: '',
    },
  },
});
