import { lazy, type ReactNode, Suspense, useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Button, Card, Page, Spinner } from '../../components';
import { Link, useAccountSelection } from '../accounts';
import '../market/market.css';
import {
  AccountCards,
  digitsLookup,
  ErrorBox,
  FeedModeBadge,
  isListedPosition,
  MarginCallBanner,
  MarketOrderForm,
  OrdersTable,
  PendingOrdersPanel,
  PositionsTable,
  TradingNotAvailable,
  useClosePosition,
  useLivePrices,
  usePlatformData,
} from '../trading';
import '../trading/trading.css';
import './dashboard.css';

/** docs/screens.md#error-texts: the dashboard's load failure. */
export const DASHBOARD_LOAD_TEXT = { failed: 'Failed to load trading data', unexpected: 'An unexpected error occurred' } as const;
/** What stays after the trader dismissed a load failure, beside its Try Again: never an empty page. */
export const DASHBOARD_NOT_LOADED = 'Trading data is not loaded.';

// The panels below the trading grid load after the dashboard's first load, each with its own
// code (the news articles, the flags and the currency table): the trading grid above them is
// usable without them (docs/decisions.md, code splitting). Straight from their modules, not the
// features' entry points, which also name the pair page's parts.
const TradingNewsPanel = lazy(() => import('../news/TradingNewsPanel').then((m) => ({ default: m.TradingNewsPanel })));
const PairsGrid = lazy(() => import('../market/PairsGrid').then((m) => ({ default: m.PairsGrid })));
// Only a challenge account's dashboard shows it (docs/screens.md#objectives-panel): its code, and the
// meter's schema, load only then.
const ObjectivesPanel = lazy(() => import('../evaluations/ObjectivesPanel').then((m) => ({ default: m.ObjectivesPanel })));

/** A lower panel while its code loads: the dashboard's loading line in a card where the panel will be. */
function LowerPanel({ className, loading, children }: { className: string; loading: string; children: ReactNode }) {
  return (
    <Suspense
      fallback={
        <section className={`card ${className}`}>
          <div className="card__body dashboard-loading" role="status">
            <Spinner /> <span>{loading}</span>
          </div>
        </section>
      }
    >
      {children}
    </Suspense>
  );
}

/** Route `/`: the Trading Dashboard (docs/screens.md#dashboard). */
export function DashboardPage() {
  const platform = usePlatformData();
  const prices = useLivePrices();
  const { closingId, close } = useClosePosition(prices);
  const [banner, setBanner] = useState<{ message: string; serial: number } | null>(null);
  // The failure (by its time) the trader dismissed; a later failure shows again.
  const [dismissedFailureAt, setDismissedFailureAt] = useState(0);

  const data = platform.data;
  const showLoadError = platform.isError && platform.errorUpdatedAt !== dismissedFailureAt;
  const tradable = data?.trader_profile && data.trading_account ? data.trading_account : null;
  const digits = digitsLookup(data?.fx_pairs);
  const { accounts, selected } = useAccountSelection();
  const onChallenge = selected !== undefined && accounts.find((a) => a.id === selected)?.kind === 'challenge';

  const report = (message: string | null) =>
    setBanner((prev) => (message === null ? null : { message, serial: (prev?.serial ?? 0) + 1 }));

  return (
    <Page title="Trading Dashboard" actions={<FeedModeBadge />}>
      {banner && (
        <Alert key={banner.serial} tone="error" dismissible onDismiss={() => setBanner(null)}>
          {banner.message}
        </Alert>
      )}
      <MarginCallBanner />
      {showLoadError && (
        <ErrorBox
          message={errorMessage(platform.error, DASHBOARD_LOAD_TEXT.failed, DASHBOARD_LOAD_TEXT.unexpected)}
          onRetry={() => void platform.refetch()}
          retrying={platform.isFetching}
          onDismiss={() => setDismissedFailureAt(platform.errorUpdatedAt)}
        />
      )}
      {platform.isError && !showLoadError && !data && (
        <div className="dashboard-not-loaded">
          <span>{DASHBOARD_NOT_LOADED}</span>
          <Button size="sm" variant="primary" onClick={() => void platform.refetch()} busy={platform.isFetching}>
            Try Again
          </Button>
        </div>
      )}
      {platform.isPending && (
        <div className="dashboard-loading" role="status">
          <Spinner /> <span>Loading trading data...</span>
        </div>
      )}
      {data && !tradable && <TradingNotAvailable />}
      {data && tradable && (
        <>
          <AccountCards account={tradable} />
          {onChallenge && (
            <Suspense fallback={null}>
              <ObjectivesPanel />
            </Suspense>
          )}
          <div className="trading-grid">
            <div className="trading-grid__side">
              <MarketOrderForm pairs={data.fx_pairs} onError={report} />
            </div>
            <div className="trading-grid__main">
              <Card title="Open Positions" flush className="trading-table" aria-label="Open Positions">
                <PositionsTable
                  positions={data.open_positions.filter(isListedPosition)}
                  digits={digits}
                  linkPairs
                  onClose={(position, lots) => void close(position, lots)}
                  closingId={closingId}
                  prices={prices}
                  caption="Open positions"
                />
              </Card>
              <PendingOrdersPanel orders={data.pending_orders} pairs={data.fx_pairs} />
              <Card
                title="Recent Orders"
                flush
                className="trading-table"
                aria-label="Recent Orders"
                actions={
                  <Link to="/orders" className="card-link">
                    View All Orders
                  </Link>
                }
              >
                <OrdersTable orders={data.recent_orders} digits={digits} caption="Recent orders" />
              </Card>
            </div>
          </div>
        </>
      )}
      {data && (
        <div className="dashboard-lower">
          <LowerPanel className="news-panel" loading="Loading news...">
            <TradingNewsPanel pairs={data.fx_pairs.map((p) => p.symbol)} />
          </LowerPanel>
          <LowerPanel className="pairs-grid-card" loading="Loading currency pairs...">
            <PairsGrid pairs={data.fx_pairs} prices={prices} />
          </LowerPanel>
        </div>
      )}
    </Page>
  );
}
