import {
  type Alert,
  type AlertStatus,
  type CreateAlertRequest,
  chartingOperations as ops,
  type UpdateAlertRequest,
} from '@pipdesk/contract';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { api } from '../../api';

/**
 * Query keys of the price alerts (docs/charting.md#alerts). Apart from ['trading']: an order
 * reloads the trader's money, and the alerts have nothing to do with it.
 */
export const alertKeys = {
  all: ['alerts'] as const,
  list: (status: AlertStatus | null) => ['alerts', 'list', status ?? 'ALL'] as const,
};

/** GET trading/alerts/, newest first; `status` narrows the list. */
export function fetchAlerts(status: AlertStatus | null, signal?: AbortSignal): Promise<Alert[]> {
  return api.call(ops.listAlerts, { query: status ? { status } : {} }, { signal });
}

export async function createAlert(alert: CreateAlertRequest): Promise<Alert> {
  return (await api.call(ops.createAlert, { body: alert })).alert;
}

/** PATCH an ACTIVE alert (a fired or expired one answers 409 `ALERT_NOT_ACTIVE`). */
export async function updateAlert(id: number, change: UpdateAlertRequest): Promise<Alert> {
  return (await api.call(ops.updateAlert, { ids: { id }, body: change })).alert;
}

export async function deleteAlert(id: number): Promise<void> {
  await api.call(ops.deleteAlert, { ids: { id } });
}

export function useAlerts(status: AlertStatus | null) {
  return useQuery({ queryKey: alertKeys.list(status), queryFn: ({ signal }) => fetchAlerts(status, signal) });
}

/** After a change here or an `alert_update` on the socket: every list of alerts is out of date. */
export function reloadAlerts(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: alertKeys.all });
}
