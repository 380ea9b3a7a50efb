import type { FxPair, MidLookup } from '@pipdesk/contract';
import { Card, Spinner } from '../../components';
import {
  AccountInfoCard,
  digitsLookup,
  ErrorBox,
  isListedPosition,
  LiveIndicator,
  OrdersTable,
  PairOrderForm,
  PendingOrdersPanel,
  PositionsTable,
  TradingNotAvailable,
  useClosePosition,
  useLivePrices,
  usePairPage,
  usePlatformData,
} from '../trading';
import '../trading/trading.css';

/** docs/screens.md#error-texts: the pair page's load failure. */
export const PAIR_LOAD_FAILED = 'Failed to load trading platform data';

/**
 * The pair page's trading side (docs/screens.md#pair-page): Account Info, Place Order, the trader's open
 * positions in the pair (with Close and the Live/Connecting... indicator) and recent orders
 * in the pair, all kept live by the trading socket.
 */
export function PairTradingPanels({ pair }: { pair: FxPair }) {
  const page = usePairPage(pair.symbol);
  // The catalogue converts the base currency to USD for the margin figures (docs/trading-rules.md#conversion-to-usd).
  const platform = usePlatformData();
  const prices = useLivePrices();
  const { closingId, close } = useClosePosition(prices);

  const data = page.data;
  if (!data) {
    if (page.isError) {
      return <ErrorBox message={PAIR_LOAD_FAILED} onRetry={() => void page.refetch()} retrying={page.isFetching} />;
    }
    return (
      <div className="pair-loading" role="status">
        <Spinner /> <span>Loading trading data...</span>
      </div>
    );
  }
  const account = data.trading_account;
  if (!account) return <TradingNotAvailable />;

  const catalogue: readonly FxPair[] = platform.data?.fx_pairs ?? [data.pair];
  const mid: MidLookup = (symbol) => prices[symbol]?.mid ?? (symbol === data.pair.symbol ? data.price?.mid : undefined);
  const digits = digitsLookup(catalogue.length > 0 ? catalogue : [data.pair]);

  return (
    <div className="trading-grid">
      <div className="trading-grid__side">
        <AccountInfoCard account={account} />
        <PairOrderForm pair={data.pair} account={account} pairs={catalogue} mid={mid} />
      </div>
      <div className="trading-grid__main">
        <Card
          title={`Open Positions · ${data.pair.symbol}`}
          flush
          className="trading-table"
          aria-label="Open Positions"
          actions={<LiveIndicator />}
        >
          <PositionsTable
            positions={data.positions.filter(isListedPosition)}
            digits={digits}
            onClose={(position, lots) => void close(position, lots)}
            closingId={closingId}
            prices={prices}
            caption={`Open positions in ${data.pair.symbol}`}
          />
        </Card>
        <PendingOrdersPanel orders={data.pending_orders} pairs={catalogue} symbol={data.pair.symbol} />
        <Card title={`Recent Orders · ${data.pair.symbol}`} flush className="trading-table" aria-label="Recent Orders">
          <OrdersTable orders={data.recent_orders} digits={digits} caption={`Recent orders in ${data.pair.symbol}`} />
        </Card>
      </div>
    </div>
  );
}
