import { Card } from '../../components';
import { NEWS_PANEL_ITEMS } from './articles';
import { NewsPanelList } from './NewsPanelList';
import { useTradingNews } from './queries';
import { useNow } from './useNow';
import './news.css';

export interface PairNewsPanelProps {
  /** The pair's catalogue symbol, e.g. `EURUSD`. */
  symbol: string;
}

/** The pair page's News panel (docs/screens.md#news): 5 articles about this pair. */
export function PairNewsPanel({ symbol }: PairNewsPanelProps) {
  const pair = symbol.toUpperCase();
  const news = useTradingNews([pair], NEWS_PANEL_ITEMS, pair);
  const now = useNow();
  return (
    <Card className="news-panel" aria-label="News" title="News">
      <NewsPanelList news={news} now={now} emptyText="No news about this pair right now." />
    </Card>
  );
}
