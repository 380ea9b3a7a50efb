// How an indicator is named, its parameters listed and its values written (docs/charting.md#indicators).
import { formatPrice, type Indicator, type IndicatorKind, indicatorSchema, OVERLAY_INDICATORS } from '@pipdesk/contract';

/** The short name the legend and the list show. */
export const INDICATOR_NAMES: Readonly<Record<IndicatorKind, string>> = {
  sma: 'SMA',
  ema: 'EMA',
  bb: 'BB',
  rsi: 'RSI',
  macd: 'MACD',
  stoch: 'Stoch',
  atr: 'ATR',
};

/** The full name, for the add menu and screen readers. */
export const INDICATOR_TITLES: Readonly<Record<IndicatorKind, string>> = {
  sma: 'Simple moving average',
  ema: 'Exponential moving average',
  bb: 'Bollinger Bands',
  rsi: 'Relative strength index',
  macd: 'MACD',
  stoch: 'Stochastic',
  atr: 'Average true range',
};

/** Each kind's parameters in the order the legend writes them, with the form's labels. */
export const INDICATOR_PARAMS = {
  sma: [{ key: 'period', label: 'Period' }],
  ema: [{ key: 'period', label: 'Period' }],
  bb: [
    { key: 'period', label: 'Period' },
    { key: 'stddev', label: 'Deviations' },
  ],
  rsi: [{ key: 'period', label: 'Period' }],
  macd: [
    { key: 'fast', label: 'Fast' },
    { key: 'slow', label: 'Slow' },
    { key: 'signal', label: 'Signal' },
  ],
  stoch: [
    { key: 'k', label: '%K' },
    { key: 'd', label: '%D' },
    { key: 'smooth', label: 'Smooth' },
  ],
  atr: [{ key: 'period', label: 'Period' }],
} as const satisfies Record<IndicatorKind, ReadonlyArray<{ key: string; label: string }>>;

export type IndicatorParam = (typeof INDICATOR_PARAMS)[IndicatorKind][number];

/** The value of one of the indicator's parameters. */
export function paramValue(indicator: Indicator, key: string): number {
  return (indicator as unknown as Record<string, number>)[key] ?? Number.NaN;
}

/** "RSI 14", "BB 20 2", "MACD 12 26 9". */
export function indicatorLabel(indicator: Indicator): string {
  const params = INDICATOR_PARAMS[indicator.kind].map((p) => paramValue(indicator, p.key));
  return [INDICATOR_NAMES[indicator.kind], ...params].join(' ');
}

/** An indicator of `kind` with the usual parameters (the contract's defaults). */
export function defaultIndicator(kind: IndicatorKind): Indicator {
  return indicatorSchema.parse({ kind });
}

export function isOverlay(indicator: Indicator): boolean {
  return OVERLAY_INDICATORS.includes(indicator.kind);
}

/** RSI and Stochastic are percentages (two decimals); the others are in the pair's prices. */
export function formatIndicatorValue(indicator: Indicator, value: number, digits: number): string {
  return indicator.kind === 'rsi' || indicator.kind === 'stoch' ? value.toFixed(2) : formatPrice(value, digits);
}

/** The legend's line: `NAME params value(s)`, e.g. "RSI 14 55.21", "BB 20 2 1.08420 1.08100 1.07780". */
export function legendText(indicator: Indicator, values: readonly number[] | null, digits: number): string {
  const label = indicatorLabel(indicator);
  if (!values || values.length === 0) return label;
  return `${label} ${values.map((v) => formatIndicatorValue(indicator, v, digits)).join(' ')}`;
}
