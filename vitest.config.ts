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
  },
});

export default defineConfig({
  test: {
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
        },
      },
    ],
  },
});
