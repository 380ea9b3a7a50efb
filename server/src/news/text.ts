/** Text helpers for news from the outside world: HTML to plain text, dates feeds really use, safe URLs. */

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  ndash: '–',
  mdash: '—',
  minus: '−',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  lsaquo: '‹',
  rsaquo: '›',
  hellip: '…',
  bull: '•',
  middot: '·',
  prime: '′',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  curren: '¤',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  plusmn: '±',
  times: '×',
  divide: '÷',
  frac12: '½',
  frac14: '¼',
  frac34: '¾',
  para: '¶',
  sect: '§',
  shy: '',
  zwj: '',
  zwnj: '',
  iexcl: '¡',
  iquest: '¿',
  aacute: 'á',
  eacute: 'é',
  iacute: 'í',
  oacute: 'ó',
  uacute: 'ú',
  agrave: 'à',
  egrave: 'è',
  ograve: 'ò',
  acirc: 'â',
  ecirc: 'ê',
  ocirc: 'ô',
  auml: 'ä',
  euml: 'ë',
  ouml: 'ö',
  uuml: 'ü',
  Auml: 'Ä',
  Ouml: 'Ö',
  Uuml: 'Ü',
  szlig: 'ß',
  ccedil: 'ç',
  ntilde: 'ñ',
  Eacute: 'É',
};

/** Decodes HTML character references (named, decimal, hex); unknown names stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      // Control characters and surrogates are never text a reader should get.
      if (
        !Number.isFinite(code) ||
        code > 0x10ffff ||
        (code >= 0xd800 && code <= 0xdfff) ||
        (code < 32 && code !== 9 && code !== 10 && code !== 13)
      ) {
        return '';
      }
      return String.fromCodePoint(code);
    }
    return NAMED_ENTITIES[ref] ?? NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/**
 * HTML (or text that may contain it) to one line of plain text: scripts, styles and comments
 * removed, tags dropped, entities decoded, whitespace collapsed. Tags go before entities so an
 * escaped `&lt;b&gt;` in the text stays visible text instead of becoming markup.
 */
export function htmlToText(html: string): string {
  const withoutBlocks = html
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|iframe|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<(script|style|iframe|noscript|template)\b[^>]*\/?>/gi, ' ');
  const withoutTags = withoutBlocks.replace(/<\/?[a-z!?][^<>]*>/gi, (tag) =>
    /^<\/?(p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|blockquote|section|article|figure|figcaption|hr)\b/i.test(tag) ? ' ' : '',
  );
  return (
    decodeEntities(withoutTags)
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
  const match = /<img\b[^>]*?\bsrc\s*=\s*(?:"([^"]+)"|'([^']+)'|([^\s>]+))/i.exec(html);
  const src = match?.[1] ?? match?.[2] ?? match?.[3];
  return src ? decodeEntities(src) : undefined;
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
