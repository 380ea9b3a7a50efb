import { authOperations } from './auth.js';
import { chartingOperations } from './charting.js';
import { cohortsOperations } from './cohorts.js';
import { consoleOperations } from './console.js';
import type { OperationSpec } from './define.js';
import { demoOperations } from './demo.js';
import { docsOperations } from './docs.js';
import { evaluationsOperations } from './evaluations.js';
import { healthOperations } from './health.js';
import { marketOperations } from './market.js';
import { newsOperations } from './news.js';
import { performanceOperations } from './performance.js';
import { replayOperations } from './replay.js';
import { tradingOperations } from './trading.js';

export * from './define.js';
// Each area's map on its own, for a client that should load only the calls it makes: the web imports
// these (the contract is free of side effects, so a bundle keeps only the areas it names), while `ops`
// below names every call and so brings every area's schemas (docs/decisions.md, code splitting).
export {
  authOperations,
  chartingOperations,
  cohortsOperations,
  consoleOperations,
  demoOperations,
  docsOperations,
  evaluationsOperations,
  healthOperations,
  marketOperations,
  newsOperations,
  performanceOperations,
  replayOperations,
  tradingOperations,
};

/**
 * Every HTTP call of the API by name (docs/api.md#how-a-call-is-declared): the server registers
 * each one's route and the document describes each one. The web calls the same entries through
 * their area's map (`tradingOperations.platformData`), so a screen loads only its areas' schemas.
 */
export const ops = {
  ...authOperations,
  ...tradingOperations,
  ...performanceOperations,
  ...chartingOperations,
  ...cohortsOperations,
  ...consoleOperations,
  ...evaluationsOperations,
  ...replayOperations,
  ...marketOperations,
  ...newsOperations,
  ...healthOperations,
  ...demoOperations,
  ...docsOperations,
} as const;

export type OperationName = keyof typeof ops;

/** The calls in the document's order. */
export const API_OPERATIONS: readonly OperationSpec[] = Object.values(ops);
