import type { HealthReportDto, PriceSourceHealthDto } from '@pipdesk/contract';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Bus } from '../realtime/bus.js';

/** A price older than this makes the node not ready (docs/operations.md#health). */
export const PRICE_MAX_AGE_MS = 10_000;
/** A database that has not answered a `select 1` in this time counts as down. */
const DB_PING_TIMEOUT_MS = 2_000;

export type PriceSourceHealth = PriceSourceHealthDto;

export interface HealthDeps {
  db: Db;
  bus: Bus;
  priceSource: () => PriceSourceHealth;
  /** Per-source news state, shown as is (news never makes a node unready: it keeps its last articles). */
  news: () => HealthReportDto['news'];
}

export type ReadinessCheck = 'database' | 'bus' | 'price';

/** One look at everything a node needs to serve traders. */
export interface HealthReport {
  db: { kind: Db['kind']; ok: boolean };
  bus: { kind: Bus['name']; ok: boolean };
  price_source: PriceSourceHealth;
  news: HealthReportDto['news'];
  /** The checks that failed, in a fixed order; empty when ready. */
  failed: ReadinessCheck[];
}

/**
 * Readiness: the database answers, the bus is connected, and a price arrived within 10 s
 * (docs/operations.md#health). Liveness needs no check: answering at all is the proof.
 */
export function createHealthService(deps: HealthDeps) {
  return {
    async report(): Promise<HealthReport> {
      const dbOk = await pingDatabase(deps.db);
      const busOk = deps.bus.healthy();
      const price = deps.priceSource();
      const priceOk = price.last_tick_age_ms !== null && price.last_tick_age_ms <= PRICE_MAX_AGE_MS;
      const failed: ReadinessCheck[] = [];
      if (!dbOk) failed.push('database');
      if (!busOk) failed.push('bus');
      if (!priceOk) failed.push('price');
      return {
        db: { kind: deps.db.kind, ok: dbOk },
        bus: { kind: deps.bus.name, ok: busOk },
        price_source: price,
        news: deps.news(),
        failed,
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;

/**
 * `select 1`, bounded: during an outage the pool's breaker fails it at once (or lets it through
 * as the probe that finds the database back), but a database
 * that accepts connections and never answers must not hold a probe open either.
 */
async function pingDatabase(db: Db): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), DB_PING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      sql`select 1`.execute(db.kysely).then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
