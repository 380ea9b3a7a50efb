import { availableParallelism } from 'node:os';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

const contractSrc = path.resolve(import.meta.dirname, 'contract/src/index.ts');
const alias = { '@pipdesk/contract': contractSrc };

/**
 * The PostgreSQL run of the server suite: on when TEST_DATABASE_URL points at a server
 * (.ci/run sets it, with REQUIRE_POSTGRES=1 so a missing server fails instead of skipping).
 */
const pgUrl = process.env.TEST_DATABASE_URL;

const serverProject = (name: string, env: Record<string, string>) => ({
  resolve: { alias },
  test: {
    name,
    root: path.resolve(import.meta.dirname, 'server'),
    include: ['src/**/*.test.ts'],
    environment: 'node',
    env,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks' as const,
    // One module graph per worker, not per file: every server test file imports the whole server,
    // and evaluating it afresh for each of ~120 files cost about a third of the suite's time. No
    // server test relies on a fresh module: the state a test makes lives in the app it starts and
    // closes (docs/decisions.md).
    isolate: false,
  },
});

export default defineConfig({
  test: {
    // Vitest's default on a 2-core machine is one file at a time; most server test files wait on
    // sockets, child processes and timers rather than compute, so two run side by side.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'contract',
          root: path.resolve(import.meta.dirname, 'contract'),
          include: ['src/**/*.test.ts'],
          environment: 'node',
        },
      },
      serverProject('server-sqlite', { PIPDESK_TEST_DB: 'sqlite' }),
      ...(pgUrl ? [serverProject('server-postgres', { PIPDESK_TEST_DB: 'postgres', TEST_DATABASE_URL: pgUrl })] : []),
      {
        plugins: [react()],
        resolve: { alias },
        test: {
          name: 'web',
          root: path.resolve(import.meta.dirname, 'web'),
          include: ['src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['./src/test/setup.ts'],
          // A form test renders, types and waits for the app's answers in jsdom: seconds on a busy
          // 2-core machine with two files side by side, past Vitest's default of 5 s.
          testTimeout: 20_000,
        },
      },
    ],
  },
});
