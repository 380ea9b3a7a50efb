import type { FxPair, OrderSide, PlaceMarketOrderResponse } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api';
import { Button, Card, Field, Input, Select } from '../../components';
import { digitsLookup, formatLots, formatQuote } from './format';
import { LOT_DEFAULT, LOT_STEP, lotHint, lotSizeProblem, pairLotBounds, parseLots } from './lotRules';
import { placeMarketOrder, reloadTradingData } from './queries';
import { SideToggle } from './SideToggle';

/** Spec §5 and §8 texts of the dashboard order form. */
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
 * The dashboard's Place Market Order form (spec §2, §4, §5): pair, side and lot size; the
 * button is disabled until they make a sendable order and reads Placing Order... while the
 * order is on its way; on success the form resets and the data reloads.
 */
export function MarketOrderForm({ pairs, onError }: MarketOrderFormProps) {
  const queryClient = useQueryClient();
  const [pairId, setPairId] = useState('');
  const [side, setSide] = useState<OrderSide>('BUY');
  const [lotsText, setLotsText] = useState(LOT_DEFAULT);
  const [placing, setPlacing] = useState(false);
  const [filled, setFilled] = useState<PlaceMarketOrderResponse | null>(null);

  const pair = pairs.find((p) => String(p.id) === pairId);
  const bounds = pairLotBounds(pair);
  const lots = parseLots(lotsText);
  const problem = lotSizeProblem(lotsText, bounds);
  const canSubmit = pairId !== '' && lots !== null && lots > 0 && problem === null && !placing;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (placing) return;
    setFilled(null);
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
    onError(null);
    setPlacing(true);
    try {
      const answer = await placeMarketOrder({ symbol: pair.symbol, side, quantity: lots });
      setPairId('');
      setSide('BUY');
      setLotsText(LOT_DEFAULT);
      setFilled(answer);
    } catch (err) {
      onError(errorMessage(err, ORDER_FORM_TEXT.failed, ORDER_FORM_TEXT.unexpected));
    } finally {
      setPlacing(false);
      // A rejected order is stored too (DESIGN §3), so Recent Orders changes either way.
      void reloadTradingData(queryClient);
    }
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
        <Button type="submit" variant={side === 'BUY' ? 'buy' : 'sell'} block disabled={!canSubmit} busy={placing}>
          {placing ? 'Placing Order...' : 'Place Order'}
        </Button>
        {filled && (
          <p className="order-form__filled" role="status">
            {filled.order.side} {formatLots(filled.order.filled_quantity)} {filled.order.fx_pair_symbol} filled at{' '}
            {formatQuote(filled.execution_details.execution_price, digitsLookup(pairs)(filled.order.fx_pair_symbol))}
          </p>
        )}
      </form>
    </Card>
  );
}
