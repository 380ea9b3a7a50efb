import type { Generated } from 'kysely';

/**
 * A session as stored: `deleted` is a session its trader ended (DELETE), kept so its practice
 * account's history keeps its market (docs/replay.md#sessions-and-their-calls); the calls never show it.
 */
export type StoredReplayStatus = 'paused' | 'playing' | 'finished' | 'deleted';

/** One replay session (DESIGN §19, docs/replay.md). */
export interface ReplaySessionsTable {
  id: Generated<number>;
  user_id: number;
  /** Its practice account (one per session). */
  account_id: number;
  /** The pairs, sorted, comma-separated (1 to 4). */
  symbols: string;
  /** Session time (epoch ms) it started at. */
  start_at: number;
  /** Session time (epoch ms): every tick at or before it has been played (docs/replay.md#the-clock). Written after every advance. */
  clock: number;
  /** Session time per real time while playing. */
  speed: number;
  status: StoredReplayStatus;
  /** Wall-clock times. */
  created_at: number;
  updated_at: number;
  /** The node that holds the right to move it (docs/replay.md#many-nodes), until `lease_until`. */
  mover: string | null;
  /** Real time (epoch ms) the mover's lease ends; 0 when released. */
  lease_until: Generated<number>;
  /**
   * Counts the changes of its practice account (an order placed, cancelled or filled, a position's
   * protection): a node's copy loaded at another revision reloads the account's trigger book.
   */
  revision: Generated<number>;
}

export interface ReplayTables {
  replay_sessions: ReplaySessionsTable;
}

// The storage layer knows no feature: this module adds its table to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends ReplayTables {}
}
