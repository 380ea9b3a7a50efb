import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Metrics } from '../metrics/index.js';
import type { Bus } from '../realtime/bus.js';
import type { Clock } from './clock.js';

/** What every module receives: configuration, storage, the bus, the clock, a logger and the metrics. */
export interface AppContext {
  config: Config;
  db: Db;
  bus: Bus;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Counters and histograms of this app (docs/operations.md#metrics); no-ops when metrics are off. */
  metrics: Metrics;
}
