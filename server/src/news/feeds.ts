import { createHash } from 'node:crypto';
import type { Article, Publisher } from '@pipdesk/contract';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Clock } from '../core/clock.js';
import { classify } from './classify.js';
import { fetchLimited } from './fetch.js';
import { lexiconSentiment, normalizeSentiment } from './sentiment.js';
import { type NewsCatalogue, type NewsSource, SourceError, type SourceLimits } from './source.js';
import { decodeEntities, firstImageIn, htmlToText, parseFeedDate, safeHttpUrl, truncate, urlKey } from './text.js';

const TITLE_MAX = 300;
const DESCRIPTION_MAX = 600;
const FEED_ACCEPT = 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5';

/** Elements that may repeat; always read as arrays so one and many look the same. */
const REPEATABLE = new Set([
  'item',
  'entry',
  'link',
  'media:content',
  'media:thumbnail',
  'enclosure',
  'author',
  'dc:creator',
  'category',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Titles such as "1.0850" must stay text.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // A feed's own DOCTYPE entities are bounded so an entity bomb cannot blow memory.
  processEntities: { enabled: true, maxEntityCount: 100, maxEntitySize: 10_000, maxExpandedLength: 100_000 },
  isArray: (name, _path, _isLeaf, isAttribute) => !isAttribute && REPEATABLE.has(name),
  // Atom text constructs keep their raw markup: type="xhtml" holds mixed content whose word
  // order the object form would lose; atomText decodes them by their type.
  stopNodes: ['feed.entry.content', 'feed.entry.summary', 'feed.entry.title'],
});

type XmlNode = Record<string, unknown>;

function isNode(value: unknown): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text of an element however the parser shaped it (string, {#text}, array, or XHTML children). */
function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return textOf(value[0]);
  if (isNode(value)) {
    if ('#text' in value) return textOf(value['#text']);
    // Atom type="xhtml": the markup arrives as child elements; their text is what we keep.
    const parts = Object.entries(value)
      .filter(([key]) => !key.startsWith('@_'))
      .map(([, child]) => (Array.isArray(child) ? child.map(textOf).join(' ') : textOf(child)))
      .filter(Boolean);
    return parts.length ? parts.join(' ') : undefined;
  }
  return undefined;
}

function attr(value: unknown, name: string): string | undefined {
  const node = Array.isArray(value) ? value[0] : value;
  if (!isNode(node)) return undefined;
  const raw = node[`@_${name}`];
  return typeof raw === 'string' ? raw : undefined;
}

function list(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** The first field among `names` that has text. */
function firstText(node: XmlNode, ...names: string[]): string | undefined {
  for (const name of names) {
    const text = textOf(node[name])?.trim();
    if (text) return text;
  }
  return undefined;
}

/** A feed as read, before it becomes articles. */
export interface ParsedFeed {
  publisher: Publisher;
  items: ParsedItem[];
}

export interface ParsedItem {
  title: string;
  description: string;
  url: string;
  imageUrl: string | null;
  publishedAt: number | undefined;
  author: string;
  sentiment: Article['sentiment'] | undefined;
}

/**
 * Parses RSS 2.0, RSS 1.0 (RDF) or Atom text. Throws a SourceError for broken XML or a
 * document that is no feed. Keeps at most `maxItems` items; items without an http(s) link or
 * without any text are dropped.
 */
export function parseFeed(xml: string, feedUrl: string, maxItems: number): ParsedFeed {
  const text = xml.replace(/^\uFEFF/, '').trim();
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new SourceError(`invalid XML (${valid.err.msg} at line ${valid.err.line})`);
  }
  let doc: XmlNode;
  try {
    doc = parser.parse(text) as XmlNode;
  } catch (err) {
    throw new SourceError(`invalid XML (${(err as Error).message.split('\n')[0]})`);
  }
  const rss = doc.rss;
  const rdf = doc['rdf:RDF'];
  const atom = doc.feed;
  if (isNode(rss) && isNode(rss.channel)) {
    const channel = rss.channel;
    return readRss(channel, list(channel.item), feedUrl, maxItems);
  }
  if (isNode(rdf)) {
    const channel = isNode(rdf.channel) ? rdf.channel : {};
    return readRss(channel, list(rdf.item), feedUrl, maxItems);
  }
  if (isNode(atom)) return readAtom(atom, feedUrl, maxItems);
  throw new SourceError('not an RSS or Atom feed');
}

function fallbackPublisherName(feedUrl: string): string {
  try {
    return new URL(feedUrl).hostname.replace(/^www\./, '');
  } catch {
    return 'News feed';
  }
}

function publisherOf(
  name: string | undefined,
  homepage: string | undefined,
  logo: string | undefined,
  feedUrl: string,
): Publisher {
  const publisher: Publisher = { name: truncate(htmlToText(name ?? ''), 100) || fallbackPublisherName(feedUrl) };
  const homepageUrl = safeHttpUrl(homepage, feedUrl);
  const logoUrl = safeHttpUrl(logo, feedUrl);
  if (homepageUrl) publisher.homepage_url = homepageUrl;
  if (logoUrl) publisher.logo_url = logoUrl;
  return publisher;
}

function readRss(channel: XmlNode, rawItems: unknown[], feedUrl: string, maxItems: number): ParsedFeed {
  const channelImage = isNode(channel.image) ? firstText(channel.image, 'url') : undefined;
  const channelLink = list(channel.link)
    .map((l) => textOf(l))
    .find((l) => l && safeHttpUrl(l, feedUrl));
  const publisher = publisherOf(firstText(channel, 'title'), channelLink, channelImage, feedUrl);
  const channelDate = parseFeedDate(firstText(channel, 'pubDate', 'lastBuildDate', 'dc:date'));
  const items: ParsedItem[] = [];
  for (const raw of rawItems) {
    if (items.length >= maxItems) break;
    if (!isNode(raw)) continue;
    const guid = raw.guid;
    const guidIsLink = attr(guid, 'isPermaLink') !== 'false';
    const url =
      list(raw.link)
        .map((l) => safeHttpUrl(textOf(l) ?? attr(l, 'href'), feedUrl))
        .find(Boolean) ?? (guidIsLink ? safeHttpUrl(textOf(guid), feedUrl) : undefined);
    const html = firstText(raw, 'description', 'content:encoded', 'summary', 'media:description') ?? mediaDescription(raw);
    const item = finishItem({
      rawTitle: firstText(raw, 'title'),
      html,
      url,
      imageUrl: imageOf(raw, feedUrl, html),
      publishedAt: parseFeedDate(firstText(raw, 'pubDate', 'dc:date', 'published', 'updated')) ?? channelDate,
      author: authorOf(raw),
      sentiment: sentimentOf(raw),
    });
    if (item) items.push(item);
  }
  return { publisher, items };
}

function readAtom(feed: XmlNode, feedUrl: string, maxItems: number): ParsedFeed {
  const homepage = atomLink(feed.link, ['alternate', undefined]);
  const publisher = publisherOf(firstText(feed, 'title'), homepage, firstText(feed, 'logo', 'icon'), feedUrl);
  const feedDate = parseFeedDate(firstText(feed, 'updated'));
  const items: ParsedItem[] = [];
  for (const raw of list(feed.entry)) {
    if (items.length >= maxItems) break;
    if (!isNode(raw)) continue;
    const link = atomLink(raw.link, ['alternate', undefined]) ?? textOf(raw.id);
    const html = atomText(raw.summary) || atomText(raw.content) || firstText(raw, 'media:description') || mediaDescription(raw);
    const item = finishItem({
      rawTitle: atomText(raw.title),
      html,
      url: safeHttpUrl(link, feedUrl),
      imageUrl: imageOf(raw, feedUrl, html) ?? safeHttpUrl(atomLink(raw.link, ['enclosure'], 'image/'), feedUrl) ?? null,
      publishedAt: parseFeedDate(firstText(raw, 'published', 'updated', 'dc:date')) ?? feedDate,
      author: authorOf(raw) || authorOf(feed),
      sentiment: sentimentOf(raw),
    });
    if (item) items.push(item);
  }
  return { publisher, items };
}

/** YouTube-style entries keep their text in media:group/media:description. */
function mediaDescription(item: XmlNode): string {
  const group = list(item['media:group']).find(isNode);
  return (group && firstText(group, 'media:description')) ?? '';
}

/**
 * An Atom text construct as HTML for htmlToText: xhtml is markup already; html is escaped (or
 * CDATA) markup; text is plain, so its own `<` and `&` are escaped to survive as text.
 */
function atomText(node: unknown): string | undefined {
  const raw = textOf(node);
  if (raw === undefined) return undefined;
  const type = (attr(node, 'type') ?? 'text').toLowerCase();
  if (type === 'xhtml') return raw;
  const decoded = raw
    .split(/(<!\[CDATA\[[\s\S]*?\]\]>)/)
    .map((part) => (part.startsWith('<![CDATA[') ? part.slice(9, -3) : decodeEntities(part)))
    .join('');
  if (type === 'html' || type === 'text/html') return decoded;
  return decoded.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** The href of the first Atom link with one of the wanted rels (undefined = no rel). */
function atomLink(links: unknown, rels: (string | undefined)[], typePrefix?: string): string | undefined {
  for (const link of list(links)) {
    const rel = attr(link, 'rel');
    const type = attr(link, 'type') ?? '';
    if (!rels.includes(rel)) continue;
    if (typePrefix && !type.startsWith(typePrefix)) continue;
    const href = attr(link, 'href') ?? textOf(link);
    if (href) return href;
  }
  return undefined;
}

function finishItem(raw: {
  rawTitle: string | undefined;
  html: string;
  url: string | undefined;
  imageUrl: string | null;
  publishedAt: number | undefined;
  author: string;
  sentiment: Article['sentiment'] | undefined;
}): ParsedItem | undefined {
  if (!raw.url) return undefined;
  const description = truncate(htmlToText(raw.html), DESCRIPTION_MAX);
  // A headline-less item borrows its first words from the text; one with neither is no article.
  const title = truncate(htmlToText(raw.rawTitle ?? ''), TITLE_MAX) || truncate(description, 120);
  if (!title) return undefined;
  return {
    title,
    description,
    url: raw.url,
    imageUrl: raw.imageUrl,
    publishedAt: raw.publishedAt,
    author: raw.author,
    sentiment: raw.sentiment,
  };
}

function isImage(node: unknown): boolean {
  const medium = attr(node, 'medium');
  const type = attr(node, 'type');
  if (medium) return medium === 'image';
  if (type) return type.startsWith('image/');
  const url = attr(node, 'url') ?? '';
  return /\.(jpe?g|png|gif|webp|avif)(\?|$)/i.test(url) || !/\.(mp4|mp3|m4a|mov|webm|ogg)(\?|$)/i.test(url);
}

/** media:content, media:thumbnail (alone or in a media:group), an image enclosure, else the first <img> of the text. */
function imageOf(item: XmlNode, feedUrl: string, html: string): string | null {
  const groups = list(item['media:group']).filter(isNode);
  const contents = [...list(item['media:content']), ...groups.flatMap((g) => list(g['media:content']))];
  const thumbnails = [
    ...list(item['media:thumbnail']),
    ...groups.flatMap((g) => list(g['media:thumbnail'])),
    ...contents.filter(isNode).flatMap((c) => list(c['media:thumbnail'])),
  ];
  const candidates = [
    ...contents.filter(isImage).map((c) => attr(c, 'url')),
    ...thumbnails.map((t) => attr(t, 'url')),
    ...list(item.enclosure)
      .filter((e) => (attr(e, 'type') ?? '').startsWith('image/'))
      .map((e) => attr(e, 'url')),
    firstImageIn(html),
    firstImageIn(firstText(item, 'content:encoded', 'content') ?? ''),
  ];
  for (const candidate of candidates) {
    const url = safeHttpUrl(candidate, feedUrl);
    if (url) return url;
  }
  return null;
}

/** dc:creator, Atom author/name, or RSS author ("editor@example.com (Jane Doe)" → Jane Doe). */
function authorOf(node: XmlNode): string {
  const names: string[] = [];
  for (const creator of list(node['dc:creator'])) {
    const text = textOf(creator);
    if (text) names.push(text);
  }
  for (const author of list(node.author)) {
    const text = isNode(author) && !('#text' in author) ? textOf(author.name) : textOf(author);
    if (!text) continue;
    const inParens = /\(([^)]+)\)\s*$/.exec(text)?.[1];
    const withoutEmail = inParens ?? text.replace(/\S+@\S+/g, '').trim();
    if (withoutEmail) names.push(withoutEmail);
  }
  const unique = [...new Set(names.map((n) => htmlToText(n)).filter(Boolean))];
  return truncate(unique.join(', '), 120);
}

/** A sentiment the feed itself gives, in any namespace (`<sentiment>`, `<pd:sentiment>`). */
function sentimentOf(item: XmlNode): Article['sentiment'] | undefined {
  for (const [key, value] of Object.entries(item)) {
    if (key === 'sentiment' || key.endsWith(':sentiment')) {
      const sentiment = normalizeSentiment(textOf(value));
      if (sentiment) return sentiment;
    }
  }
  return undefined;
}

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
