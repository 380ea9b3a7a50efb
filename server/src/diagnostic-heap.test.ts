import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildServer, type ChildServer, childServerEnv, killChildServer, startChildServer } from './test/child-server.js';
import { freshDatabase } from './test/helpers.js';

/**
 * DIAGNOSTIC_HEAP_SIGNAL (docs/operations.md#memory), in a real server process: with it on and
 * node's --expose-gc, SIGUSR2 runs a full collection and prints one JSON line of the memory use,
 * whatever LOG_LEVEL is, and the server goes on serving. bench/soak.mjs samples the heap this way.
 */
const JWT_SECRET = 'diagnostic-heap-secret-0123456789abcdef';

describe('DIAGNOSTIC_HEAP_SIGNAL', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let server: ChildServer | undefined;
  beforeAll(async () => {
    buildServer();
    fresh = await freshDatabase();
  });
  afterAll(async () => {
    await killChildServer(server?.process);
    await fresh?.drop();
  });

  it('prints the heap after a full collection on SIGUSR2, and the server keeps answering', async () => {
    const env = childServerEnv(fresh, JWT_SECRET, {
      PRICE_SOURCE: 'simulator',
      DIAGNOSTIC_HEAP_SIGNAL: 'true',
      NODE_OPTIONS: '--expose-gc',
    });
    server = await startChildServer(env);
    const lines = () =>
      server!
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"heap after gc"'))
        .map((line) => JSON.parse(line));
    for (let i = 1; i <= 2; i++) {
      server.process.kill('SIGUSR2');
      await vi.waitFor(() => expect(lines()).toHaveLength(i), { timeout: 15_000, interval: 20 });
    }
    expect(lines()[1]).toMatchObject({ msg: 'heap after gc', collected: true });
    expect(lines()[1].heap_used).toBeGreaterThan(0);
    expect(lines()[1].rss).toBeGreaterThan(lines()[1].heap_used);
    expect((await fetch(`${server.url}/api/health/live/`)).status).toBe(200);
  });
});
