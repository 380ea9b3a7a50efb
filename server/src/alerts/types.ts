import type { AlertChangePayload, AlertCondition, ArmedAlertState } from '@pipdesk/contract';
import type { Selectable } from 'kysely';
import type { BusMessageTopic } from '../realtime/bus.js';
import type { AlertsTable } from './tables.js';

export type { AlertChangePayload, AlertCondition, ArmedAlertState };

/** A stored alert as the repository reads it. */
export type AlertRow = Selectable<AlertsTable>;

/** Bus 'message' topic of created, changed and deleted alerts: the evaluating node's book follows it. */
export const ALERT_CHANGE_TOPIC = 'alerts.change' satisfies BusMessageTopic;
/** Bus 'message' topic of fired and expired alerts: every node tells the trader's sockets. */
export const ALERT_UPDATE_TOPIC = 'alerts.update' satisfies BusMessageTopic;

/** Prices are stored × 10^10, as orders store them. */
export const PRICE_SCALE = 10;

/** What one tick fired of one condition on one pair: they share the tick's price and time, so one guarded write records them. */
export interface FireGroup {
  ids: number[];
  condition: AlertCondition;
  /** The tick's bid (bid_*) or ask (ask_*), × 10^10. */
  priceE10: number;
  /** The tick's time, epoch ms. */
  at: number;
}

export function armedStateOf(row: AlertRow): ArmedAlertState {
  return {
    id: row.id,
    userId: row.user_id,
    symbol: row.symbol,
    condition: row.condition,
    priceE10: row.price_e10,
    expiresAt: row.expires_at,
    version: row.version,
  };
}
