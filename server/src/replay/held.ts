import type { ReplayDto } from '@pipdesk/contract';
import type { AppContext } from '../core/context.js';
import type { BarSeries, PairCatalog } from '../market/index.js';
import type { BoundAccountMarket, TradingServiceImpl } from '../trading/index.js';
import * as repo from './repo.js';
import { SessionMarket } from './session-market.js';
import { SessionPriceBook } from './session-prices.js';
import type { StoredReplayStatus } from './tables.js';
import type { DataRange } from './types.js';

export interface ReplayDeps {
  ctx: Pick<AppContext, 'db' | 'clock' | 'log'>;
  pairs: PairCatalog;
  /** Every pair's real series (parsed once per process). */
  data: ReadonlyMap<string, BarSeries>;
  trading: Pick<TradingServiceImpl, 'markets' | 'accountPerformance'>;
  /** This node's id, unique among the running nodes: the holder of a session's lease (docs/replay.md#many-nodes). */
  nodeId: string;
}

/** A session this node holds: its market, bound to its practice account. */
export interface Held {
  id: number;
  userId: number;
  accountId: number;
  startAt: number;
  createdAt: number;
  status: StoredReplayStatus;
  speed: number;
  market: SessionMarket;
  bound: BoundAccountMarket;
  /** The controls and the play loop of one session run one after another. */
  queue: Promise<unknown>;
  /** Real time the play loop last advanced it (or found it unwatched: that time is not played). */
  playedAt: number;
  /** Real time since which no trading socket of this node has served its account while it plays. */
  unwatchedSince: number | undefined;
  /**
   * Real time until which this node holds the session's lease (0: it does not): while it does, no
   * other node moves the session and this copy is the truth, ahead of the row by at most a move.
   */
  leaseUntil: number;
  /** The row's `revision` this copy's account was loaded at, with this node's own changes since. */
  revision: number;
  /** This node's changes being counted, one after another (a check waits for them). */
  counting: Promise<void>;
}

/** Runs `work` after everything queued for the session: its controls and its play-loop moves run one after another. */
export function runQueued<T>(held: Held, work: () => Promise<T>): Promise<T> {
  const result = held.queue.then(work);
  held.queue = result.catch(() => {});
  return result;
}

/** A session's market at `clock`, over the real series of its pairs. */
export function sessionMarketAt(
  deps: Pick<ReplayDeps, 'data' | 'pairs'>,
  id: number,
  symbols: readonly string[],
  clock: number,
): SessionMarket {
  const { data, pairs } = deps;
  return new SessionMarket({
    data,
    pairs: symbols.map((s) => {
      const pair = pairs.get(s);
      if (!pair) throw new Error(`replay: pair ${s} of session ${id} is missing from the catalogue`);
      return pair;
    }),
    clock,
  });
}

/** What trading's `AccountMarkets` binds the practice account to: the market's prices, its clock, its pairs. */
export function sessionSource(deps: Pick<ReplayDeps, 'data' | 'pairs'>, market: SessionMarket) {
  return {
    prices: new SessionPriceBook(market, deps.data, deps.pairs),
    clock: { now: () => market.clock },
    symbols: market.symbols,
  };
}

/** Writes the copy's clock, status and speed to its row. */
export function saveHeld(deps: Pick<ReplayDeps, 'ctx'>, held: Held): Promise<void> {
  return repo.saveSession(deps.ctx.db.kysely, held.id, {
    clock: held.market.clock,
    status: held.status,
    speed: held.speed,
    updatedAt: deps.ctx.clock.now(),
  });
}

/** Whether another node moved the session past this copy, or changed its account since this copy loaded it. */
export function behind(held: Held, stored: repo.StoredState): boolean {
  return stored.clock > held.market.clock || stored.revision > held.revision;
}

/** The session as the calls answer it, from this node's copy. */
export function heldDto(held: Held): ReplayDto {
  return {
    id: held.id,
    account_id: held.accountId,
    symbols: [...held.market.symbols],
    start: iso(held.startAt),
    clock: iso(held.market.clock),
    speed: held.speed,
    status: held.status === 'deleted' ? 'paused' : held.status,
    data_from: iso(held.market.range.from),
    data_to: iso(held.market.range.to),
    created_at: iso(held.createdAt),
  };
}

/** The session as the calls answer it, from its row (a session this node does not move). */
export function rowDto(row: repo.ReplaySessionRow, range: DataRange): ReplayDto {
  return {
    id: Number(row.id),
    account_id: Number(row.account_id),
    symbols: row.symbols.split(','),
    start: iso(Number(row.start_at)),
    clock: iso(Number(row.clock)),
    speed: Number(row.speed),
    status: row.status === 'deleted' ? 'paused' : row.status,
    data_from: iso(range.from),
    data_to: iso(range.to),
    created_at: iso(Number(row.created_at)),
  };
}

export const iso = (ms: number): string => new Date(ms).toISOString();
