import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Bus } from '../realtime/bus.js';
import type { Clock } from './clock.js';

/** What every module receives: configuration, storage, the bus, the clock and a logger. */
export interface AppContext {
  config: Config;
  db: Db;
  bus: Bus;
  clock: Clock;
  log: FastifyBaseLogger;
}
