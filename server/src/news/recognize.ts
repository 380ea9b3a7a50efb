import { CURRENCIES, PAIR_NICKNAMES } from '@pipdesk/contract';

/**
 * Which catalogue pairs a headline is about, from currency codes, names, nicknames and pair
 * notations. Names and nicknames come from the contract's extended currency list (the one the
 * web app's flags use), with a few news-only additions and exclusions below.
 */

/** A catalogue pair as recognition needs it. */
export interface RecognizablePair {
  symbol: string;
  baseCurrency: string;
  quoteCurrency: string;
}

export interface Recognition {
  /** Catalogue symbols, in the order the text first names them. */
  pairs: string[];
  /** ISO codes of every currency named, in order of first mention. */
  currencies: string[];
}

/**
 * Codes that are also words in capitals ("TRY THIS", "PHP 8", "COP") count only inside a pair
 * notation such as EUR/TRY, never on their own.
 */
const CODES_ONLY_IN_NOTATION = new Set(['TRY', 'PHP', 'COP']);
const PAIR_CODES = new Set(CURRENCIES.map((c) => c.code));
const STANDALONE_CODES = CURRENCIES.map((c) => c.code).filter((code) => !CODES_ONLY_IN_NOTATION.has(code));

/** Nicknames that are everyday English far more often than money in a headline ("real GDP", "won the vote"). */
const NOT_IN_NEWS = new Set(['real', 'won', 'buck', 'gold', 'silver', 'ninja', 'canadian']);
/** Nicknames that count only in lower case ("rand", not "Rand Paul"). */
const LOWER_CASE_ONLY = new Set(['rand']);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Names and nicknames to codes, longest phrase first so "Australian dollar" wins over "dollar". */
const CURRENCY_NAMES: [RegExp, string][] = CURRENCIES.flatMap((currency) =>
  [...new Set([currency.name.toLowerCase(), ...currency.nicknames])]
    .filter((name) => !NOT_IN_NEWS.has(name))
    .map((name) => ({ name, code: currency.code })),
)
  .sort((a, b) => b.name.length - a.name.length)
  .map(({ name, code }): [RegExp, string] => [
    new RegExp(`\\b${escapeRegExp(name).replace(/ /g, '\\s+')}s?\\b`, LOWER_CASE_ONLY.has(name) ? 'g' : 'gi'),
    code,
  ]);

/**
 * News-only words for a currency: FX desks write "the BoJ" for the yen. Case-sensitive, so the
 * verb in "fed up" is no central bank.
 */
const CENTRAL_BANKS: [RegExp, string][] = [
  [/\bFederal Reserve\b|\bFOMC\b|\bFed\b(?! up\b)/g, 'USD'],
  [/\bECB\b|\bEuropean Central Bank\b/g, 'EUR'],
  [/\bBo[Ee]\b|\bBank of England\b/g, 'GBP'],
  [/\bBo[Jj]\b|\bBank of Japan\b/g, 'JPY'],
  [/\bSNB\b|\bSwiss National Bank\b/g, 'CHF'],
  [/\bRBA\b|\bReserve Bank of Australia\b/g, 'AUD'],
  [/\bBo[Cc]\b|\bBank of Canada\b/g, 'CAD'],
  [/\bRBNZ\b|\bReserve Bank of New Zealand\b/g, 'NZD'],
];

/**
 * Market nicknames of whole pairs ("cable" is GBP/USD). One that is also a currency's nickname
 * ("aussie", "kiwi") is read as the currency, so "the Aussie against the yen" is AUD/JPY.
 */
const currencyNicknames = new Set(CURRENCIES.flatMap((c) => c.nicknames));
const PAIR_NICKNAME_PATTERNS: [RegExp, string][] = Object.entries(PAIR_NICKNAMES)
  .flatMap(([symbol, names]) =>
    names.filter((n) => !currencyNicknames.has(n) && !NOT_IN_NEWS.has(n)).map((name) => ({ name, symbol })),
  )
  .sort((a, b) => b.name.length - a.name.length)
  .map(({ name, symbol }): [RegExp, string] => [new RegExp(`\\b${escapeRegExp(name).replace(/ /g, '\\s+')}\\b`, 'gi'), symbol]);

interface Mention {
  at: number;
  currency?: string;
  /** A base/quote notation or nickname. */
  pair?: [string, string];
}

/** Finds every mention, masking matched text so "Australian dollar" is not also read as "dollar". */
function mentions(text: string): Mention[] {
  const found: Mention[] = [];
  let masked = text;
  const take = (re: RegExp, onMatch: (m: RegExpExecArray) => Mention | undefined) => {
    re.lastIndex = 0;
    let m = re.exec(masked);
    while (m) {
      const mention = onMatch(m);
      if (mention) {
        found.push(mention);
        masked = masked.slice(0, m.index) + ' '.repeat(m[0].length) + masked.slice(m.index + m[0].length);
      }
      if (!re.global) break;
      m = re.exec(masked);
    }
  };
  // Polygon-style tickers and notations: C:EURUSD, EUR/USD, EUR-USD, eur/usd, EURUSD.
  take(/\b(?:C:|X:)?([A-Za-z]{3})\s?[/\\-]\s?([A-Za-z]{3})\b|\b(?:C:)?([A-Z]{3})([A-Z]{3})\b/g, (m) => {
    const base = (m[1] ?? m[3] ?? '').toUpperCase();
    const quote = (m[2] ?? m[4] ?? '').toUpperCase();
    if (!PAIR_CODES.has(base) || !PAIR_CODES.has(quote) || base === quote) return undefined;
    return { at: m.index, pair: [base, quote] };
  });
  for (const [re, symbol] of PAIR_NICKNAME_PATTERNS) {
    take(re, (m) => ({ at: m.index, pair: [symbol.slice(0, 3), symbol.slice(3)] }));
  }
  take(new RegExp(`\\b(${STANDALONE_CODES.join('|')})\\b`, 'g'), (m) => ({ at: m.index, currency: m[1] as string }));
  for (const [re, code] of [...CENTRAL_BANKS, ...CURRENCY_NAMES]) {
    take(re, (m) => ({ at: m.index, currency: code }));
  }
  return found.sort((a, b) => a.at - b.at);
}

/**
 * Recognises catalogue pairs in a headline and its text:
 * - a notation or nickname of a pair (either way round: "USD/EUR" is EURUSD);
 * - two currencies named together that form a catalogue pair ("the euro against the dollar");
 * - a single non-dollar currency on its own maps to its dollar pair ("yen slides" is USDJPY),
 *   because that is the pair the market quotes it by.
 */
export function recognizePairs(text: string, catalogue: readonly RecognizablePair[]): Recognition {
  const found = mentions(text);
  const bySides = new Map<string, string>();
  for (const pair of catalogue) {
    bySides.set(`${pair.baseCurrency}/${pair.quoteCurrency}`, pair.symbol);
    bySides.set(`${pair.quoteCurrency}/${pair.baseCurrency}`, pair.symbol);
  }
  const pairs: string[] = [];
  const currencies: string[] = [];
  const addPair = (symbol: string | undefined) => {
    if (symbol && !pairs.includes(symbol)) pairs.push(symbol);
  };
  const addCurrency = (code: string) => {
    if (!currencies.includes(code)) currencies.push(code);
  };
  for (const mention of found) {
    if (mention.pair) {
      addCurrency(mention.pair[0]);
      addCurrency(mention.pair[1]);
      addPair(bySides.get(`${mention.pair[0]}/${mention.pair[1]}`));
    } else if (mention.currency) {
      addCurrency(mention.currency);
    }
  }
  if (pairs.length === 0) {
    // Currencies named together: every catalogue pair made of two of them.
    for (let i = 0; i < currencies.length; i++) {
      for (let j = i + 1; j < currencies.length; j++) {
        addPair(bySides.get(`${currencies[i]}/${currencies[j]}`));
      }
    }
  }
  if (pairs.length === 0) {
    const nonDollar = currencies.filter((c) => c !== 'USD');
    if (nonDollar.length === 1) addPair(bySides.get(`${nonDollar[0]}/USD`));
  }
  return { pairs, currencies };
}

/** `EURUSD` → `EUR/USD`. */
export function pairLabel(symbol: string): string {
  return symbol.length === 6 ? `${symbol.slice(0, 3)}/${symbol.slice(3)}` : symbol;
}

/** `EURUSD` → `C:EURUSD`, Polygon's forex ticker. */
export function forexTicker(symbol: string): string {
  return `C:${symbol}`;
}

/** `C:EURUSD` → `EURUSD`; other tickers → undefined. */
export function symbolOfTicker(ticker: string): string | undefined {
  const m = /^C:([A-Z]{6})$/.exec(ticker.trim().toUpperCase());
  return m?.[1];
}
