import { useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { errorMessage } from '../../api';
import { Alert, Button, Page, Spinner } from '../../components';
import {
  BackToPlatformLink,
  CurrentPriceCard,
  isPairNotFound,
  PairNotFound,
  PairTitle,
  PriceChart,
  usePriceStream,
} from '../market';
import { PairNewsPanel } from '../news';
import { ReplayBar, useSelectedPracticeAccount } from '../replay/ReplayBar';
import { reloadTradingData, usePairPage } from '../trading';
import { PAIR_LOAD_FAILED, PairTradingPanels } from './PairTradingPanels';

/**
 * Route `/pair/:symbol` (docs/screens.md#pair-page): heading, Current Price and Price Chart (market), then
 * Account Info, Place Order, positions and recent orders (trading), then the pair's News.
 */
export function PairPage() {
  const { symbol = '' } = useParams();
  const requested = symbol.toUpperCase();
  // One call for the whole page: the market part ({pair, price}) and the trader's part share it.
  const snapshot = usePairPage(requested);
  const pair = snapshot.data?.pair ?? null;
  // One price socket for the whole page; none for an unknown pair. On a practice account it follows
  // the account's replay session, so no live price reaches the page (docs/replay.md#the-price-socket-of-a-practice-account).
  const practiceAccount = useSelectedPracticeAccount();
  const stream = usePriceStream(pair?.symbol ?? null, practiceAccount === undefined ? undefined : { account: practiceAccount });
  const queryClient = useQueryClient();

  if (snapshot.isError && isPairNotFound(snapshot.error)) return <PairNotFound symbol={requested} />;
  if (!pair) {
    return (
      <Page title={requested} eyebrow={<BackToPlatformLink />}>
        {snapshot.isError ? (
          <Alert
            tone="error"
            actions={
              <Button size="sm" onClick={() => void snapshot.refetch()}>
                Try Again
              </Button>
            }
          >
            {errorMessage(snapshot.error, PAIR_LOAD_FAILED)}
          </Alert>
        ) : (
          <div className="pair-loading" role="status">
            <Spinner />
            <span>Loading {requested}...</span>
          </div>
        )}
      </Page>
    );
  }

  return (
    <Page title={<PairTitle pair={pair} />} documentTitle={`${pair.symbol} ${pair.name}`} eyebrow={<BackToPlatformLink />}>
      <ReplayBar symbol={pair.symbol} />
      <div className="pair-market">
        <CurrentPriceCard
          pair={pair}
          stream={stream}
          initialPrice={snapshot.data?.price}
          replay={practiceAccount !== undefined}
        />
        <PriceChart
          pair={pair}
          stream={stream}
          positions={snapshot.data?.positions}
          pendingOrders={snapshot.data?.pending_orders}
          onLineChanged={() => void reloadTradingData(queryClient)}
        />
      </div>
      <PairTradingPanels pair={pair} />
      <PairNewsPanel symbol={pair.symbol} />
    </Page>
  );
}
