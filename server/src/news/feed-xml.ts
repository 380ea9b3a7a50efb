import { XMLParser } from 'fast-xml-parser';

// Reading a feed's XML as the parser shapes it: the parser's settings, and the text, attributes
// and lists of a node however one or many elements arrived. feed-parse.ts reads RSS and Atom with it.

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

export const feedXmlParser = new XMLParser({
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
  // order the object form would lose; atomText (feed-parse.ts) decodes them by their type.
  stopNodes: ['feed.entry.content', 'feed.entry.summary', 'feed.entry.title'],
});

export type XmlNode = Record<string, unknown>;

export function isNode(value: unknown): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text of an element however the parser shaped it (string, {#text}, array, or XHTML children). */
export function textOf(value: unknown): string | undefined {
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

export function attr(value: unknown, name: string): string | undefined {
  const node = Array.isArray(value) ? value[0] : value;
  if (!isNode(node)) return undefined;
  const raw = node[`@_${name}`];
  return typeof raw === 'string' ? raw : undefined;
}

export function list(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** The first field among `names` that has text. */
export function firstText(node: XmlNode, ...names: string[]): string | undefined {
  for (const name of names) {
    const text = textOf(node[name])?.trim();
    if (text) return text;
  }
  return undefined;
}
