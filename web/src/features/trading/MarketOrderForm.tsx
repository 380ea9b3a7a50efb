import type { FxPair } from '@pipdesk/contract';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api';
import { Button, Card, Field, Input, Select } from '../../components';
import { useNotices } from '../../notices/NoticeProvider';
import { RiskSizeHelper } from '../tools/RiskSizeHelper';
import { digitsLookup } from './format';
import { LOT_STEP, lotHint, lotSizeProblem, pairLotBounds, parseLots } from './lotRules';
import { SideToggle } from './SideToggle';
import { OrderTicketFields } from './ticket/OrderTicketFields';
import { useOrderTicket } from './ticket/useOrderTicket';
import { orderNotice, orderNoticeKey, rejectedOrderOf } from './tradeNotices';
import { usePlaceOrder } from './usePlaceOrder';

/** docs/screens.md#order-forms texts of the dashboard order form. */
export const ORDER_FORM_TEXT = {
  required: 'Please fill in all required fields',
  invalidPair: 'Invalid currency pair selected',
  failed: 'Failed to place order',
  unexpected: 'An error occurred while placing the order',
} as const;

export interface MarketOrderFormProps {
  /** The tradable pairs (platform-data `fx_pairs`). */
  pairs: readonly FxPair[];
  /** Reports a validation or order error for the page's banner; null clears it. */
  onError: (message: string | null) => void;
}

/**
 * The dashboard's Place Market Order form (docs/screens.md#order-forms): pair, side and lot size; the
 * button is disabled until they make a sendable order and reads Placing Order... while the
 * order is on its way; on success the form resets, the fill shows in a notice and the data
 * reloads. A failure goes to the page's banner, and a rejection's notice is not shown too.
 * Beside them, the Risk % helper (docs/screens.md#risk-helper) and the order ticket
 * (docs/screens.md#order-ticket).
 */
export function MarketOrderForm({ pairs, onError }: MarketOrderFormProps) {
  const [pairId, setPairId] = useState('');
  const notices = useNotices();
  const { side, setSide, lotsText, setLotsText, placing, placeOrder } = usePlaceOrder({
    onPlaced: (answer) => {
      setPairId('');
      ticket.reset();
      const notice = orderNotice(answer.order, digitsLookup(pairs));
      if (notice) notices.notify(notice);
    },
    onFailed: (err) => {
      const rejected = rejectedOrderOf(err);
      if (rejected) notices.settle(orderNoticeKey(rejected));
      onError(errorMessage(err, ORDER_FORM_TEXT.failed, ORDER_FORM_TEXT.unexpected));
    },
  });

  const pair = pairs.find((p) => String(p.id) === pairId);
  const bounds = pairLotBounds(pair);
  const lots = parseLots(lotsText);
  const problem = lotSizeProblem(lotsText, bounds);
  const ticket = useOrderTicket({ pair, side, lotsText, pairs });
  const extras = ticket.evaluation.extras;
  const canSubmit = pairId !== '' && lots !== null && lots > 0 && problem === null && extras !== null && !placing;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (placing) return;
    if (!pairId || !side || lots === null || lots <= 0) {
      onError(ORDER_FORM_TEXT.required);
      return;
    }
    if (!pair?.symbol) {
      onError(ORDER_FORM_TEXT.invalidPair);
      return;
    }
    if (problem) {
      onError(problem);
      return;
    }
    // The ticket's own checks (docs/orders.md#validation) show under their fields; the first one also goes to the banner.
    if (extras === null) {
      onError(Object.values(ticket.evaluation.errors)[0] ?? ORDER_FORM_TEXT.required);
      return;
    }
    onError(null);
    await placeOrder(pair.symbol, lots, extras);
  }

  return (
    <Card title="Place Market Order" className="order-form-card">
      <form className="order-form" onSubmit={submit} noValidate aria-label="Place Market Order">
        <Field label="Currency Pair">
          <Select value={pairId} onChange={(e) => setPairId(e.target.value)} disabled={placing} required>
            <option value="">Select a pair</option>
            {pairs.map((p) => (
              <option key={p.id} value={String(p.id)}>
                {p.symbol} · {p.name}
              </option>
            ))}
          </Select>
        </Field>
        <SideToggle value={side} onChange={setSide} disabled={placing} />
        <Field label="Lot Size" hint={lotHint(bounds)} error={problem}>
          <Input
            type="number"
            inputMode="decimal"
            step={LOT_STEP}
            min={bounds.min}
            max={bounds.max}
            value={lotsText}
            onChange={(e) => setLotsText(e.target.value)}
            disabled={placing}
            required
          />
        </Field>
        <RiskSizeHelper
          symbol={pair?.symbol}
          side={side}
          stopLossPips={ticket.evaluation.stopLoss?.pips.toNumber() ?? null}
          onLots={setLotsText}
          disabled={placing}
        />
        <OrderTicketFields ticket={ticket} disabled={placing} />
        <Button type="submit" variant={side === 'BUY' ? 'buy' : 'sell'} block disabled={!canSubmit} busy={placing}>
          {placing ? 'Placing Order...' : 'Place Order'}
        </Button>
      </form>
    </Card>
  );
}
