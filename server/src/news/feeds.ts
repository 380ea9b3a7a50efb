import { createHash } from 'node:crypto';
import type { Article } from '@pipdesk/contract';
import type { Clock } from '../core/clock.js';
import { classify } from './classify.js';
import { parseFeed } from './feed-parse.js';
import { fetchLimited } from './fetch.js';
import { lexiconSentiment } from './sentiment.js';
import type { NewsCatalogue, NewsSource, SourceLimits } from './source.js';
import { urlKey } from './text.js';

// A news source for each RSS or Atom feed of NEWS_FEEDS: fetched within its limits, read by
// feed-parse.ts, and made articles (a stable id, a date, a sentiment and the pairs it names).

const FEED_ACCEPT = 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5';

/** A stable article id from its URL, so the same story keeps its id across refreshes and feeds. */
export function articleIdFor(url: string): string {
  return createHash('sha256').update(urlKey(url)).digest('hex').slice(0, 40);
}

/** One RSS or Atom feed from NEWS_FEEDS. */
export class FeedSource implements NewsSource {
  readonly id: string;
  /** When an undated item was first seen, so it keeps one date instead of "now" on every refresh. */
  private readonly firstSeen = new Map<string, number>();

  constructor(
    private readonly url: string,
    private readonly deps: { catalogue: NewsCatalogue; clock: Clock; limits: SourceLimits; timeoutMs: number },
  ) {
    this.id = feedSourceId(url);
  }

  async latest(signal: AbortSignal): Promise<Article[]> {
    const body = await fetchLimited(this.url, {
      signal,
      maxBytes: this.deps.limits.maxBytes,
      accept: FEED_ACCEPT,
      timeoutMs: this.deps.timeoutMs,
    });
    const feed = parseFeed(body.text, this.url, this.deps.limits.maxItems);
    const now = this.deps.clock.now();
    const catalogue = this.deps.catalogue.list().filter((p) => p.isActive);
    const articles = feed.items.map((item): Article => {
      const key = urlKey(item.url);
      // A date far in the future is a feed's mistake; it would pin the item on top for days.
      const dated = item.publishedAt !== undefined && item.publishedAt <= now + 5 * 60_000 ? item.publishedAt : undefined;
      const publishedAt = dated ?? this.firstSeen.get(key) ?? now;
      if (dated === undefined && !this.firstSeen.has(key)) this.firstSeen.set(key, now);
      const text = `${item.title}. ${item.description}`;
      return {
        id: articleIdFor(item.url),
        title: item.title,
        description: item.description,
        article_url: item.url,
        image_url: item.imageUrl,
        published_utc: new Date(publishedAt).toISOString(),
        publisher: feed.publisher,
        author: item.author,
        sentiment: item.sentiment ?? lexiconSentiment(text),
        ...classify(text, catalogue),
      };
    });
    if (this.firstSeen.size > 5000) {
      // Oldest first in insertion order: forget the oldest half.
      const drop = [...this.firstSeen.keys()].slice(0, 2500);
      for (const key of drop) this.firstSeen.delete(key);
    }
    return articles;
  }
}

/** A feed's name in /api/health/: host and path only, so a key in its query string stays private. */
export function feedSourceId(url: string): string {
  try {
    const parsed = new URL(url);
    return `feed:${parsed.host}${parsed.pathname}`;
  } catch {
    return `feed:${url.replace(/\?.*$/, '')}`;
  }
}
