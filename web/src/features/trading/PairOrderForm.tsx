import {
  estimateMarginRequired,
  type FxPair,
  type MidLookup,
  maxAllowedLotsNumber,
  type OrderSide,
  type TradingAccountDto,
} from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, errorMessage } from '../../api';
import { Button, Card, Field, Input, Num } from '../../components';
import { formatUsd } from './format';
import { LOT_DEFAULT, LOT_STEP, type LotBounds, lotHint, lotSizeProblem, parseLots } from './lotRules';
import { ORDER_FORM_TEXT } from './MarketOrderForm';
import { placeMarketOrder, reloadTradingData } from './queries';
import { SideToggle } from './SideToggle';

/**
 * Spec §8: the pair page reports order and close failures in alert dialogs. "Error:" prefixes
 * the server's own refusal; "Error placing order:" / "Error closing position:" an exception
 * (no answer at all).
 */
export function alertText(
  err: unknown,
  action: 'placing order' | 'closing position',
  failed: string,
  unexpected: string,
): string {
  const message = errorMessage(err, failed, unexpected);
  return err instanceof ApiError ? `Error: ${message}` : `Error ${action}: ${message}`;
}

/** The pair page's lot bounds (spec §5): min_lot_size, and the smaller of max_lot_size and the maximum allowed lots. */
export function pairPageLotBounds(pair: FxPair, maxAllowed: number | null): LotBounds {
  return { min: pair.min_lot_size, max: maxAllowed === null ? pair.max_lot_size : Math.min(pair.max_lot_size, maxAllowed) };
}

export interface PairOrderFormProps {
  pair: FxPair;
  account: TradingAccountDto;
  /** The catalogue, for converting the base currency to USD (DESIGN §3). */
  pairs: readonly FxPair[];
  /** Current mid prices of the catalogue. */
  mid: MidLookup;
}

/**
 * The pair page's Place Order form (spec §2, §5): BUY/SELL (BUY first), Lot Size bounded by
 * the free margin, and the Estimated Margin Required, computed by the same contract
 * function the server uses for the order's `margin_required`.
 */
export function PairOrderForm({ pair, account, pairs, mid }: PairOrderFormProps) {
  const queryClient = useQueryClient();
  const [side, setSide] = useState<OrderSide>('BUY');
  const [lotsText, setLotsText] = useState(LOT_DEFAULT);
  const [placing, setPlacing] = useState(false);

  const maxAllowed = maxAllowedLotsNumber(account.free_margin, account.leverage, pair, pairs, mid);
  const bounds = pairPageLotBounds(pair, maxAllowed);
  const lots = parseLots(lotsText);
  const noRoom = bounds.max < bounds.min;
  const problem = noRoom ? 'Not enough free margin for the minimum lot size' : lotSizeProblem(lotsText, bounds);
  const estimate = lots !== null && lots > 0 ? estimateMarginRequired(lots, pair, account.leverage, pairs, mid) : null;
  const canSubmit = lots !== null && lots > 0 && problem === null && !placing;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!canSubmit || lots === null) return;
    setPlacing(true);
    try {
      await placeMarketOrder({ symbol: pair.symbol, side, quantity: lots });
      setSide('BUY');
      setLotsText(LOT_DEFAULT);
    } catch (err) {
      window.alert(alertText(err, 'placing order', ORDER_FORM_TEXT.failed, ORDER_FORM_TEXT.unexpected));
    } finally {
      setPlacing(false);
      void reloadTradingData(queryClient);
    }
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
        <Button type="submit" variant={side === 'BUY' ? 'buy' : 'sell'} block disabled={!canSubmit} busy={placing}>
          {placing ? 'Placing Order...' : `${side === 'BUY' ? 'Buy' : 'Sell'} ${pair.symbol}`}
        </Button>
      </form>
    </Card>
  );
}
