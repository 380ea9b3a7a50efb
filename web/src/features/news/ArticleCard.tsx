import type { Article } from '@pipdesk/contract';
import type { ReactNode } from 'react';
import { formatDateTime } from '../../components';
import { ArticleImage } from './ArticleImage';
import { safeUrl } from './articles';
import { SentimentBadge } from './SentimentBadge';
import { Tickers } from './Tickers';
import { newsTimeText } from './timeText';

/**
 * The title as a link to the article in a new tab; `rel` keeps the opened page from reaching
 * back into this one (`noopener`) and from learning where the trader came from (`noreferrer`).
 * A stretched link: the whole card is its click target, but it is one link for the keyboard.
 */
function ArticleLink({ article, children }: { article: Article; children: ReactNode }) {
  const href = safeUrl(article.article_url);
  if (!href) return <span>{children}</span>;
  return (
    <a className="news-link" href={href} target="_blank" rel="noopener noreferrer">
      {children}
      <span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
}

function PublishedAt({ article, now }: { article: Article; now: number }) {
  return (
    <time dateTime={article.published_utc} title={formatDateTime(article.published_utc)}>
      {newsTimeText(article.published_utc, now)}
    </time>
  );
}

/** One article of the News page's grid. Every text is rendered as text: a description is never HTML. */
export function ArticleCard({ article, now }: { article: Article; now: number }) {
  return (
    <article className="news-card">
      <ArticleImage article={article} />
      <div className="news-card__body">
        <div className="news-card__top">
          <SentimentBadge sentiment={article.sentiment} />
          <PublishedAt article={article} now={now} />
        </div>
        {/* The page's h1 is Latest News; each article is the next level down. */}
        <h2 className="news-card__title">
          <ArticleLink article={article}>{article.title}</ArticleLink>
        </h2>
        {article.description && <p className="news-card__description">{article.description}</p>}
        <Tickers tickers={article.tickers} />
        <p className="news-card__byline">
          <span className="news-card__publisher">{article.publisher.name}</span>
          {article.author && article.author !== article.publisher.name && (
            <span className="news-card__author">by {article.author}</span>
          )}
        </p>
      </div>
    </article>
  );
}

/** One line of a compact panel: thumbnail, title, publisher, time and sentiment. */
export function ArticleItem({ article, now }: { article: Article; now: number }) {
  return (
    <li className="news-item">
      <ArticleImage article={article} size="thumb" />
      <div className="news-item__body">
        <p className="news-item__title">
          <ArticleLink article={article}>{article.title}</ArticleLink>
        </p>
        <p className="news-item__meta">
          <span className="news-item__publisher">{article.publisher.name}</span>
          <span aria-hidden="true">·</span>
          <PublishedAt article={article} now={now} />
        </p>
      </div>
      <SentimentBadge sentiment={article.sentiment} />
    </li>
  );
}
