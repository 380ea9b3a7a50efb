import type { OrderSide } from '@pipdesk/contract';
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../api';
import { Button, Input } from '../../components';
import { useNotices } from '../../notices/NoticeProvider';
import { useChartApi } from '../chart/ChartContext';
import { defaultDigits, formatQuote } from '../trading/format';
import { useLivePrice } from '../trading/LiveTradingProvider';
import { lotSizeProblem, pairLotBounds, parseLots } from '../trading/lotRules';
import { usePlatformData } from '../trading/queries';
import { ChartAlertDialog } from './ChartAlertDialog';
import { useHotkeys } from './hotkeys';
import { OneClickToggle } from './OneClickToggle';
import { useChartSettings } from './useChartSettings';
import { useQuickOrder } from './useQuickOrder';
import './tools.css';

/** The chart's handle; named from the hook, so only the hook is this module's contract with the chart. */
type ChartApi = NonNullable<ReturnType<typeof useChartApi>>;

// Several charts on one page (the Charts page's 2 or 4) each mount these tools: Alt+A belongs to
// the chart last pointed at or focused, or to the only one.
const mountedTools = new Set<object>();
let activeTools: object | null = null;

/**
 * The trader's tools over a chart (docs/charting.md#one-click-trading-and-hotkeys): "Alert" (and
 * Alt+A) sets a price alert at the crosshair, the compact one-click switch, and while one-click
 * trading is on SELL (bid) / BUY (ask) buttons with the lot size that trade at once. Mount it as
 * a child of the chart; it reads the chart from `useChartApi()` and draws nothing without one.
 */
export function ChartTradeTools() {
  const chart = useChartApi();
  return chart ? <ChartTools chart={chart} /> : null;
}

function ChartTools({ chart }: { chart: ChartApi }) {
  const { symbol, container } = chart;
  const price = useLivePrice(symbol);
  const pair = usePlatformData().data?.fx_pairs.find((p) => p.symbol === symbol);
  const digits = pair?.digits ?? defaultDigits(symbol);
  const [alertAt, setAlertAt] = useState<number | null>(null);
  const me = useRef({});

  useEffect(() => {
    const self = me.current;
    mountedTools.add(self);
    const claim = () => {
      activeTools = self;
    };
    container.addEventListener('pointerenter', claim);
    container.addEventListener('pointerdown', claim);
    container.addEventListener('focusin', claim);
    return () => {
      mountedTools.delete(self);
      if (activeTools === self) activeTools = null;
      container.removeEventListener('pointerenter', claim);
      container.removeEventListener('pointerdown', claim);
      container.removeEventListener('focusin', claim);
    };
  }, [container]);

  /** The crosshair's price, else the bid, else the last candle's close. */
  function alertPrice(): number | null {
    const crosshair = chart.crosshairPrice();
    if (crosshair !== null && Number.isFinite(crosshair) && crosshair > 0) return crosshair;
    if (price) return price.bid;
    const last = chart.series.data().at(-1);
    return last && 'close' in last ? last.close : null;
  }

  function openAlert(): void {
    const at = alertPrice();
    if (at !== null) setAlertAt(at);
  }

  useHotkeys({
    'alt+a': () => {
      if (mountedTools.size > 1 && activeTools !== me.current) return false;
      openAlert();
    },
  });

  return (
    <div className="chart-tools">
      <Button size="sm" variant="secondary" onClick={openAlert} title="Set a price alert at the crosshair (Alt+A)">
        Alert
      </Button>
      <OneClickToggle compact />
      <OneClickButtons symbol={symbol} pair={pair} digits={digits} bid={price?.bid} ask={price?.ask} />
      {alertAt !== null && (
        <ChartAlertDialog symbol={symbol} price={alertAt} bid={price?.bid} digits={digits} onClose={() => setAlertAt(null)} />
      )}
    </div>
  );
}

interface OneClickButtonsProps {
  symbol: string;
  pair: { min_lot_size: number; max_lot_size: number } | undefined;
  digits: number;
  bid: number | undefined;
  ask: number | undefined;
}

/** SELL (bid) / lots / BUY (ask), shown only while one-click trading is on; a click trades at once. */
function OneClickButtons({ symbol, pair, digits, bid, ask }: OneClickButtonsProps) {
  const { settings, save } = useChartSettings();
  const notices = useNotices();
  const { placing, trade } = useQuickOrder();
  const kept = settings.one_click_lots.toFixed(2);
  const [lotsText, setLotsText] = useState(kept);
  // The kept size changes from elsewhere (another chart, another device): follow it.
  useEffect(() => setLotsText(kept), [kept]);

  if (!settings.one_click) return null;
  const problem = lotSizeProblem(lotsText, pairLotBounds(pair));
  const lots = parseLots(lotsText);
  const ready = problem === null && lots !== null && lots > 0 && !placing;

  async function keepLots() {
    if (!ready || lots === null || lots === settings.one_click_lots) return;
    try {
      await save({ one_click_lots: lots });
    } catch (err) {
      notices.notify({ tone: 'error', title: 'One-click lot size', text: errorMessage(err, 'Could not save the lot size') });
    }
  }

  const button = (side: OrderSide, quote: number | undefined) => (
    <Button
      size="sm"
      variant={side === 'BUY' ? 'buy' : 'sell'}
      disabled={!ready}
      aria-label={`${side} ${lotsText} ${symbol} at ${formatQuote(quote, digits)}`}
      onClick={() => {
        if (lots !== null) void trade(symbol, side, lots);
      }}
    >
      {side} <span className="chart-tools__price">{formatQuote(quote, digits)}</span>
    </Button>
  );

  return (
    <>
      {button('SELL', bid)}
      <Input
        className="chart-tools__lots"
        type="number"
        inputMode="decimal"
        step={0.01}
        min={0.01}
        aria-label="One-click lot size"
        aria-invalid={problem !== null || undefined}
        title={problem ?? 'Lots each click trades'}
        value={lotsText}
        onChange={(e) => setLotsText(e.target.value)}
        onBlur={() => void keepLots()}
        onKeyDown={(e) => {
          if (e.key === 'Enter') void keepLots();
        }}
      />
      {button('BUY', ask)}
    </>
  );
}
