import { type Dec, ORDER_TYPES, type OrderType } from '@pipdesk/contract';
import { Field, Input, Num, Select } from '../../../components';
import { formatLots, formatPnl, formatUsd, ORDER_TYPE_LABELS } from '../format';
import type { DistanceUnit, ProtectionFigure } from './ticketFigures';
import { isPending, MAX_GTD_TEXT, PRICE_LABEL, priceLabel } from './ticketModel';
import type { OrderTicket } from './useOrderTicket';

/** docs/screens.md#order-ticket: the words of the ticket's own figures. */
export const TICKET_LABELS = {
  orderType: 'Order Type',
  timeInForce: 'Time in Force',
  expires: 'Expires',
  stopLoss: 'Stop Loss',
  takeProfit: 'Take Profit',
  trailing: 'Trailing Stop (pips)',
  marginLevelAfter: 'Margin Level After',
  freeMarginAfter: 'Free Margin After',
  marginCallAt: 'Margin Call At',
  stopOutAt: 'Stop-out At',
} as const;

const percent = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "1,234.56%". */
export function formatPercent(value: Dec): string {
  return `${percent.format(value.toNumber(2))}%`;
}

/** "1.09820 · 20.0 pips · -$20.00 at stop · 0.20% of equity". */
export function protectionText(
  figure: ProtectionFigure,
  digits: number,
  what: 'stop' | 'target',
  riskPercent: Dec | null,
  /** The order's lots, to say when the figure is for a larger position. */
  lots: number | null = null,
): string {
  const parts = [figure.price.toFixed(digits), `${figure.pips.toFixed(1)} pips`];
  if (figure.ignored) parts.push('not set: this order reduces the open position');
  if (figure.money !== undefined) {
    // Adding to a position: its protection closes all of it (docs/orders.md#protection-on-positions).
    const whole =
      lots !== null && figure.lots !== undefined && !figure.lots.eq(lots)
        ? ` for ${formatLots(figure.lots.toNumber(2))} lots`
        : '';
    parts.push(`${formatPnl(figure.money.toNumber(2))} at ${what}${whole}`);
  }
  if (what === 'stop' && riskPercent !== null) parts.push(`${formatPercent(riskPercent)} of equity`);
  return parts.join(' · ');
}

/** A margin level's price as the ticket shows it: the price, "Now" when it already is, "—" when out of reach. */
function levelText(level: { price: Dec; now: boolean } | null | undefined, digits: number): string {
  if (!level) return '—';
  return level.now ? 'Now' : level.price.toFixed(digits);
}

export interface OrderTicketFieldsProps {
  ticket: OrderTicket;
  disabled?: boolean;
}

/**
 * The order ticket's controls beside the spec's side and lot size (docs/screens.md#order-ticket):
 * the order type and the prices it needs, time in force, stop loss and take profit as a price or
 * in pips with their money, a trailing stop, and the account after the order.
 */
export function OrderTicketFields({ ticket, disabled = false }: OrderTicketFieldsProps) {
  const { state, evaluation, pair, quote } = ticket;
  const { errors } = evaluation;
  const digits = pair?.digits ?? 5;
  const pending = isPending(state.orderType);
  const market = quote ? `Bid ${quote.bid.toFixed(digits)} · Ask ${quote.ask.toFixed(digits)}` : undefined;

  return (
    <div className="order-ticket">
      <Field label={TICKET_LABELS.orderType}>
        <Select value={state.orderType} onChange={(e) => ticket.setOrderType(e.target.value as OrderType)} disabled={disabled}>
          {ORDER_TYPES.map((type) => (
            <option key={type} value={type}>
              {ORDER_TYPE_LABELS[type]}
            </option>
          ))}
        </Select>
      </Field>
      {pending && (
        <>
          <Field label={priceLabel(state.orderType)} hint={market} error={errors.price}>
            <Input
              inputMode="decimal"
              value={state.priceText}
              onChange={(e) => ticket.set({ priceText: e.target.value })}
              disabled={disabled}
            />
          </Field>
          {state.orderType === 'STOP_LIMIT' && (
            <Field label={PRICE_LABEL.limit} hint="Where it rests once its stop triggers" error={errors.limitPrice}>
              <Input
                inputMode="decimal"
                value={state.limitPriceText}
                onChange={(e) => ticket.set({ limitPriceText: e.target.value })}
                disabled={disabled}
              />
            </Field>
          )}
          <Field label={TICKET_LABELS.timeInForce}>
            <Select
              value={state.timeInForce}
              onChange={(e) => ticket.set({ timeInForce: e.target.value === 'GTD' ? 'GTD' : 'GTC' })}
              disabled={disabled}
            >
              <option value="GTC">Good till cancelled</option>
              <option value="GTD">Until a date and time</option>
            </Select>
          </Field>
          {state.timeInForce === 'GTD' && (
            <Field label={TICKET_LABELS.expires} hint={MAX_GTD_TEXT} error={errors.expiresAt}>
              <Input
                type="datetime-local"
                value={state.expiresText}
                onChange={(e) => ticket.set({ expiresText: e.target.value })}
                disabled={disabled}
              />
            </Field>
          )}
        </>
      )}
      <fieldset className="order-ticket__protection">
        <legend>Protection</legend>
        <ProtectionField
          ticket={ticket}
          field="stopLoss"
          label={TICKET_LABELS.stopLoss}
          hint={
            evaluation.stopLoss
              ? protectionText(evaluation.stopLoss, digits, 'stop', evaluation.riskPercent, ticket.lots)
              : undefined
          }
          disabled={disabled}
        />
        <ProtectionField
          ticket={ticket}
          field="takeProfit"
          label={TICKET_LABELS.takeProfit}
          hint={evaluation.takeProfit ? protectionText(evaluation.takeProfit, digits, 'target', null, ticket.lots) : undefined}
          disabled={disabled}
        />
        <Field label={TICKET_LABELS.trailing} error={errors.trailing}>
          <Input
            type="number"
            inputMode="numeric"
            min={5}
            max={1000}
            step={1}
            value={state.trailingText}
            onChange={(e) => ticket.set({ trailingText: e.target.value })}
            disabled={disabled}
          />
        </Field>
      </fieldset>
      <dl className="order-form__figures order-ticket__after">
        <div>
          <dt>{TICKET_LABELS.marginLevelAfter}</dt>
          <dd>
            <Num data-testid="margin-level-after">
              {evaluation.after?.marginLevel ? formatPercent(evaluation.after.marginLevel) : '—'}
            </Num>
          </dd>
        </div>
        <div>
          <dt>{TICKET_LABELS.freeMarginAfter}</dt>
          <dd>
            <Num data-testid="free-margin-after">
              {evaluation.after ? formatUsd(evaluation.after.freeMargin.toNumber(2)) : '—'}
            </Num>
          </dd>
        </div>
        <div>
          <dt>{TICKET_LABELS.marginCallAt}</dt>
          <dd>
            <Num data-testid="margin-call-at">{levelText(evaluation.after?.marginCall, digits)}</Num>
          </dd>
        </div>
        <div>
          <dt>{TICKET_LABELS.stopOutAt}</dt>
          <dd>
            <Num data-testid="stop-out-at">{levelText(evaluation.after?.stopOut, digits)}</Num>
          </dd>
        </div>
      </dl>
    </div>
  );
}

/** A stop loss or take profit: the value, what it is typed as (price or pips), and what it means. */
function ProtectionField({
  ticket,
  field,
  label,
  hint,
  disabled,
}: {
  ticket: OrderTicket;
  field: 'stopLoss' | 'takeProfit';
  label: string;
  hint: string | undefined;
  disabled: boolean;
}) {
  const text = field === 'stopLoss' ? ticket.state.stopLossText : ticket.state.takeProfitText;
  const unit = field === 'stopLoss' ? ticket.state.stopLossUnit : ticket.state.takeProfitUnit;
  return (
    <div className="order-ticket__protect">
      <Field label={label} hint={hint} error={ticket.evaluation.errors[field]}>
        <Input
          inputMode="decimal"
          value={text}
          placeholder={unit === 'pips' ? 'pips' : 'price'}
          onChange={(e) =>
            ticket.set(field === 'stopLoss' ? { stopLossText: e.target.value } : { takeProfitText: e.target.value })
          }
          disabled={disabled}
        />
      </Field>
      <Select
        aria-label={`${label} entered as`}
        className="order-ticket__unit"
        value={unit}
        onChange={(e) => ticket.setUnit(field, e.target.value as DistanceUnit)}
        disabled={disabled}
      >
        <option value="price">Price</option>
        <option value="pips">Pips</option>
      </Select>
    </div>
  );
}
