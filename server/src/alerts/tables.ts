import type { AlertCondition, AlertStatus } from '@pipdesk/contract';
import type { Generated } from 'kysely';

/** A trader's price alert (docs/charting.md#alerts). Prices × 10^10 as orders keep them; times epoch ms. */
export interface AlertsTable {
  id: Generated<number>;
  user_id: number;
  symbol: string;
  condition: AlertCondition;
  price_e10: number;
  note: string | null;
  status: AlertStatus;
  /** Bumped by every change a trader makes, so the evaluating node keeps the newest. */
  version: number;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
  triggered_at: number | null;
  /** The bid or ask of the tick that fired it. */
  triggered_price_e10: number | null;
}

/** Tables of the alerts module. */
export interface AlertsTables {
  price_alerts: AlertsTable;
}

// The storage layer knows no feature: this module adds its table to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends AlertsTables {}
}
