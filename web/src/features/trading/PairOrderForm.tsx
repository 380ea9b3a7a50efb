import {
  estimateMarginRequired,
  type FxPair,
  type MidLookup,
  maxAllowedLotsNumber,
  type TradingAccountDto,
} from '@pipdesk/contract';
import type { FormEvent } from 'react';
import { Button, Card, Field, Input, Num } from '../../components';
import { useNotices } from '../../notices/NoticeProvider';
import { RiskSizeHelper } from '../tools/RiskSizeHelper';
import { TicketHotkeys } from '../tools/TicketHotkeys';
import { digitsLookup, formatUsd, ORDER_TYPE_LABELS } from './format';
import { LOT_STEP, type LotBounds, lotHint, lotSizeProblem, parseLots } from './lotRules';
import { ORDER_FORM_TEXT } from './MarketOrderForm';
import { SideToggle } from './SideToggle';
import { OrderTicketFields } from './ticket/OrderTicketFields';
import { isPending } from './ticket/ticketModel';
import { useOrderTicket } from './ticket/useOrderTicket';
import { failureNotice, orderNotice } from './tradeNotices';
import { usePlaceOrder } from './usePlaceOrder';

/** The pair page's lot bounds (docs/screens.md#order-forms): min_lot_size, and the smaller of max_lot_size and the maximum allowed lots. */
export function pairPageLotBounds(pair: FxPair, maxAllowed: number | null): LotBounds {
  return { min: pair.min_lot_size, max: maxAllowed === null ? pair.max_lot_size : Math.min(pair.max_lot_size, maxAllowed) };
}

export interface PairOrderFormProps {
  pair: FxPair;
  account: TradingAccountDto;
  /** The catalogue, for converting the base currency to USD (docs/trading-rules.md#conversion-to-usd). */
  pairs: readonly FxPair[];
  /** Current mid prices of the catalogue. */
  mid: MidLookup;
}

/**
 * The pair page's Place Order form (docs/screens.md#order-forms): BUY/SELL (BUY first), Lot Size bounded by
 * the free margin, and the Estimated Margin Required, computed by the same contract
 * function the server uses for the order's `margin_required`. Beside them, the order ticket
 * (docs/screens.md#order-ticket): order type, prices, time in force, protection, the account after;
 * the Risk % helper (docs/screens.md#risk-helper), and the B and S keys.
 */
export function PairOrderForm({ pair, account, pairs, mid }: PairOrderFormProps) {
  const notices = useNotices();
  const { side, setSide, lotsText, setLotsText, placing, placeOrder } = usePlaceOrder({
    onPlaced: (answer) => {
      ticket.reset();
      const notice = orderNotice(answer.order, digitsLookup(pairs));
      if (notice) notices.notify(notice);
    },
    onFailed: (err) =>
      notices.notify(failureNotice(err, 'placing order', ORDER_FORM_TEXT.failed, ORDER_FORM_TEXT.unexpected), {
        replace: true,
      }),
  });

  const ticket = useOrderTicket({ pair, side, lotsText, pairs, account });
  const extras = ticket.evaluation.extras;
  const pending = isPending(ticket.state.orderType);

  const maxAllowed = maxAllowedLotsNumber(account.free_margin, account.leverage, pair, pairs, mid);
  const bounds = pairPageLotBounds(pair, maxAllowed);
  const lots = parseLots(lotsText);
  const noRoom = bounds.max < bounds.min;
  const problem = noRoom ? 'Not enough free margin for the minimum lot size' : lotSizeProblem(lotsText, bounds);
  const estimate = lots !== null && lots > 0 ? estimateMarginRequired(lots, pair, account.leverage, pairs, mid) : null;
  const canSubmit = lots !== null && lots > 0 && problem === null && extras !== null && !placing;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!canSubmit || lots === null || extras === null) return;
    await placeOrder(pair.symbol, lots, extras);
  }

  return (
    <Card title="Place Order" className="order-form-card">
      <form className="order-form" onSubmit={submit} noValidate aria-label="Place Order">
        <SideToggle value={side} onChange={setSide} disabled={placing} />
        <Field label="Lot Size" hint={lotHint({ min: bounds.min, max: Math.max(bounds.max, 0) })} error={problem}>
          <Input
            type="number"
            inputMode="decimal"
            step={LOT_STEP}
            min={bounds.min}
            max={Math.max(bounds.max, 0)}
            value={lotsText}
            onChange={(e) => setLotsText(e.target.value)}
            disabled={placing}
            required
          />
        </Field>
        <RiskSizeHelper
          symbol={pair.symbol}
          side={side}
          stopLossPips={ticket.evaluation.stopLoss?.pips.toNumber() ?? null}
          onLots={setLotsText}
          disabled={placing}
        />
        <dl className="order-form__figures">
          <div>
            <dt>Estimated Margin Required</dt>
            <dd>
              <Num data-testid="estimated-margin">{estimate === null ? '—' : formatUsd(estimate)}</Num>
            </dd>
          </div>
          <div>
            <dt>Free Margin</dt>
            <dd>
              <Num>{formatUsd(account.free_margin)}</Num>
            </dd>
          </div>
        </dl>
        <OrderTicketFields ticket={ticket} disabled={placing} />
        <Button type="submit" variant={side === 'BUY' ? 'buy' : 'sell'} block disabled={!canSubmit} busy={placing}>
          {placing
            ? 'Placing Order...'
            : `${side === 'BUY' ? 'Buy' : 'Sell'}${pending ? ` ${ORDER_TYPE_LABELS[ticket.state.orderType]}` : ''} ${pair.symbol}`}
        </Button>
      </form>
      {/* B and S trade at this form's lot size (docs/charting.md#one-click-trading-and-hotkeys). */}
      <TicketHotkeys symbol={pair.symbol} lots={lots !== null && lots > 0 ? lots : null} problem={problem} />
    </Card>
  );
}
