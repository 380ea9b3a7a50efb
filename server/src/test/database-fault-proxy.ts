import { type FaultProxy, startFaultProxy } from './fault-proxy.js';

export interface DatabaseFaultProxy extends FaultProxy {
  /** TEST_DATABASE_URL through the proxy: a new URL on each call, for the caller to adjust. */
  databaseUrl(): URL;
}

/**
 * A fault proxy in front of the test PostgreSQL (TEST_DATABASE_URL), for the database outage
 * suites (docs/operations.md#database-outages). Test-only: never imported by production code.
 */
export async function startDatabaseFaultProxy(): Promise<DatabaseFaultProxy> {
  const target = new URL(process.env.TEST_DATABASE_URL!);
  const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
  return {
    ...proxy,
    databaseUrl() {
      const viaProxy = new URL(target);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      return viaProxy;
    },
  };
}
