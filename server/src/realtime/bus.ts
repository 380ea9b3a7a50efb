import { EventEmitter } from 'node:events';
import type { BusEventMap, BusMessageMap, BusMessage as MessageOf } from '@pipdesk/contract';
import type { EngineChange } from '../trading/engine/ports.js';
import type { ExecutionEvent } from '../trading/types.js';

/** The shapes of the contract's bus map that the trading module defines (JSON-safe, they cross nodes). */
interface ServerShapes {
  execution: ExecutionEvent;
  engineChange: EngineChange;
}

/**
 * Events that cross nodes (the contract's map, docs/ARCHITECTURE.md#many-processes). With one
 * process they stay in memory; with REDIS_URL they go through Redis pub/sub so every node can
 * fan them out to its own sockets.
 */
export type BusEvents = BusEventMap<ServerShapes>;
export type BusTopic = keyof BusEvents;
/** The payload of a topic. */
export type BusPayload<T extends BusTopic> = BusEvents[T];

/** The modules' own topics, carried by the `message` event. */
export type BusMessages = BusMessageMap<ServerShapes>;
export type BusMessageTopic = keyof BusMessages;
/** A `message` event `{topic, payload}`: a handler that switches on `topic` gets the payload typed. */
export type BusMessage<T extends BusMessageTopic = BusMessageTopic> = MessageOf<BusMessages, T>;

/** A bus typed by its `topic → payload` map: what is published is what the topic declares, and what is heard too. */
export interface EventBus<M> {
  readonly name: 'memory' | 'redis';
  publish<T extends keyof M & string>(topic: T, payload: M[T]): void;
  subscribe<T extends keyof M & string>(topic: T, handler: (payload: M[T]) => void): () => void;
  /** Whether the bus can currently deliver across nodes (always true in memory). */
  healthy(): boolean;
  /** Called when `healthy()` changes (never in memory). */
  onHealthChange(listener: (healthy: boolean) => void): () => void;
  close(): Promise<void>;
}

/** The app's bus. */
export type Bus = EventBus<BusEvents>;

/** The default bus for a single process. Delivery is synchronous, in publish order. */
export class MemoryBus implements Bus {
  readonly name = 'memory' as const;
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  publish<T extends BusTopic>(topic: T, payload: BusPayload<T>): void {
    this.emitter.emit(topic, payload);
  }
  subscribe<T extends BusTopic>(topic: T, handler: (payload: BusPayload<T>) => void): () => void {
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
