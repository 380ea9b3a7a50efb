import { EventEmitter } from 'node:events';

/**
 * Events that cross nodes. With one process they stay in memory; with REDIS_URL they go
 * through Redis pub/sub so every node can fan them out to its own sockets.
 */
export interface BusEvents {
  /** A price tick from the node that owns the price source. */
  tick: { symbol: string; bid: number; ask: number; timestamp: number };
  /** A trader's order was executed (or rejected) on some node. */
  execution: { userId: number; accountId: number; payload: unknown };
  /** A session ended (logout, family revocation): sockets authenticated with it close. */
  session_revoked: { sessionId: string };
  /** A user was disabled: every socket of theirs closes. */
  user_disabled: { userId: number };
  /** Anything else a module needs to broadcast; keyed by `topic`. */
  message: { topic: string; payload: unknown };
  /**
   * A node's Redis link came back after an outage (docs/operations.md#redis-outages-and-leadership):
   * what travelled while it was down is lost, so every node reloads its in-memory state from
   * the database. Raised by the Redis bus itself, never by a module; `node` names the node.
   */
  resync: { node: string };
}

export type BusTopic = keyof BusEvents;

export interface Bus {
  readonly name: 'memory' | 'redis';
  publish<K extends BusTopic>(topic: K, event: BusEvents[K]): void;
  subscribe<K extends BusTopic>(topic: K, handler: (event: BusEvents[K]) => void): () => void;
  /** Whether the bus can currently deliver across nodes (always true in memory). */
  healthy(): boolean;
  /** Called when `healthy()` changes (never in memory). */
  onHealthChange(listener: (healthy: boolean) => void): () => void;
  close(): Promise<void>;
}

/** The default bus for a single process. Delivery is synchronous, in publish order. */
export class MemoryBus implements Bus {
  readonly name = 'memory' as const;
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  publish<K extends BusTopic>(topic: K, event: BusEvents[K]): void {
    this.emitter.emit(topic, event);
  }
  subscribe<K extends BusTopic>(topic: K, handler: (event: BusEvents[K]) => void): () => void {
    this.emitter.on(topic, handler);
    return () => this.emitter.off(topic, handler);
  }
  healthy(): boolean {
    return true;
  }
  onHealthChange(_listener: (healthy: boolean) => void): () => void {
    return () => {};
  }
  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
