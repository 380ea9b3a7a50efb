import { type Article, articleSchema } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import type { Candle } from '../market/index.js';
import { fakeMarket, hourlyCandles } from './fixtures/fake-market.js';
import { MarketWireSource, wireArticles } from './market-wire.js';

const HOUR = 3_600_000;
/** Monday 5 January 2026, 12:00 UTC. */
const NOW = Date.UTC(2026, 0, 5, 12, 0, 0);
/** The week of hourly candles the 1w chart holds, oldest first. */
const START = NOW - 168 * HOUR;
const hoursOf = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));

/**
 * A scripted week:
 * - EUR/USD wobbles between 1.10000 and 1.10020, then jumps 50 pips in the hour to 10:00 today;
 *   a still-forming candle at 12:00 spikes and must be ignored until it closes.
 * - GBP/USD drifts down 0.4 pip an hour, then trades above the day's opening high at 10:00.
 * - USD/JPY is flat at 150.000, then swings 40 sen either way in the hour to 12:00.
 * - AUD/USD climbs 1 pip an hour, so each whole day is up about 0.39 %.
 */
function scriptedWeek(): Record<string, Candle[]> {
  const eurJump = 165; // the hour from 09:00 today
  const eur = hourlyCandles(
    START,
    1.1,
    hoursOf(169, (i) =>
      i < eurJump ? 1.1 + (i % 2 === 0 ? 0.0002 : 0) : i === eurJump ? 1.1052 : 1.105 + (i % 2 === 0 ? 0.0002 : 0),
    ),
    { wick: 0.0001, overrides: { 168: { high: 1.12, close: 1.118 } } },
  );
  const gbp = hourlyCandles(
    START,
    1.25,
    hoursOf(168, (i) => 1.25 - 0.00004 * (i + 1)),
    { wick: 0.00002, overrides: { 166: { high: 1.247 } } },
  );
  const jpy = hourlyCandles(
    START,
    150,
    hoursOf(168, () => 150),
    { wick: 0.01, overrides: { 167: { high: 150.4, low: 149.6 } } },
  );
  const aud = hourlyCandles(
    START,
    0.6,
    hoursOf(168, (i) => 0.6 + 0.0001 * (i + 1)),
  );
  return { EURUSD: eur, GBPUSD: gbp, USDJPY: jpy, AUDUSD: aud };
}

const pairOf = (symbol: string, digits = symbol.endsWith('JPY') ? 3 : 5) => ({ symbol, digits });

describe('market wire', () => {
  it('writes sensible articles from a scripted price path', async () => {
    const market = fakeMarket(scriptedWeek());
    const wire = new MarketWireSource({ market, clock: new ManualClock(NOW) });
    const articles = await wire.latest(AbortSignal.timeout(1000));
    for (const article of articles) expect(articleSchema.parse(article)).toEqual(article);
    // Every catalogue pair's weekly chart was asked for.
    expect(market.calls.every((c) => c.range === '1w')).toBe(true);
    expect(market.calls).toHaveLength(12);

    const summary = articles
      .map((a) => ({ title: a.title, at: a.published_utc, sentiment: a.sentiment, pair: a.related_pair }))
      .sort((a, b) => (a.at < b.at ? 1 : -1));
    expect(summary).toEqual([
      {
        title: 'USD/JPY volatility jumps as the pair swings 0.53% in an hour',
        at: '2026-01-05T12:00:00.000Z',
        sentiment: 'neutral',
        pair: 'USDJPY',
      },
      {
        title: 'GBP/USD hits a new daily high at 1.24700',
        at: '2026-01-05T11:00:00.000Z',
        sentiment: 'positive',
        pair: 'GBPUSD',
      },
      { title: 'EUR/USD climbs 0.45% to 1.10520', at: '2026-01-05T10:00:00.000Z', sentiment: 'positive', pair: 'EURUSD' },
      {
        title: 'AUD/USD climbs 0.39% on Sunday to 0.61560',
        at: '2026-01-05T00:00:00.000Z',
        sentiment: 'positive',
        pair: 'AUDUSD',
      },
      {
        title: 'AUD/USD climbs 0.39% on Saturday to 0.61320',
        at: '2026-01-04T00:00:00.000Z',
        sentiment: 'positive',
        pair: 'AUDUSD',
      },
    ]);
  });

  it('gives each article two sentences, the pair ticker, category and the wire as publisher', () => {
    const [eur] = wireArticles(pairOf('EURUSD'), scriptedWeek().EURUSD as Candle[], NOW);
    expect(eur).toEqual({
      id: 'wire-EURUSD-move-20260105T0900Z',
      title: 'EUR/USD climbs 0.45% to 1.10520',
      description:
        'EUR/USD rose 0.45% in the hour to 10:00 UTC, from 1.10020 to 1.10520. That is about 25.0 times its typical hourly move of the previous three days.',
      article_url: '/pair/EURUSD#wire-EURUSD-move-20260105T0900Z',
      image_url: null,
      published_utc: '2026-01-05T10:00:00.000Z',
      publisher: { name: 'Pipdesk Market Wire' },
      author: 'Pipdesk Markets Desk',
      sentiment: 'positive',
      tickers: ['C:EURUSD'],
      category: 'pair',
      related_pair: 'EURUSD',
    });
    const [gbp] = wireArticles(pairOf('GBPUSD'), scriptedWeek().GBPUSD as Candle[], NOW);
    expect(gbp?.description).toBe(
      "GBP/USD rose to 1.24700 in the hour to 11:00 UTC, above the day's previous high of 1.24378 set in the hour to 01:00 UTC. It ended the hour at 1.24332.",
    );
    const [jpy] = wireArticles(pairOf('USDJPY'), scriptedWeek().USDJPY as Candle[], NOW);
    expect(jpy?.description).toBe(
      'USD/JPY traded between 149.600 and 150.400 in the hour to 12:00 UTC. It ended the hour at 150.000, little changed; the range is about 40.0 times its typical hourly range of the previous day.',
    );
    for (const article of [eur, gbp, jpy] as Article[]) {
      expect(article.description.split(/(?<=\.)\s/)).toHaveLength(2);
    }
  });

  it('falls as well as climbs, with negative sentiment', () => {
    const drop = hourlyCandles(
      START,
      1.1,
      hoursOf(168, (i) => (i === 160 ? 1.094 : 1.1 + (i % 2 === 0 ? 0.0002 : 0))),
      { wick: 0.0001 },
    );
    const articles = wireArticles(pairOf('EURUSD'), drop, NOW).filter((a) => a.published_utc === '2026-01-05T05:00:00.000Z');
    expect(articles.map((a) => [a.title, a.sentiment])).toEqual([['EUR/USD falls 0.55% to 1.09400', 'negative']]);
  });

  it('tells a run of big hours as one story, unless a later hour moves more', () => {
    const closes = hoursOf(168, (i) => 1.1 + (i % 2 === 0 ? 0.0002 : 0));
    // 160: +0.30 %, 161: +0.20 % (the same story), 162: +0.50 % (bigger: news again).
    closes[160] = (closes[159] as number) * 1.003;
    closes[161] = (closes[160] as number) * 1.002;
    closes[162] = (closes[161] as number) * 1.005;
    for (let i = 163; i < 168; i++) closes[i] = closes[162] as number;
    const articles = wireArticles(pairOf('EURUSD'), hourlyCandles(START, 1.1, closes, { wick: 0.0001 }), NOW);
    expect(articles.map((a) => a.title)).toEqual(['EUR/USD climbs 0.30% to 1.10330', 'EUR/USD climbs 0.50% to 1.11103']);
  });

  it('does not call a new daily high that breaks the old one by a tick', () => {
    const week = scriptedWeek();
    const gbp = (week.GBPUSD as Candle[]).map((c, i) => (i === 166 ? { ...c, high: 1.24379 } : c));
    expect(wireArticles(pairOf('GBPUSD'), gbp, NOW)).toEqual([]);
  });

  it('keeps ids and texts stable as time passes, and never writes one event twice', () => {
    const week = scriptedWeek();
    const first = wireArticles(pairOf('EURUSD'), week.EURUSD as Candle[], NOW);
    // An hour later the spike candle has closed: one new article, the old ones unchanged.
    const later = wireArticles(pairOf('EURUSD'), week.EURUSD as Candle[], NOW + HOUR);
    for (const article of first) expect(later.find((a) => a.id === article.id)).toEqual(article);
    const added = later.filter((a) => !first.some((f) => f.id === a.id));
    expect(added.map((a) => a.title)).toEqual(['EUR/USD surges 1.18% to 1.11800']);
    // Computing twice, or on another server, gives the very same articles.
    expect(wireArticles(pairOf('EURUSD'), week.EURUSD as Candle[], NOW + HOUR)).toEqual(later);
    // One article per pair and hour at most, and unique ids.
    const all = Object.entries(week).flatMap(([symbol, candles]) => wireArticles(pairOf(symbol), candles, NOW + HOUR));
    expect(new Set(all.map((a) => a.id)).size).toBe(all.length);
    const hourly = all.filter((a) => !a.id.includes('-day-'));
    expect(new Set(hourly.map((a) => `${a.related_pair}@${a.published_utc}`)).size).toBe(hourly.length);
  });

  it('drops events older than two days and writes nothing from no data or a flat market', () => {
    const old = hourlyCandles(
      START,
      1.1,
      hoursOf(168, (i) => (i === 60 ? 1.11 : 1.1 + (i % 2 === 0 ? 0.0002 : 0))),
      { wick: 0.0001 },
    );
    expect(wireArticles(pairOf('EURUSD'), old, NOW).filter((a) => a.id.includes('-move-'))).toEqual([]);
    expect(wireArticles(pairOf('EURUSD'), [], NOW)).toEqual([]);
    const flat = hourlyCandles(
      START,
      1.1,
      hoursOf(168, () => 1.1),
    );
    expect(wireArticles(pairOf('EURUSD'), flat, NOW)).toEqual([]);
  });

  it('reads a move in a dead-flat market as news without dividing by zero', () => {
    const flatThenMove = hourlyCandles(
      START,
      1.1,
      hoursOf(168, (i) => (i >= 167 ? 1.102 : 1.1)),
    );
    const [article] = wireArticles(pairOf('EURUSD'), flatThenMove, NOW);
    expect(article?.title).toBe('EUR/USD climbs 0.18% to 1.10200');
    expect(article?.description).toContain('well beyond its typical hourly move');
  });
});
