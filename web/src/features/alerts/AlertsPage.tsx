import { ALERT_STATUSES, type AlertStatus } from '@pipdesk/contract';
import { useSearchParams } from 'react-router';
import { errorMessage } from '../../api';
import { Card, Field, Page, Select, Spinner } from '../../components';
import { digitsLookup, ErrorBox, usePlatformData } from '../trading';
import { AlertForm } from './AlertForm';
import { AlertsTable } from './AlertsTable';
import { useAlerts } from './alertsApi';
import { STATUS_LABELS } from './alertText';
import './alerts.css';

/** docs/screens.md#alerts. */
export const ALERTS_TEXT = {
  title: 'Alerts',
  status: 'Status',
  all: 'All',
  empty: 'No alerts found.',
  failed: 'Failed to load alerts',
} as const;

/** The status filter from the address (`?status=TRIGGERED`), so a link keeps it; anything else is all. */
function readStatus(params: URLSearchParams): AlertStatus | null {
  const value = params.get('status')?.toUpperCase();
  return (ALERT_STATUSES as readonly string[]).includes(value ?? '') ? (value as AlertStatus) : null;
}

/** Route `/alerts`: the trader's price alerts and a form to set one (docs/screens.md#alerts). */
export function AlertsPage() {
  const [params, setParams] = useSearchParams();
  const status = readStatus(params);
  const alerts = useAlerts(status);
  const platform = usePlatformData();
  const pairs = platform.data?.fx_pairs ?? [];
  const digits = digitsLookup(pairs);

  return (
    <Page title={ALERTS_TEXT.title}>
      <div className="alerts-layout">
        <AlertForm pairs={pairs} />
        <Card
          title="Your Alerts"
          flush
          actions={
            <Field label={ALERTS_TEXT.status} className="alerts__filter">
              <Select
                value={status ?? ''}
                onChange={(e) => setParams(e.target.value ? { status: e.target.value } : {}, { replace: true })}
              >
                <option value="">{ALERTS_TEXT.all}</option>
                {ALERT_STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {STATUS_LABELS[s]}
                  </option>
                ))}
              </Select>
            </Field>
          }
        >
          {alerts.isPending ? (
            <p className="alerts__loading">
              <Spinner /> Loading alerts...
            </p>
          ) : alerts.isError ? (
            <ErrorBox
              message={errorMessage(alerts.error, ALERTS_TEXT.failed)}
              onRetry={() => void alerts.refetch()}
              retrying={alerts.isFetching}
            />
          ) : (
            <AlertsTable alerts={alerts.data} digits={digits} empty={ALERTS_TEXT.empty} />
          )}
        </Card>
      </div>
    </Page>
  );
}
