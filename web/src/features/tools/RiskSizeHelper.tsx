import { type OrderSide, chartingOperations as ops, type PositionSize } from '@pipdesk/contract';
import { useState } from 'react';
import { api, errorMessage } from '../../api';
import { Button, Field, Input } from '../../components';
import { formatLots, formatUsd } from '../trading/format';
import './tools.css';

/** docs/screens.md#risk-helper: the words of the Risk % helper. */
export const RISK_TEXT = {
  legend: 'Size from risk',
  risk: 'Risk %',
  stop: 'Stop (pips)',
  use: 'Use',
  noPair: 'Choose a pair first',
  tooSmall: 'Even the minimum lot size risks more than that',
  failed: 'Could not work out the size',
} as const;

export interface RiskSizeHelperProps {
  /** The form's pair; none yet on the dashboard until one is chosen. */
  symbol: string | undefined;
  side: OrderSide;
  /** The distance of the form's stop loss from the entry in pips, when one is set; else the helper asks for pips. */
  stopLossPips: number | null;
  /** Fills the form's Lot Size. */
  onLots: (lotsText: string) => void;
  disabled?: boolean;
}

/**
 * "Risk %" beside an order form's Lot Size (docs/charting.md#position-size): the largest lot size
 * whose loss at the stop stays within that share of equity, worked out by the server
 * (GET trading/position-size/) and put in Lot Size by "Use". The stop is the form's stop loss
 * when it has one (measured from the order's entry, so a pending order's too), else pips typed
 * here. The form's own fields and defaults are untouched until "Use".
 */
export function RiskSizeHelper({ symbol, side, stopLossPips, onLots, disabled = false }: RiskSizeHelperProps) {
  const [riskText, setRiskText] = useState('1');
  const [pipsText, setPipsText] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);

  const fromStopLoss = stopLossPips !== null && stopLossPips > 0;
  const stopPips = fromStopLoss ? stopLossPips.toFixed(1) : pipsText.trim();
  const canUse = symbol !== undefined && riskText.trim() !== '' && stopPips !== '' && !busy && !disabled;

  async function use() {
    if (!symbol || !canUse) return;
    setBusy(true);
    setResult(null);
    try {
      const size: PositionSize = await api.call(ops.positionSize, {
        query: { symbol, risk_pct: riskText.trim(), stop_pips: stopPips, side },
      });
      if (size.lots <= 0) setResult({ text: RISK_TEXT.tooSmall, error: true });
      else {
        onLots(formatLots(size.lots));
        setResult({
          text: `${formatLots(size.lots)} lots risk ${formatUsd(size.risk_amount)} at a ${size.stop_pips.toFixed(1)}-pip stop`,
          error: false,
        });
      }
    } catch (err) {
      setResult({ text: errorMessage(err, RISK_TEXT.failed), error: true });
    } finally {
      setBusy(false);
    }
  }

  return (
    <fieldset className="risk-size" disabled={disabled}>
      <legend>{RISK_TEXT.legend}</legend>
      <Field label={RISK_TEXT.risk}>
        <Input
          type="number"
          inputMode="decimal"
          min={0.01}
          max={100}
          step={0.1}
          value={riskText}
          onChange={(e) => setRiskText(e.target.value)}
        />
      </Field>
      <Field label={RISK_TEXT.stop} hint={fromStopLoss ? 'From the Stop Loss' : undefined}>
        <Input
          type="number"
          inputMode="decimal"
          min={0.1}
          step={0.1}
          value={stopPips}
          readOnly={fromStopLoss}
          onChange={(e) => setPipsText(e.target.value)}
        />
      </Field>
      <Button size="sm" onClick={() => void use()} disabled={!canUse} busy={busy} title={symbol ? undefined : RISK_TEXT.noPair}>
        {RISK_TEXT.use}
      </Button>
      {result && (
        <p className={result.error ? 'risk-size__result risk-size__result--error' : 'risk-size__result'} role="status">
          {result.text}
        </p>
      )}
    </fieldset>
  );
}
