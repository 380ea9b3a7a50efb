import { ALERT_CONDITIONS, type AlertCondition, type FxPair } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api';
import { Button, Card, Field, Input, Select } from '../../components';
import { useNotices } from '../../notices/NoticeProvider';
import { useLivePrice } from '../trading/LiveTradingProvider';
import { type AlertDraft, checkAlertDraft } from './alertDraft';
import { createAlert, reloadAlerts } from './alertsApi';
import { CONDITION_LABELS, describeAlert } from './alertText';

/** docs/screens.md#alerts: the words of the New Alert form. */
export const ALERT_FORM_TEXT = {
  title: 'New Alert',
  pair: 'Currency Pair',
  condition: 'Condition',
  price: 'Price',
  note: 'Note',
  expires: 'Expires (optional)',
  submit: 'Create Alert',
  busy: 'Creating...',
  failed: 'Failed to create alert',
} as const;

const EMPTY: AlertDraft = { symbol: '', condition: 'bid_above', priceText: '', note: '', expiresText: '' };

/** The pair's bid and ask under the price, to set an alert near the market. */
function QuoteHint({ symbol, digits }: { symbol: string; digits: number }) {
  const price = useLivePrice(symbol);
  return price ? `Bid ${price.bid.toFixed(digits)} · Ask ${price.ask.toFixed(digits)}` : null;
}

/**
 * The Alerts page's form (docs/screens.md#alerts): pair, condition, price, note and an optional
 * expiry; checked with the contract's schema before it is sent; on success the list reloads
 * and the form keeps the pair and condition for the next one.
 */
export function AlertForm({ pairs }: { pairs: readonly FxPair[] }) {
  const queryClient = useQueryClient();
  const notices = useNotices();
  const [draft, setDraft] = useState<AlertDraft>(EMPTY);
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const pair = pairs.find((p) => p.symbol === draft.symbol);
  const digits = pair?.digits ?? 5;
  const check = checkAlertDraft(draft, Date.now());
  const errors = touched ? check.errors : {};
  const set = (change: Partial<AlertDraft>) => setDraft((d) => ({ ...d, ...change }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (!check.request || saving) return;
    setSaving(true);
    setFailure(null);
    try {
      const alert = await createAlert(check.request);
      notices.notify({ tone: 'success', title: 'Alert set', text: describeAlert(alert, digits) });
      setDraft((d) => ({ ...EMPTY, symbol: d.symbol, condition: d.condition }));
      setTouched(false);
      await reloadAlerts(queryClient);
    } catch (err) {
      setFailure(errorMessage(err, ALERT_FORM_TEXT.failed));
    } finally {
      setSaving(false);
    }
  }

  return (
    <Card title={ALERT_FORM_TEXT.title} className="alert-form-card">
      <form className="alert-form" onSubmit={submit} noValidate aria-label={ALERT_FORM_TEXT.title}>
        <Field label={ALERT_FORM_TEXT.pair} error={errors.symbol && 'Choose a pair'}>
          <Select value={draft.symbol} onChange={(e) => set({ symbol: e.target.value })} disabled={saving}>
            <option value="">Select a pair</option>
            {pairs.map((p) => (
              <option key={p.id} value={p.symbol}>
                {p.symbol} · {p.name}
              </option>
            ))}
          </Select>
        </Field>
        <Field label={ALERT_FORM_TEXT.condition}>
          <Select
            value={draft.condition}
            onChange={(e) => set({ condition: e.target.value as AlertCondition })}
            disabled={saving}
          >
            {ALERT_CONDITIONS.map((c) => (
              <option key={c} value={c}>
                {CONDITION_LABELS[c]}
              </option>
            ))}
          </Select>
        </Field>
        <Field
          label={ALERT_FORM_TEXT.price}
          error={errors.price}
          hint={draft.symbol ? <QuoteHint symbol={draft.symbol} digits={digits} /> : undefined}
        >
          <Input
            inputMode="decimal"
            autoComplete="off"
            value={draft.priceText}
            onChange={(e) => set({ priceText: e.target.value })}
            disabled={saving}
          />
        </Field>
        <Field label={ALERT_FORM_TEXT.note} error={errors.note}>
          <Input value={draft.note} onChange={(e) => set({ note: e.target.value })} disabled={saving} autoComplete="off" />
        </Field>
        <Field label={ALERT_FORM_TEXT.expires} error={errors.expires_at}>
          <Input
            type="datetime-local"
            value={draft.expiresText}
            onChange={(e) => set({ expiresText: e.target.value })}
            disabled={saving}
          />
        </Field>
        {failure && (
          <p className="field__error" role="alert">
            {failure}
          </p>
        )}
        <Button type="submit" variant="primary" busy={saving}>
          {saving ? ALERT_FORM_TEXT.busy : ALERT_FORM_TEXT.submit}
        </Button>
      </form>
    </Card>
  );
}
