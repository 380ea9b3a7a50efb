import type { Article } from '@pipdesk/contract';
import { useState } from 'react';
import { imageFallbackLabel, safeUrl } from './articles';

export interface ArticleImageProps {
  article: Pick<Article, 'image_url' | 'related_pair' | 'tickers' | 'publisher' | 'sentiment'>;
  /** `tile` for the page's cards, `thumb` for the compact panels. */
  size?: 'tile' | 'thumb';
}

/**
 * The article's picture, or a gradient tile naming the pair (or the publisher) when it has
 * none or the picture fails to load: never a broken image. Decorative either way: the title
 * beside it says what the article is.
 */
export function ArticleImage({ article, size = 'tile' }: ArticleImageProps) {
  const src = safeUrl(article.image_url);
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const className = `news-image news-image--${size}`;
  if (src && failedSrc !== src) {
    return (
      <div className={className}>
        <img
          src={src}
          alt=""
          loading="lazy"
          decoding="async"
          // Feeds' image hosts need not learn which trader reads what.
          referrerPolicy="no-referrer"
          onError={() => setFailedSrc(src)}
        />
      </div>
    );
  }
  // A thumbnail is too narrow for "EUR/USD" on one line: the two currencies stack.
  const parts = imageFallbackLabel(article).split('/');
  return (
    <div className={`${className} news-image--fallback news-image--${article.sentiment}`} aria-hidden="true">
      {size === 'thumb' ? parts.map((part) => <span key={part}>{part}</span>) : <span>{parts.join('/')}</span>}
    </div>
  );
}
