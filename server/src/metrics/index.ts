export { metricsTokenMatches, registerMetricsRoute, startMetricsServer } from './endpoint.js';
export { createMetrics, noMetrics } from './registry.js';
export { instrumentSockets } from './sockets.js';
export type { Metrics, SocketKind } from './types.js';
