import { describe, expect, it } from 'vitest';
import { imageFallbackLabel, pairLabel, safeUrl, tickerLabel, visibleTickers } from './articles';

describe('visibleTickers (docs/screens.md#constants: up to 5 tickers, then +N more)', () => {
  const tickers = (n: number) => Array.from({ length: n }, (_, i) => `T${i + 1}`);

  it.each([
    [0, 0, 0],
    [3, 3, 0],
    [5, 5, 0],
    [6, 5, 1],
    [12, 5, 7],
  ])('%s tickers: %s shown, %s more', (count, shown, more) => {
    const result = visibleTickers(tickers(count));
    expect(result.shown).toEqual(tickers(count).slice(0, shown));
    expect(result.more).toBe(more);
  });
});

describe('labels', () => {
  it('reads forex tickers and symbols as pairs, leaves others alone', () => {
    expect(tickerLabel('C:EURUSD')).toBe('EUR/USD');
    expect(tickerLabel('AAPL')).toBe('AAPL');
    expect(tickerLabel('X:BTCUSD')).toBe('X:BTCUSD');
    expect(pairLabel('GBPJPY')).toBe('GBP/JPY');
  });

  it('names the image tile by the pair, else the first currency ticker, else the publisher initials', () => {
    const base = { related_pair: null, tickers: [], publisher: { name: 'Pipdesk Market Wire' } };
    expect(imageFallbackLabel({ ...base, related_pair: 'EURUSD' })).toBe('EUR/USD');
    expect(imageFallbackLabel({ ...base, tickers: ['AAPL', 'C:USDJPY'] })).toBe('USD/JPY');
    expect(imageFallbackLabel(base)).toBe('PM');
    expect(imageFallbackLabel({ ...base, publisher: { name: 'reuters' } })).toBe('R');
    expect(imageFallbackLabel({ ...base, publisher: { name: '' } })).toBe('News');
  });
});

describe('safeUrl', () => {
  it('lets http(s) through and nothing else', () => {
    expect(safeUrl('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(safeUrl('http://example.com/')).toBe('http://example.com/');
    expect(safeUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeUrl('data:image/png;base64,AAAA')).toBeUndefined();
    expect(safeUrl(null)).toBeUndefined();
    expect(safeUrl('')).toBeUndefined();
  });
});
