import { authOperations } from './auth.js';
import { chartingOperations } from './charting.js';
import { cohortsOperations } from './cohorts.js';
import { consoleOperations } from './console.js';
import type { OperationSpec } from './define.js';
import { demoOperations } from './demo.js';
import { docsOperations } from './docs.js';
import { healthOperations } from './health.js';
import { marketOperations } from './market.js';
import { newsOperations } from './news.js';
import { performanceOperations } from './performance.js';
import { tradingOperations } from './trading.js';

export * from './define.js';

/**
 * Every HTTP call of the API by name (docs/api.md#how-a-call-is-declared): the server registers
 * each one's route, the document describes each one, the web calls them by these names.
 */
export const ops = {
  ...authOperations,
  ...tradingOperations,
  ...performanceOperations,
  ...chartingOperations,
  ...cohortsOperations,
  ...consoleOperations,
  ...marketOperations,
  ...newsOperations,
  ...healthOperations,
  ...demoOperations,
  ...docsOperations,
} as const;

export type OperationName = keyof typeof ops;

/** The calls in the document's order. */
export const API_OPERATIONS: readonly OperationSpec[] = Object.values(ops);
