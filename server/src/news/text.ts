/** Text helpers for news from the outside world: HTML to plain text, dates feeds really use, safe URLs. */

import { decodeHTMLStrict } from 'entities/decode';
import { Parser } from 'htmlparser2';

/**
 * Decodes HTML character references (the whole HTML5 table of names, decimal, hex); a name
 * needs its semicolon, and an unknown one stays as written. For escaped markup that is not
 * parsed as HTML (an Atom `type="html"` text construct, which is XML).
 */
export function decodeEntities(text: string): string {
  return decodeHTMLStrict(text);
}

/** Elements whose content is never text a reader should get. */
const HIDDEN = new Set(['script', 'style', 'iframe', 'noscript', 'template']);
/** Elements that end a line or a block: their text must not run into the next word. */
const BREAKS = new Set([
  'p',
  'div',
  'br',
  'li',
  'ul',
  'ol',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'tr',
  'td',
  'th',
  'table',
  'blockquote',
  'section',
  'article',
  'figure',
  'figcaption',
  'hr',
]);

/**
 * HTML (or text that may contain it) to one line of plain text, read by a real HTML tokenizer
 * (htmlparser2) so a `>` inside a quoted attribute (`<img alt="1 > 0">`) does not end the tag:
 * scripts, styles and comments removed, tags dropped, entities decoded, whitespace collapsed.
 * Entities are decoded in the text only after the tags are read, so an escaped `&lt;b&gt;`
 * stays visible text; a lone `<` that starts no tag (`EUR < 1.10`) is text too. CDATA
 * wrappers (feeds put HTML in them) are unwrapped first and their content read as HTML.
 */
export function htmlToText(html: string): string {
  const parts: string[] = [];
  let hidden = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (HIDDEN.has(name)) hidden++;
        else if (BREAKS.has(name)) parts.push(' ');
      },
      onclosetag(name) {
        if (HIDDEN.has(name)) hidden = Math.max(0, hidden - 1);
        else if (BREAKS.has(name)) parts.push(' ');
      },
      ontext(text) {
        if (hidden === 0) parts.push(text);
      },
      oncommentend() {
        parts.push(' ');
      },
    },
    // Feeds often write XHTML: `<iframe ... />` must not hide the rest of the text.
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true },
  );
  parser.end(html.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1'));
  return (
    parts
      .join('')
      // Control characters (tabs and newlines included) are whitespace at most in one line of text.
      .replace(/\p{Cc}/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** Shortens text to at most `max` characters at a word boundary, with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  // The cut already ends a word when the next character is a space.
  const space = /\s/.test(text.charAt(max - 1)) ? cut.length : cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.–—-]+$/, '')}…`;
}

/** The first `src` of an `<img>` in an HTML fragment (feeds often carry their picture only there). */
export function firstImageIn(html: string): string | undefined {
  let src: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (src === undefined && name === 'img' && attributes.src?.trim()) {
          src = attributes.src.trim();
          parser.pause();
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.end(html);
  return src;
}

/**
 * An absolute http(s) URL, resolved against `base` when relative; anything else (javascript:,
 * data:, mailto:, garbage) is undefined so it never reaches a link or an image.
 */
export function safeHttpUrl(raw: string | undefined | null, base?: string): string | undefined {
  if (!raw) return undefined;
  const trimmed = raw.trim();
  if (!trimmed || trimmed.length > 2048) return undefined;
  try {
    const url = base ? new URL(trimmed, base) : new URL(trimmed);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (!url.hostname) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** The key two copies of one article share: the URL without tracking parameters or a trailing slash. */
export function urlKey(articleUrl: string): string {
  try {
    const url = new URL(articleUrl);
    for (const name of [...url.searchParams.keys()]) {
      if (/^(utm_|fbclid$|gclid$|mc_cid$|mc_eid$|ref$|cmpid$)/i.test(name)) url.searchParams.delete(name);
    }
    url.hostname = url.hostname.replace(/^www\./, '');
    url.protocol = 'https:';
    return url.href.replace(/\/(?=$|[?#])/, '');
  } catch {
    return articleUrl;
  }
}

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};

/** Zone abbreviations seen in real feeds, in minutes east of UTC (RFC 822's set and common others). */
const ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  WET: 0,
  WEST: 60,
  BST: 60,
  IST: 330,
  CET: 60,
  CEST: 120,
  MET: 60,
  MEST: 120,
  EET: 120,
  EEST: 180,
  MSK: 180,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  AKST: -540,
  AKDT: -480,
  HST: -600,
  JST: 540,
  KST: 540,
  HKT: 480,
  SGT: 480,
  AWST: 480,
  ACST: 570,
  AEST: 600,
  AEDT: 660,
  NZST: 720,
  NZDT: 780,
};

function offsetMinutes(zone: string | undefined): number | undefined {
  if (!zone) return 0;
  const numeric = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3]);
    return numeric[1] === '-' ? -minutes : minutes;
  }
  const named = ZONES[zone.toUpperCase()];
  if (named !== undefined) return named;
  // RFC 822 military letters other than Z carry no reliable meaning; an unknown name is read as UTC.
  return /^[A-Za-z]{1,5}$/.test(zone) ? 0 : undefined;
}

function utc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  offset: number,
): number | undefined {
  if (month < 0 || month > 11 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 60) return undefined;
  const ms = Date.UTC(year, month, day, hour, minute, second) - offset * 60_000;
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Parses the dates feeds really publish, to epoch ms: RFC 822/1123 with or without weekday and
 * seconds, two-digit years, full month names and zone names or offsets ("Mon, 5 Jan 2026
 * 09:30 EST", "05 January 26 14:00:00 +0100"), and ISO 8601 with or without a zone (read as UTC).
 * Anything unreadable is undefined.
 */
export function parseFeedDate(raw: string | undefined | null): number | undefined {
  if (!raw) return undefined;
  const text = raw.trim().replace(/\s+/g, ' ');
  if (!text) return undefined;

  const iso =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)? ?(Z|[+-]\d{2}:?\d{2}|[A-Za-z]{2,5})?$/i.exec(
      text,
    );
  if (iso) {
    const offset = offsetMinutes(iso[8]);
    if (offset === undefined) return undefined;
    const ms = utc(
      Number(iso[1]),
      Number(iso[2]) - 1,
      Number(iso[3]),
      Number(iso[4] ?? 0),
      Number(iso[5] ?? 0),
      Number(iso[6] ?? 0),
      offset,
    );
    return ms === undefined ? undefined : ms + Math.floor(Number(`0.${iso[7] ?? '0'}`) * 1000);
  }

  const rfc =
    /^(?:[A-Za-z]{2,9}\.?,? )?(\d{1,2})(?:st|nd|rd|th)?[ -]([A-Za-z]{3,9})\.?,?[ -](\d{2}|\d{4}),?(?: (\d{1,2}):(\d{2})(?::(\d{2}))?(?: ?([AaPp][Mm]))?)?(?: ?(\(?[A-Za-z]{1,5}\)?|[+-]\d{2}:?\d{2}))?(?: \(?[A-Za-z ]+\)?)?$/.exec(
      text,
    );
  if (rfc) {
    const month = MONTHS[(rfc[2] ?? '').slice(0, 3).toLowerCase()];
    if (month === undefined) return undefined;
    let year = Number(rfc[3]);
    if (year < 100) year += year < 70 ? 2000 : 1900;
    let hour = Number(rfc[4] ?? 0);
    const meridiem = rfc[7]?.toLowerCase();
    if (meridiem === 'pm' && hour < 12) hour += 12;
    if (meridiem === 'am' && hour === 12) hour = 0;
    const offset = offsetMinutes(rfc[8]?.replace(/[()]/g, ''));
    if (offset === undefined) return undefined;
    return utc(year, month, Number(rfc[1]), hour, Number(rfc[5] ?? 0), Number(rfc[6] ?? 0), offset);
  }

  // "January 5, 2026 14:00 GMT" and other long forms: JavaScript's own parser, zone-less read as UTC.
  const american =
    /^(?:[A-Za-z]{2,9},? )?([A-Za-z]{3,9})\.? (\d{1,2}),? (\d{4})(?:,? (\d{1,2}):(\d{2})(?::(\d{2}))?(?: ?([AaPp][Mm]))?)?(?: ?([A-Za-z]{1,5}|[+-]\d{2}:?\d{2}))?$/.exec(
      text,
    );
  if (american) {
    const month = MONTHS[(american[1] ?? '').slice(0, 3).toLowerCase()];
    if (month === undefined) return undefined;
    let hour = Number(american[4] ?? 0);
    const meridiem = american[7]?.toLowerCase();
    if (meridiem === 'pm' && hour < 12) hour += 12;
    if (meridiem === 'am' && hour === 12) hour = 0;
    const offset = offsetMinutes(american[8]);
    if (offset === undefined) return undefined;
    return utc(Number(american[3]), month, Number(american[2]), hour, Number(american[5] ?? 0), Number(american[6] ?? 0), offset);
  }
  return undefined;
}
