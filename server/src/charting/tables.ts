import type { DrawingKind } from '@pipdesk/contract';
import type { Generated } from 'kysely';

export interface DrawingsTable {
  id: Generated<number>;
  user_id: number;
  /** Upper-case catalogue symbol. */
  symbol: string;
  kind: DrawingKind;
  /**
   * The anchor points as JSON `[{"time":…,"price":…}]`: a price is kept as the shortest text of
   * the number sent, which reads back as the same number (a chart drawing is never summed).
   */
  points: string;
  text: string | null;
  color: string | null;
  /** Epoch ms. */
  created_at: number;
  updated_at: number;
}

export interface ChartLayoutsTable {
  /** One layout per trader. */
  user_id: number;
  /** The layout as JSON, as chartLayoutSchema parsed it when it was saved. */
  layout: string;
  updated_at: number;
}

/** Tables of the charting module (drawings and chart layouts). */
export interface ChartingTables {
  drawings: DrawingsTable;
  chart_layouts: ChartLayoutsTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends ChartingTables {}
}
