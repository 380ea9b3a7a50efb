import { Button, Page } from '../../components';
import { ArticleCard } from './ArticleCard';
import { NEWS_PAGE_ARTICLES } from './articles';
import { NewsEmpty, NewsFailed, NewsLoading } from './NewsStates';
import { useNews } from './queries';
import { RefreshIcon } from './RefreshIcon';
import { useNow } from './useNow';
import './news.css';

/**
 * Route `/news`: docs/screens.md#news names the screen Financial News (shown above the heading) and gives
 * it the title Latest News; the latest 30 articles in a grid, with Refresh.
 */
export function NewsPage() {
  const news = useNews(NEWS_PAGE_ARTICLES);
  const now = useNow();
  return (
    <Page
      title="Latest News"
      eyebrow="Financial News"
      actions={
        <Button onClick={news.refresh} busy={news.refreshing} disabled={news.isPending}>
          {!news.refreshing && <RefreshIcon />}
          Refresh
        </Button>
      }
    >
      {news.failed && <NewsFailed onRetry={news.retry} />}
      {news.isPending && !news.failed ? (
        <NewsLoading />
      ) : news.articles?.length === 0 ? (
        <NewsEmpty>No news articles right now. Try Refresh in a moment.</NewsEmpty>
      ) : (
        news.articles && (
          <ul className="news-grid" aria-label="Articles" aria-busy={news.refreshing || undefined}>
            {news.articles.map((article) => (
              <li key={article.id}>
                <ArticleCard article={article} now={now} />
              </li>
            ))}
          </ul>
        )
      )}
    </Page>
  );
}
