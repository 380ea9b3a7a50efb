import type { OrderSide } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Button } from '../../components';
import { useNotices } from '../../notices/NoticeProvider';
import { formatLots } from '../trading/format';
import { Dialog } from './Dialog';
import { useHotkeys } from './hotkeys';
import { ensureChartLayout } from './useChartSettings';
import { useQuickOrder } from './useQuickOrder';

export interface TicketHotkeysProps {
  symbol: string;
  /** The ticket's lot size, when it is one the form could send. */
  lots: number | null;
  /** Why the ticket's lot size cannot be sent, if it cannot. */
  problem: string | null;
}

/**
 * B buys and S sells `symbol` at the market at the order ticket's lot size
 * (docs/charting.md#one-click-trading-and-hotkeys): after a confirmation, or at once while
 * one-click trading is on. The ticket's order type, prices and protection are not used: a key
 * is a quick market order. Renders the confirmation only.
 */
export function TicketHotkeys({ symbol, lots, problem }: TicketHotkeysProps) {
  const queryClient = useQueryClient();
  const notices = useNotices();
  const { placing, trade } = useQuickOrder();
  const [asking, setAsking] = useState<{ side: OrderSide; lots: number } | null>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);

  async function onKey(side: OrderSide) {
    if (placing || asking) return;
    if (lots === null || problem !== null) {
      notices.notify({ tone: 'error', title: `${side} ${symbol}`, text: problem ?? 'Enter a Lot Size first' });
      return;
    }
    // The setting is read when the key is pressed; a layout that cannot be read counts as off (confirm).
    const oneClick = await ensureChartLayout(queryClient).then(
      (layout) => layout.settings.one_click,
      () => false,
    );
    if (oneClick) void trade(symbol, side, lots);
    else setAsking({ side, lots });
  }

  useHotkeys({ b: () => void onKey('BUY'), s: () => void onKey('SELL') });

  if (!asking) return null;
  const what = `${asking.side} ${formatLots(asking.lots)} ${symbol}`;
  return (
    <Dialog title={`Confirm ${asking.side}`} role="alertdialog" onClose={() => setAsking(null)} initialFocus={confirmRef}>
      <p className="tool-dialog__text">{what} at the market?</p>
      <div className="tool-dialog__actions">
        <Button
          ref={confirmRef}
          variant={asking.side === 'BUY' ? 'buy' : 'sell'}
          onClick={() => {
            setAsking(null);
            void trade(symbol, asking.side, asking.lots);
          }}
        >
          {what}
        </Button>
        <Button variant="secondary" onClick={() => setAsking(null)}>
          Cancel
        </Button>
      </div>
    </Dialog>
  );
}
