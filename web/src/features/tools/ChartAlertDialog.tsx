import { ALERT_CONDITIONS, type AlertCondition } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { errorMessage } from '../../api';
import { Button, Field, Input, Select } from '../../components';
import { useNotices } from '../../notices/NoticeProvider';
import { checkAlertDraft } from '../alerts/alertDraft';
import { createAlert, reloadAlerts } from '../alerts/alertsApi';
import { CONDITION_LABELS, conditionFor, describeAlert } from '../alerts/alertText';
import { Dialog } from './Dialog';

export interface ChartAlertDialogProps {
  symbol: string;
  /** The price at the crosshair, or the last price. */
  price: number;
  /** The current bid, which decides whether the alert waits above or below. */
  bid: number | undefined;
  digits: number;
  onClose: () => void;
}

/**
 * The chart's "Alert" (button or Alt+A, docs/charting.md#one-click-trading-and-hotkeys): a price
 * alert at the chart's price, above or below as the price stands to the bid; Save sets it.
 */
export function ChartAlertDialog({ symbol, price, bid, digits, onClose }: ChartAlertDialogProps) {
  const queryClient = useQueryClient();
  const notices = useNotices();
  const priceRef = useRef<HTMLInputElement>(null);
  const [condition, setCondition] = useState<AlertCondition>(() => conditionFor(price, bid));
  const [priceText, setPriceText] = useState(() => price.toFixed(digits));
  const [note, setNote] = useState('');
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const check = checkAlertDraft({ symbol, condition, priceText, note, expiresText: '' }, Date.now());
  const errors = touched ? check.errors : {};

  async function save(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (!check.request || saving) return;
    setSaving(true);
    setFailure(null);
    try {
      const alert = await createAlert(check.request);
      notices.notify({ tone: 'success', title: 'Alert set', text: describeAlert(alert, digits) });
      void reloadAlerts(queryClient);
      onClose();
    } catch (err) {
      setFailure(errorMessage(err, 'Failed to set the alert'));
      setSaving(false);
    }
  }

  return (
    <Dialog title={`Price alert on ${symbol}`} onClose={onClose} initialFocus={priceRef}>
      <form onSubmit={save} noValidate aria-label="Price alert">
        <Field label="Condition">
          <Select value={condition} onChange={(e) => setCondition(e.target.value as AlertCondition)} disabled={saving}>
            {ALERT_CONDITIONS.map((c) => (
              <option key={c} value={c}>
                {CONDITION_LABELS[c]}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Price" error={errors.price} hint={bid === undefined ? undefined : `Bid ${bid.toFixed(digits)}`}>
          <Input
            ref={priceRef}
            inputMode="decimal"
            autoComplete="off"
            value={priceText}
            onChange={(e) => setPriceText(e.target.value)}
            disabled={saving}
          />
        </Field>
        <Field label="Note" error={errors.note}>
          <Input value={note} onChange={(e) => setNote(e.target.value)} disabled={saving} autoComplete="off" />
        </Field>
        {failure && (
          <p className="field__error" role="alert">
            {failure}
          </p>
        )}
        <div className="tool-dialog__actions">
          <Button type="submit" variant="primary" busy={saving}>
            {saving ? 'Saving...' : 'Save'}
          </Button>
          <Button variant="secondary" onClick={onClose} disabled={saving}>
            Cancel
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
