import type { Alert } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../api';
import { Badge, Button, formatDateTime, Input, Num, Table } from '../../components';
import { useNotices } from '../../notices/NoticeProvider';
import { formatQuote } from '../trading/format';
import { deleteAlert, reloadAlerts, updateAlert } from './alertsApi';
import { CONDITION_LABELS, describeAlert, STATUS_LABELS } from './alertText';

const STATUS_TONE = { ACTIVE: 'accent', TRIGGERED: 'warning', EXPIRED: 'neutral' } as const;

export interface AlertsTableProps {
  alerts: readonly Alert[];
  digits: (symbol: string) => number;
  /** Shown in one cell when there are none. */
  empty: string;
}

/**
 * The trader's alerts (docs/screens.md#alerts): pair, condition in words, price, note, status,
 * created, expires, and when and at what price it fired. An ACTIVE alert's price and note can
 * be changed in its row; any alert can be deleted.
 */
export function AlertsTable({ alerts, digits, empty }: AlertsTableProps) {
  return (
    <Table label="Alerts">
      <caption className="sr-only">Alerts</caption>
      <thead>
        <tr>
          <th scope="col">Pair</th>
          <th scope="col">Condition</th>
          <th scope="col" className="num">
            Price
          </th>
          <th scope="col">Note</th>
          <th scope="col">Status</th>
          <th scope="col">Created</th>
          <th scope="col">Expires</th>
          <th scope="col">Triggered</th>
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {alerts.length === 0 ? (
          <tr>
            <td colSpan={9} className="table__empty">
              {empty}
            </td>
          </tr>
        ) : (
          alerts.map((alert) => <AlertRow key={alert.id} alert={alert} digits={digits(alert.symbol)} />)
        )}
      </tbody>
    </Table>
  );
}

function AlertRow({ alert, digits }: { alert: Alert; digits: number }) {
  const queryClient = useQueryClient();
  const notices = useNotices();
  const [editing, setEditing] = useState(false);
  const [priceText, setPriceText] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const name = describeAlert(alert, digits);

  function startEdit() {
    setPriceText(alert.price.toFixed(digits));
    setNote(alert.note ?? '');
    setEditing(true);
  }

  async function run(action: () => Promise<unknown>, failed: string, done?: () => void) {
    setBusy(true);
    try {
      await action();
      done?.();
      await reloadAlerts(queryClient);
    } catch (err) {
      notices.notify({ tone: 'error', title: name, text: errorMessage(err, failed) });
    } finally {
      setBusy(false);
    }
  }

  const price = Number(priceText.trim());
  const priceValid = priceText.trim() !== '' && Number.isFinite(price) && price > 0;
  const save = () =>
    run(
      () => updateAlert(alert.id, { price, note: note.trim() === '' ? null : note.trim() }),
      'Failed to change the alert',
      () => setEditing(false),
    );

  return (
    <tr>
      <td>{alert.symbol}</td>
      <td>{CONDITION_LABELS[alert.condition]}</td>
      <td className="num">
        {editing ? (
          <Input
            className="alerts__edit-price"
            inputMode="decimal"
            aria-label={`Price, ${name}`}
            aria-invalid={!priceValid || undefined}
            value={priceText}
            disabled={busy}
            onChange={(e) => setPriceText(e.target.value)}
          />
        ) : (
          <Num>{formatQuote(alert.price, digits)}</Num>
        )}
      </td>
      <td>
        {editing ? (
          <Input aria-label={`Note, ${name}`} value={note} disabled={busy} onChange={(e) => setNote(e.target.value)} />
        ) : (
          (alert.note ?? '')
        )}
      </td>
      <td>
        <Badge tone={STATUS_TONE[alert.status]}>{STATUS_LABELS[alert.status]}</Badge>
      </td>
      <td>{formatDateTime(alert.created_at)}</td>
      <td>{alert.expires_at ? formatDateTime(alert.expires_at) : '—'}</td>
      <td>
        {alert.triggered_at ? (
          <>
            {formatDateTime(alert.triggered_at)} at <Num>{formatQuote(alert.triggered_price, digits)}</Num>
          </>
        ) : (
          '—'
        )}
      </td>
      <td className="alerts__actions">
        {editing ? (
          <>
            <Button size="sm" variant="primary" busy={busy} disabled={!priceValid} onClick={() => void save()}>
              Save
            </Button>
            <Button size="sm" variant="ghost" disabled={busy} onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </>
        ) : (
          <>
            {alert.status === 'ACTIVE' && (
              <Button size="sm" variant="secondary" aria-label={`Edit ${name}`} disabled={busy} onClick={startEdit}>
                Edit
              </Button>
            )}
            <Button
              size="sm"
              variant="ghost"
              aria-label={`Delete ${name}`}
              busy={busy}
              onClick={() => void run(() => deleteAlert(alert.id), 'Failed to delete the alert')}
            >
              Delete
            </Button>
          </>
        )}
      </td>
    </tr>
  );
}
