import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/database.js';
import type { PairCatalog } from '../market/index.js';
import type { Metrics } from '../metrics/index.js';
import type { Bus } from '../realtime/bus.js';
import type { ChallengeRulesSource } from './challenge.js';
import type { InFlightKeys } from './idempotency.js';
import type { Pricing } from './math.js';
import type { WriteBatcher } from './write-batcher.js';

/**
 * Everything the trading commands and read models may use, built once by the service
 * (service.ts). Each of them declares the few it needs with `Pick<TradingDeps, …>`, so it can
 * be imported and tested alone.
 */
export interface TradingDeps {
  db: Db;
  /** "Now" of the account's market: the wall clock, or a replay session's clock (account-markets.ts). */
  clock: Clock;
  /**
   * Real time, whatever the account's market: an Idempotency-Key's age is counted in it, because
   * its retention is about a client's retries, not the market (docs/trading-rules.md#idempotency).
   */
  keyClock: Clock;
  bus: Bus;
  log: FastifyBaseLogger;
  /** The order counters (docs/operations.md#metrics). */
  metrics: Metrics;
  /** Current prices and USD rates from the market's catalogue and price book. */
  pricing: Pricing;
  pairs: PairCatalog;
  /** Write transactions of executions (group commit on SQLite). */
  writes: WriteBatcher;
  /** Idempotency-Keys being executed by this process. */
  inFlight: InFlightKeys;
  /** The order rules of evaluation accounts (challenge.ts); absent in tests without evaluations. */
  challengeRules?: ChallengeRulesSource;
}
