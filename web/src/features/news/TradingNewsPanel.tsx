import { Button, buttonClass, Card } from '../../components';
import { Link } from '../accounts';
import { DASHBOARD_NEWS_PAIRS, NEWS_PANEL_ITEMS } from './articles';
import { NewsPanelList } from './NewsPanelList';
import { useTradingNews } from './queries';
import { RefreshIcon } from './RefreshIcon';
import { useNow } from './useNow';
import './news.css';

export interface TradingNewsPanelProps {
  /**
   * The catalogue's pair symbols in display order (platform-data `fx_pairs`); the panel asks
   * for the first three. Empty: the server picks the first three active pairs itself.
   */
  pairs: readonly string[];
}

/** The dashboard's Trading News (docs/screens.md#dashboard): 5 articles about the first 3 pairs, a refresh, View All News. */
export function TradingNewsPanel({ pairs }: TradingNewsPanelProps) {
  const news = useTradingNews(pairs.slice(0, DASHBOARD_NEWS_PAIRS), NEWS_PANEL_ITEMS);
  const now = useNow();
  return (
    <Card
      className="news-panel"
      aria-label="Trading News"
      title="Trading News"
      actions={
        <>
          <Button
            variant="ghost"
            size="sm"
            onClick={news.refresh}
            busy={news.refreshing}
            disabled={news.isPending}
            aria-label="Refresh news"
            title="Refresh news"
          >
            {!news.refreshing && <RefreshIcon />}
          </Button>
          <Link to="/news" className={buttonClass('secondary', 'sm')}>
            View All News
          </Link>
        </>
      }
    >
      <NewsPanelList news={news} now={now} emptyText="No trading news right now." />
    </Card>
  );
}
