import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics, SocketKind } from './types.js';

/** Metrics off: nothing is counted and nothing is served (`/metrics` answers 404). */
export const noMetrics: Metrics = {
  enabled: false,
  httpRequest: () => {},
  order: () => {},
  triggerExecution: () => {},
  socketOpened: () => {},
  socketClosed: () => {},
  tick: () => {},
  transaction: () => {},
  busDelay: () => {},
  render: async () => ({ contentType: 'text/plain', body: '' }),
  close: () => {},
};

/** Request latencies: a fill waits for the disk (docs/operations.md#durability), so milliseconds up to seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Bus delays: sub-millisecond in one data centre; seconds mean Redis is struggling. */
const BUS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/**
 * A registry of this app's own (docs/operations.md#metrics): tests build many apps in one
 * process, so nothing goes to prom-client's global default registry, and each app's counters
 * start at zero.
 */
export function createMetrics(): Metrics {
  const registry = new Registry();
  // Our own monitor rather than prom-client's default metrics, whose monitor and GC observer
  // cannot be stopped: an app closed in a test must leave nothing running.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  new Gauge({
    name: 'pipdesk_event_loop_lag_seconds',
    help: 'Event-loop delay since the previous scrape, by quantile',
    labelNames: ['quantile'] as const,
    registers: [registry],
    collect() {
      // Nanoseconds; a window with no sample reads 0 rather than the histogram's placeholder.
      const seconds = (ns: number) => (loopDelay.count > 0 ? ns / 1e9 : 0);
      this.set({ quantile: '0.5' }, seconds(loopDelay.percentile(50)));
      this.set({ quantile: '0.99' }, seconds(loopDelay.percentile(99)));
      this.set({ quantile: '1' }, seconds(loopDelay.max));
      loopDelay.reset();
    },
  });
  const httpDuration = new Histogram({
    name: 'pipdesk_http_request_duration_seconds',
    help: 'HTTP request duration by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const orders = new Counter({
    name: 'pipdesk_orders_total',
    help: 'Order events by order type, outcome and reason (the rejection code for a rejection)',
    labelNames: ['type', 'outcome', 'reason'] as const,
    registers: [registry],
  });
  const triggers = new Counter({
    name: 'pipdesk_trigger_executions_total',
    help: 'Executions by the order trigger engine by kind and outcome',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  const sockets = new Gauge({
    name: 'pipdesk_open_sockets',
    help: 'Open WebSocket connections on this node by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  // Both kinds exported from the start, so a dashboard shows 0 rather than no data.
  sockets.set({ kind: 'price' }, 0);
  sockets.set({ kind: 'trading' }, 0);
  const ticks = new Counter({
    name: 'pipdesk_ticks_total',
    help: 'Price ticks received by this node by symbol',
    labelNames: ['symbol'] as const,
    registers: [registry],
  });
  const transactions = new Histogram({
    name: 'pipdesk_transaction_duration_seconds',
    help: 'Write transactions from BEGIN to durable, by outcome',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const bus = new Histogram({
    name: 'pipdesk_bus_delay_seconds',
    help: 'Publish-to-delivery delay of bus events that crossed nodes (Redis), by topic',
    labelNames: ['topic'] as const,
    buckets: BUS_BUCKETS,
    registers: [registry],
  });
  return {
    enabled: true,
    httpRequest: (route, method, status, seconds) => httpDuration.observe({ route, method, status }, seconds),
    order: (type, outcome, reason) => orders.inc({ type, outcome, reason }),
    triggerExecution: (kind, outcome) => triggers.inc({ kind, outcome }),
    socketOpened: (kind: SocketKind) => sockets.inc({ kind }),
    socketClosed: (kind: SocketKind) => sockets.dec({ kind }),
    tick: (symbol) => ticks.inc({ symbol }),
    transaction: (outcome, seconds) => transactions.observe({ outcome }, seconds),
    busDelay: (topic, seconds) => bus.observe({ topic }, Math.max(0, seconds)),
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
    close: () => {
      loopDelay.disable();
      registry.clear();
    },
  };
}
