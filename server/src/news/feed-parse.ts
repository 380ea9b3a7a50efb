import type { Article, Publisher } from '@pipdesk/contract';
import { XMLValidator } from 'fast-xml-parser';
import { attr, feedXmlParser, firstText, isNode, list, textOf, type XmlNode } from './feed-xml.js';
import { normalizeSentiment } from './sentiment.js';
import { SourceError } from './source.js';
import { decodeEntities, firstImageIn, htmlToText, parseFeedDate, safeHttpUrl, truncate } from './text.js';

// An RSS 2.0, RSS 1.0 (RDF) or Atom document read into a publisher and its items, each item's
// text, link, image, date, author and any sentiment the feed gives. feeds.ts makes them articles.

const TITLE_MAX = 300;
const DESCRIPTION_MAX = 600;

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
    doc = feedXmlParser.parse(text) as XmlNode;
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
