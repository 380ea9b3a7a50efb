import type { Generated } from 'kysely';

/**
 * A point of an account's equity curve (docs/performance.md#the-equity-curve): written at every
 * execution and, while positions are open, every 15 minutes by the price-source leader. Old
 * points are thinned to a few per hour. Money in cents, time in epoch ms.
 */
export interface EquityPointsTable {
  id: Generated<number>;
  account_id: number;
  period_id: number;
  time: number;
  equity_minor: number;
  balance_minor: number;
}

export interface EquityCurveTables {
  equity_points: EquityPointsTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../../db/schema.js' {
  interface Database extends EquityCurveTables {}
}
