import { describe, expect, it } from 'vitest';
import { classify } from './classify.js';
import { TEST_PAIRS } from './fixtures/fake-market.js';
import { recognizePairs } from './recognize.js';
import { lexiconSentiment, normalizeSentiment } from './sentiment.js';

const pairsIn = (text: string) => recognizePairs(text, TEST_PAIRS).pairs;

describe('pair recognition', () => {
  it.each([
    ['EUR/USD rallies after ECB', ['EURUSD']],
    ['eur/usd slips', ['EURUSD']],
    ['EURUSD and GBPUSD both higher', ['EURUSD', 'GBPUSD']],
    ['EUR-USD outlook', ['EURUSD']],
    ['Ticker C:USDJPY moves', ['USDJPY']],
    ['USD/EUR inverted quote', ['EURUSD']],
    ['The euro climbed against the dollar', ['EURUSD']],
    ['Euro slides versus sterling', ['EURGBP']],
    ['Sterling slides', ['GBPUSD']],
    ['Cable slips after weak data', ['GBPUSD']],
    ['Fiber holds above 1.08', ['EURUSD']],
    ['Yen weakens as BoJ signals patience', ['USDJPY']],
    ['Japanese yen firms against the euro', ['EURJPY']],
    ['Australian dollar jumps after RBA', ['AUDUSD']],
    ['The Aussie and the yen: AUD/JPY breaks out', ['AUDJPY']],
    ['Loonie gains as oil rises', ['USDCAD']],
    ['Kiwi steady; the New Zealand dollar held', ['NZDUSD']],
    ['Swiss franc strengthens', ['USDCHF']],
    ['Franc and euro: EURCHF near parity', ['EURCHF']],
    ['British pound vs Japanese yen', ['GBPJPY']],
    ['The quid slides', ['GBPUSD']],
    ['Swissie steadies as the greenback slips', ['USDCHF']],
    ['Euros and dollars: flows pick up', ['EURUSD']],
    ['GBP/USD: BoE in focus', ['GBPUSD']],
  ])('%s → %j', (text, expected) => {
    expect(pairsIn(text)).toEqual(expected);
  });

  it.each([
    'Apple shares climb on record iPhone sales',
    'Dollar index steady as Fed speakers line up',
    'Fed up with another delay, travellers wait',
    'Another cursor update ships', // six letters that are no pair
    'EUR/TRY hits a record', // a pair outside the catalogue
    'Euro and sterling gain against the Swiss franc and yen', // many currencies, no notation
    'Real GDP growth beats forecasts', // "real" is no Brazilian real here
    'Incumbent won the vote',
    'Rand Paul speaks on budget',
    'PHP 8.4 released; TRY THIS at home',
  ])('finds no single pair in %j', (text) => {
    const pairs = pairsIn(text);
    if (text.startsWith('Euro and sterling')) {
      // Every catalogue pair made of the named currencies, not a made-up one.
      expect(pairs).toEqual(['EURGBP', 'EURCHF', 'EURJPY', 'GBPJPY']);
    } else {
      expect(pairs).toEqual([]);
    }
  });

  it('names currencies even when no pair follows', () => {
    expect(recognizePairs('Dollar index steady as the Fed waits', TEST_PAIRS).currencies).toEqual(['USD']);
    expect(recognizePairs('EUR/TRY hits a record', TEST_PAIRS).currencies).toEqual(['EUR', 'TRY']);
    expect(recognizePairs('Fed up with delays', TEST_PAIRS).currencies).toEqual([]);
  });

  it('classifies: pair (related pair = first named), forex (currencies only), general', () => {
    expect(classify('Cable and fiber both slip', TEST_PAIRS)).toEqual({
      tickers: ['C:GBPUSD', 'C:EURUSD'],
      category: 'pair',
      related_pair: 'GBPUSD',
    });
    expect(classify('Dollar index steady', TEST_PAIRS)).toEqual({ tickers: [], category: 'forex', related_pair: null });
    expect(classify('Apple shares climb', TEST_PAIRS, ['AAPL'])).toEqual({
      tickers: ['AAPL'],
      category: 'general',
      related_pair: null,
    });
    expect(classify('Stocks and FX', TEST_PAIRS, ['C:USDJPY', 'AAPL']).related_pair).toBe('USDJPY');
  });
});

describe('sentiment lexicon', () => {
  it.each([
    ['EUR/USD rallies as ECB keeps rates on hold', 'positive'],
    ['Cable slips after weak UK retail sales', 'negative'],
    ['Yen weakens as BoJ signals patience', 'negative'],
    ['Markets quiet ahead of holiday', 'neutral'],
    ['Euro gains, then falls back', 'neutral'],
    ['Dollar did not fall', 'positive'],
    ['Pound fails to rally', 'negative'],
  ] as const)('%s → %s', (text, expected) => {
    expect(lexiconSentiment(text)).toBe(expected);
  });

  it('reads a source label, bullish and bearish included', () => {
    expect(normalizeSentiment('Positive')).toBe('positive');
    expect(normalizeSentiment('bearish')).toBe('negative');
    expect(normalizeSentiment('neutral')).toBe('neutral');
    expect(normalizeSentiment('meh')).toBeUndefined();
    expect(normalizeSentiment(3)).toBeUndefined();
  });
});
