import type { NewsCategory } from '@pipdesk/contract';
import { forexTicker, type RecognizablePair, recognizePairs, symbolOfTicker } from './recognize.js';

export interface Classification {
  tickers: string[];
  category: NewsCategory;
  related_pair: string | null;
}

/**
 * Tickers, category and related pair of an article from its text and any tickers its source
 * gave: `pair` when it is about at least one catalogue pair (the first one named is the
 * related pair), `forex` when it names currencies but no catalogue pair, else `general`.
 */
export function classify(
  text: string,
  catalogue: readonly RecognizablePair[],
  sourceTickers: readonly string[] = [],
): Classification {
  const known = new Set(catalogue.map((p) => p.symbol));
  const fromTickers = sourceTickers.map(symbolOfTicker).filter((s): s is string => s !== undefined && known.has(s));
  const recognition = recognizePairs(text, catalogue);
  const pairs = [...new Set([...fromTickers, ...recognition.pairs])];
  const tickers = [...new Set([...sourceTickers, ...pairs.map(forexTicker)])];
  const mentionsForex = recognition.currencies.length > 0 || sourceTickers.some((t) => t.startsWith('C:'));
  return {
    tickers,
    category: pairs.length > 0 ? 'pair' : mentionsForex ? 'forex' : 'general',
    related_pair: pairs[0] ?? null,
  };
}
