import type { FxPair, ModifyOrderRequest, OrderDto, TimeInForce } from '@pipdesk/contract';
import { type FormEvent, type Ref, useEffect, useRef, useState } from 'react';
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

/** One typed figure of the form (a price or a distance) with its hint and problem. */
function FigureField(props: {
  label: string;
  hint?: string;
  error: string | undefined;
  /** Whole pips take `numeric`, prices `decimal` (the mobile keyboard). */
  inputMode: 'decimal' | 'numeric';
  value: string;
  onChange(value: string): void;
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <Field label={props.label} hint={props.hint} error={props.error}>
      <Input
        ref={props.inputRef}
        inputMode={props.inputMode}
        autoComplete="off"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </Field>
  );
}

/** A typed figure of the form: which draft text it edits and how it is shown. */
interface FigureSpec {
  field: 'price' | 'limitPrice' | 'stopLoss' | 'takeProfit' | 'trailingStopPips';
  /** Shown instead of the field's name (which its problems start with). */
  label?: string;
  hint?: string;
  inputMode: 'decimal' | 'numeric';
}

/** The protection the order gives its position, in the form's order. */
const PROTECTION_FIELDS: FigureSpec[] = [
  { field: 'stopLoss', hint: 'Empty for none', inputMode: 'decimal' },
  { field: 'takeProfit', hint: 'Empty for none', inputMode: 'decimal' },
  { field: 'trailingStopPips', label: 'Trailing stop (pips)', hint: '5 to 1,000; empty for none', inputMode: 'numeric' },
];

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

  // The price a triggered STOP_LIMIT no longer has; the first shown takes the focus.
  const entryFields: FigureSpec[] = [
    ...(order.triggered_at === null ? [{ field: 'price', inputMode: 'decimal' } as const] : []),
    ...(order.order_type === 'STOP_LIMIT' ? [{ field: 'limitPrice', inputMode: 'decimal' } as const] : []),
  ];
  const figureField = (spec: FigureSpec, inputRef?: Ref<HTMLInputElement>) => (
    <FigureField
      key={spec.field}
      label={spec.label ?? fieldName[spec.field]}
      hint={spec.hint}
      error={problem(spec.field)}
      inputMode={spec.inputMode}
      value={draft[spec.field]}
      onChange={set(spec.field)}
      inputRef={inputRef}
    />
  );
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
        {entryFields.map((spec, i) => figureField(spec, i === 0 ? first : undefined))}
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
        {PROTECTION_FIELDS.map((spec) => figureField(spec))}
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
