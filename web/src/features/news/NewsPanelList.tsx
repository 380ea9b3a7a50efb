import { ArticleItem } from './ArticleCard';
import { NewsEmpty, NewsFailed, NewsLoading } from './NewsStates';
import type { NewsList } from './queries';

/** The list, or the state in its place: loading, failed, empty. */
export function NewsPanelList({ news, now, emptyText }: { news: NewsList; now: number; emptyText: string }) {
  if (news.failed && !news.articles) return <NewsFailed onRetry={news.retry} />;
  if (news.isPending) return <NewsLoading />;
  return (
    <>
      {news.failed && <NewsFailed onRetry={news.retry} />}
      {news.articles?.length ? (
        <ul className="news-list" aria-busy={news.refreshing || undefined}>
          {news.articles.map((article) => (
            <ArticleItem key={article.id} article={article} now={now} />
          ))}
        </ul>
      ) : (
        <NewsEmpty>{emptyText}</NewsEmpty>
      )}
    </>
  );
}
