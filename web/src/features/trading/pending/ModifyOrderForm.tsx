import type { FxPair, ModifyOrderRequest, OrderDto, TimeInForce } from '@pipdesk/contract';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Alert, Button, Field, Input, Select } from '../../../components';
import { formatLots, ORDER_TYPE_LABELS } from '../format';
import { checkOrderChange, type OrderDraft, type OrderField, orderDraftOf, type Quote } from './pendingRules';
import type { ModifyOutcome } from './usePendingOrderActions';

export interface ModifyOrderFormProps {
  order: OrderDto;
  pair: Pick<FxPair, 'symbol' | 'digits'>;
  /** The pair's live quote: a new price is checked against it as the server will. */
  quote: Quote | undefined;
  /** Sends the change; resolves with what happened. */
  onSave(change: ModifyOrderRequest): Promise<ModifyOutcome>;
  /** Closes the form (saved, or the trader discarded the change). */
  onDone(): void;
  /** For tests: the clock of the expiry rules. */
  now?: () => number;
}

const label = (order: OrderDto) =>
  `${order.side} ${ORDER_TYPE_LABELS[order.order_type]} ${formatLots(order.quantity)} ${order.fx_pair_symbol}`;

/**
 * Modify a pending order (docs/screens.md#pending-orders): its price (a triggered STOP_LIMIT
 * only its limit), time in force and expiry, and the protection it gives the position. Checked
 * as the server checks (docs/orders.md#validation) before sending only what changed; the
 * server's 400 shows above the buttons.
 */
export function ModifyOrderForm({ order, pair, quote, onSave, onDone, now = Date.now }: ModifyOrderFormProps) {
  const [draft, setDraft] = useState<OrderDraft>(() => orderDraftOf(order, pair.digits));
  const [serverError, setServerError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    first.current?.focus();
  }, []);

  const check = checkOrderChange(order, draft, { digits: pair.digits, quote, now: now() });
  const problems = check.problems;
  const hasProblems = Object.keys(problems).length > 0;
  const set = (field: OrderField) => (value: string) => {
    setServerError(null);
    setDraft((d) => ({ ...d, [field]: value }));
  };
  const fieldName: Record<OrderField, string> = {
    price: order.order_type === 'LIMIT' ? 'Price' : 'Trigger price',
    limitPrice: 'Limit price',
    timeInForce: 'Time in force',
    expiresAt: 'Expiry',
    stopLoss: 'Stop loss',
    takeProfit: 'Take profit',
    trailingStopPips: 'Trailing stop',
  };
  const problem = (field: OrderField) => (problems[field] ? `${fieldName[field]} ${problems[field]}` : undefined);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (saving || hasProblems) return;
    if (check.change === null) {
      onDone();
      return;
    }
    setSaving(true);
    const outcome = await onSave(check.change);
    setSaving(false);
    if (outcome.ok || outcome.badRequest === null) onDone();
    else setServerError(outcome.badRequest);
  }

  const triggered = order.triggered_at !== null;
  return (
    <form
      className="modify-order"
      aria-label={`Modify ${label(order)} order`}
      onSubmit={(e) => void submit(e)}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !saving) onDone();
      }}
      noValidate
    >
      <h3 className="modify-order__title">Modify {label(order)}</h3>
      <div className="modify-order__fields">
        {!triggered && (
          <Field label={fieldName.price} error={problem('price')}>
            <Input
              ref={first}
              inputMode="decimal"
              autoComplete="off"
              value={draft.price}
              onChange={(e) => set('price')(e.target.value)}
            />
          </Field>
        )}
        {order.order_type === 'STOP_LIMIT' && (
          <Field label={fieldName.limitPrice} error={problem('limitPrice')}>
            <Input
              ref={triggered ? first : undefined}
              inputMode="decimal"
              autoComplete="off"
              value={draft.limitPrice}
              onChange={(e) => set('limitPrice')(e.target.value)}
            />
          </Field>
        )}
        <Field label={fieldName.timeInForce}>
          <Select value={draft.timeInForce} onChange={(e) => set('timeInForce')(e.target.value as TimeInForce)}>
            <option value="GTC">Good till cancelled</option>
            <option value="GTD">Good till date</option>
          </Select>
        </Field>
        {draft.timeInForce === 'GTD' && (
          <Field label={fieldName.expiresAt} error={problem('expiresAt')}>
            <Input type="datetime-local" value={draft.expiresAt} onChange={(e) => set('expiresAt')(e.target.value)} />
          </Field>
        )}
        <Field label={fieldName.stopLoss} hint="Empty for none" error={problem('stopLoss')}>
          <Input
            inputMode="decimal"
            autoComplete="off"
            value={draft.stopLoss}
            onChange={(e) => set('stopLoss')(e.target.value)}
          />
        </Field>
        <Field label={fieldName.takeProfit} hint="Empty for none" error={problem('takeProfit')}>
          <Input
            inputMode="decimal"
            autoComplete="off"
            value={draft.takeProfit}
            onChange={(e) => set('takeProfit')(e.target.value)}
          />
        </Field>
        <Field label="Trailing stop (pips)" hint="5 to 1,000; empty for none" error={problem('trailingStopPips')}>
          <Input
            inputMode="numeric"
            autoComplete="off"
            value={draft.trailingStopPips}
            onChange={(e) => set('trailingStopPips')(e.target.value)}
          />
        </Field>
      </div>
      {serverError && <Alert tone="error">{serverError}</Alert>}
      <div className="modify-order__actions">
        <Button type="submit" variant="primary" size="sm" disabled={hasProblems} busy={saving}>
          {saving ? 'Saving...' : 'Save Changes'}
        </Button>
        <Button variant="ghost" size="sm" onClick={onDone} disabled={saving}>
          Discard
        </Button>
      </div>
    </form>
  );
}
