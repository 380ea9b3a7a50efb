import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { isDatabaseUnavailable } from './db/availability.js';
import { DEMO_EMAIL, DEMO_PASSWORD } from './demo/seed.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  // Before listening, so a signal sent once the server says where it runs finds the handler.
  if (config.diagnosticHeapSignal) process.on('SIGUSR2', printHeapAfterCollection);
  const { app, metricsPort } = await buildApp(config);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  console.log(`\nPipdesk is running at ${url}`);
  if (metricsPort !== undefined) console.log(`Metrics at http://${config.host}:${metricsPort}/metrics`);
  if (config.seedDemo) console.log(`Sign in with ${DEMO_EMAIL} / ${DEMO_PASSWORD}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      // close() stops accepting, waits for in-flight requests, then runs onClose hooks (database last).
      await app.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  // Last resort (docs/operations.md#database-outages): a database outage that escaped some
  // background promise is logged and survived, the pool reconnects by itself; any other
  // unhandled rejection is a bug whose state we cannot trust, so the process stops.
  process.on('unhandledRejection', (reason) => {
    if (isDatabaseUnavailable(reason)) {
      app.log.warn({ reason: (reason as Error).message }, 'database unavailable in a background task');
      return;
    }
    app.log.fatal({ err: reason }, 'unhandled rejection; stopping');
    process.exit(1);
  });
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * DIAGNOSTIC_HEAP_SIGNAL (docs/operations.md#memory): a full collection first when node runs with
 * --expose-gc, so `heap_used` is what is still reachable, then one JSON line on stdout whatever
 * LOG_LEVEL is, for bench/soak.mjs to read.
 */
function printHeapAfterCollection(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const m = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({ msg: 'heap after gc', collected: gc !== undefined, heap_used: m.heapUsed, heap_total: m.heapTotal, rss: m.rss, external: m.external, array_buffers: m.arrayBuffers, at: Date.now() })}\n`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
