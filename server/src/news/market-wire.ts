import type { Article, Sentiment } from '@pipdesk/contract';
import type { Clock } from '../core/clock.js';
import type { Candle, ChartRange, Pair } from '../market/index.js';
import { forexTicker, pairLabel } from './recognize.js';
import type { NewsSource } from './source.js';

export const MARKET_WIRE_PUBLISHER = 'Pipdesk Market Wire';
const MARKET_WIRE_AUTHOR = 'Pipdesk Markets Desk';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Events older than this are off the wire. */
const WINDOW_MS = 48 * HOUR;
/** An hour's move is news at 3× the median hourly move of the three days before it... */
const MOVE_FACTOR = 3;
const MOVE_BASELINE_MS = 72 * HOUR;
/** ...and at least 0.15 %, so ordinary wiggles write nothing. */
const MOVE_MIN_PCT = 0.15;
/** A big hour within this long after another at least as big is the same story. */
const MOVE_QUIET_MS = 3 * HOUR;
/** An hour's range is unusual at 3× the median hourly range of the day before it, and at least 0.10 %. */
const VOLATILITY_FACTOR = 3;
const VOLATILITY_BASELINE_MS = 24 * HOUR;
const VOLATILITY_MIN_PCT = 0.1;
/** A day's move is news from 0.25 %. */
const DAY_MIN_PCT = 0.25;
/**
 * A new daily high or low counts once the day has 4 hours behind it, the old extreme stood
 * 4 hours, and the break is at least 0.03 % (3 pips on EUR/USD), not a tick.
 */
const EXTREME_MIN_HOURS = 4;
const EXTREME_STOOD_HOURS = 4;
const EXTREME_MIN_BREAK_PCT = 0.03;
/** Fewer baseline hours than this and the wire does not judge what is unusual. */
const BASELINE_MIN_HOURS = 12;

/** What the wire needs of the market module. */
export interface WireMarket {
  pairs: { list(): Pair[] };
  chart(symbol: string, range: ChartRange): Promise<Candle[]>;
}

type WirePair = Pick<Pair, 'symbol' | 'digits'>;

interface WireEvent {
  kind: 'move' | 'day' | 'high' | 'low' | 'volatility';
  /** Start of the hour or day the event is about; with the kind and pair it makes the id. */
  bucket: number;
  publishedAt: number;
  title: string;
  description: string;
  sentiment: Sentiment;
}

/**
 * The built-in news source: articles written from the pairs' real hourly candles. Every article
 * is a pure function of closed candles (an hour or a UTC day that has ended), so its id and text
 * are the same whenever and on whichever server it is computed, and no event is written twice.
 */
export class MarketWireSource implements NewsSource {
  readonly id = 'market_wire';

  constructor(private readonly deps: { market: WireMarket; clock: Clock }) {}

  async latest(_signal: AbortSignal): Promise<Article[]> {
    const now = this.deps.clock.now();
    const pairs = this.deps.market.pairs.list().filter((p) => p.isActive);
    const perPair = await Promise.all(
      pairs.map(async (pair) => {
        const candles = await this.deps.market.chart(pair.symbol, '1w');
        return wireArticles(pair, candles, now);
      }),
    );
    return perPair.flat();
  }
}

/** The wire's articles for one pair from its hourly candles (oldest first or not), as of `now`. */
export function wireArticles(pair: WirePair, hourlyCandles: readonly Candle[], now: number): Article[] {
  const hours = hourlyCandles
    .filter((c) => c.time + HOUR <= now && [c.open, c.high, c.low, c.close].every((v) => Number.isFinite(v) && v > 0))
    .slice()
    .sort((a, b) => a.time - b.time);
  const events = [...hourEvents(pair, hours, now), ...dayEvents(pair, hours, now)];
  return events.map((event) => toArticle(pair, event));
}

function toArticle(pair: WirePair, event: WireEvent): Article {
  const id = `wire-${pair.symbol}-${event.kind}-${stamp(event.bucket)}`;
  return {
    id,
    title: event.title,
    description: event.description,
    // Relative on purpose: the route resolves it against the address the trader uses, so it
    // opens the pair page of this very deployment (the fragment keeps each article's URL unique).
    article_url: `/pair/${pair.symbol}#${id}`,
    image_url: null,
    published_utc: new Date(event.publishedAt).toISOString(),
    publisher: { name: MARKET_WIRE_PUBLISHER },
    author: MARKET_WIRE_AUTHOR,
    sentiment: event.sentiment,
    tickers: [forexTicker(pair.symbol)],
    category: 'pair',
    related_pair: pair.symbol,
  };
}

function hourEvents(pair: WirePair, hours: Candle[], now: number): WireEvent[] {
  const label = pairLabel(pair.symbol);
  const price = (v: number) => v.toFixed(pair.digits);
  const events: WireEvent[] = [];
  for (let i = 0; i < hours.length; i++) {
    const hour = hours[i] as Candle;
    const end = hour.time + HOUR;
    if (end <= now - WINDOW_MS) continue;
    const rangePct = rangeOf(hour);
    const hourEnd = clockTime(end);

    // One article per pair and hour at most: a big move, else a new daily extreme, else a volatility spike.
    const move = unusualMove(hours, hour);
    if (move) {
      // A run of big hours is one story: a later hour is news only when it moves more than
      // the big hours just before it (judged from candles alone, so the answer never depends
      // on when it is computed).
      const recent = hoursBetween(hours, hour.time - MOVE_QUIET_MS, hour.time)
        .map((c) => unusualMove(hours, c))
        .filter((m) => m !== undefined);
      if (recent.some((m) => Math.abs(m.pct) >= Math.abs(move.pct))) continue;
      const up = move.pct > 0;
      const size = Math.abs(move.pct);
      const verb = up ? (size < 1 ? 'climbs' : 'surges') : size < 1 ? 'falls' : 'slumps';
      events.push({
        kind: 'move',
        bucket: hour.time,
        publishedAt: end,
        title: `${label} ${verb} ${size.toFixed(2)}% to ${price(hour.close)}`,
        description:
          `${label} ${up ? 'rose' : 'fell'} ${size.toFixed(2)}% in the hour to ${hourEnd} UTC, from ${price(hour.open)} to ${price(hour.close)}. ` +
          compared(size, move.baseline, 'hourly move of the previous three days'),
        sentiment: up ? 'positive' : 'negative',
      });
      continue;
    }

    const extreme = newDailyExtreme(hours, i);
    if (extreme) {
      const high = extreme.kind === 'high';
      events.push({
        kind: extreme.kind,
        bucket: hour.time,
        publishedAt: end,
        title: high
          ? `${label} hits a new daily high at ${price(hour.high)}`
          : `${label} drops to a new daily low at ${price(hour.low)}`,
        description:
          `${label} ${high ? 'rose' : 'fell'} to ${price(high ? hour.high : hour.low)} in the hour to ${hourEnd} UTC, ` +
          `${high ? 'above' : 'below'} the day's previous ${extreme.kind} of ${price(extreme.previous)} set in the hour to ${clockTime(extreme.previousAt + HOUR)} UTC. ` +
          `It ended the hour at ${price(hour.close)}.`,
        sentiment: high ? 'positive' : 'negative',
      });
      continue;
    }

    const rangeBaseline = median(hoursBetween(hours, hour.time - VOLATILITY_BASELINE_MS, hour.time).map(rangeOf));
    if (rangeBaseline !== undefined && rangePct >= Math.max(VOLATILITY_MIN_PCT, VOLATILITY_FACTOR * rangeBaseline)) {
      const movePct = pct(hour.open, hour.close);
      const direction =
        Math.abs(movePct) < 0.005
          ? 'little changed'
          : `${Math.abs(movePct).toFixed(2)}% ${movePct > 0 ? 'higher' : 'lower'} than it began`;
      events.push({
        kind: 'volatility',
        bucket: hour.time,
        publishedAt: end,
        title: `${label} volatility jumps as the pair swings ${rangePct.toFixed(2)}% in an hour`,
        description:
          `${label} traded between ${price(hour.low)} and ${price(hour.high)} in the hour to ${hourEnd} UTC. ` +
          `It ended the hour at ${price(hour.close)}, ${direction}; ${compared(rangePct, rangeBaseline, 'hourly range of the previous day').replace(/^That/, 'the range')}`,
        sentiment: Math.abs(movePct) < 0.005 ? 'neutral' : movePct > 0 ? 'positive' : 'negative',
      });
    }
  }
  return events;
}

/** The hour's move when it is unusual: 3× the median of the three days before it, and at least 0.15 %. */
function unusualMove(hours: Candle[], hour: Candle): { pct: number; baseline: number } | undefined {
  const movePct = pct(hour.open, hour.close);
  const baseline = median(
    hoursBetween(hours, hour.time - MOVE_BASELINE_MS, hour.time).map((c) => Math.abs(pct(c.open, c.close))),
  );
  if (baseline === undefined || Math.abs(movePct) < Math.max(MOVE_MIN_PCT, MOVE_FACTOR * baseline)) return undefined;
  return { pct: movePct, baseline };
}

/**
 * Whether hour `i` set a new high or low for its UTC day: the day has at least 4 hours before it
 * and the old extreme had stood at least 3 hours, so a steady trend makes one article, not one an hour.
 */
function newDailyExtreme(hours: Candle[], i: number): { kind: 'high' | 'low'; previous: number; previousAt: number } | undefined {
  const hour = hours[i] as Candle;
  const dayStart = Math.floor(hour.time / DAY) * DAY;
  const before = hoursBetween(hours, dayStart, hour.time);
  if (before.length < EXTREME_MIN_HOURS) return undefined;
  let highest = before[0] as Candle;
  let lowest = before[0] as Candle;
  for (const c of before) {
    if (c.high >= highest.high) highest = c;
    if (c.low <= lowest.low) lowest = c;
  }
  if (pct(highest.high, hour.high) >= EXTREME_MIN_BREAK_PCT && hour.time - highest.time >= EXTREME_STOOD_HOURS * HOUR) {
    return { kind: 'high', previous: highest.high, previousAt: highest.time };
  }
  if (pct(hour.low, lowest.low) >= EXTREME_MIN_BREAK_PCT && hour.time - lowest.time >= EXTREME_STOOD_HOURS * HOUR) {
    return { kind: 'low', previous: lowest.low, previousAt: lowest.time };
  }
  return undefined;
}

function dayEvents(pair: WirePair, hours: Candle[], now: number): WireEvent[] {
  const label = pairLabel(pair.symbol);
  const price = (v: number) => v.toFixed(pair.digits);
  const byDay = new Map<number, Candle[]>();
  for (const hour of hours) {
    const day = Math.floor(hour.time / DAY) * DAY;
    const list = byDay.get(day) ?? [];
    list.push(hour);
    byDay.set(day, list);
  }
  const events: WireEvent[] = [];
  for (const [day, dayHours] of byDay) {
    const end = day + DAY;
    // A day is written up once it is over, while it is recent, and only when most of it was seen.
    if (end > now || end <= now - WINDOW_MS || dayHours.length < 20) continue;
    const open = (dayHours[0] as Candle).open;
    const close = (dayHours[dayHours.length - 1] as Candle).close;
    const movePct = pct(open, close);
    if (Math.abs(movePct) < DAY_MIN_PCT) continue;
    const high = Math.max(...dayHours.map((c) => c.high));
    const low = Math.min(...dayHours.map((c) => c.low));
    const up = movePct > 0;
    const size = Math.abs(movePct);
    const weekday = new Date(day).toLocaleDateString('en-GB', { weekday: 'long', timeZone: 'UTC' });
    const date = new Date(day).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', timeZone: 'UTC' });
    const verb = up
      ? size < 0.3
        ? 'edges up'
        : size < 1.5
          ? 'climbs'
          : 'surges'
      : size < 0.3
        ? 'edges down'
        : size < 1.5
          ? 'falls'
          : 'slumps';
    events.push({
      kind: 'day',
      bucket: day,
      publishedAt: end,
      title: `${label} ${verb} ${size.toFixed(2)}% on ${weekday} to ${price(close)}`,
      description:
        `${label} closed ${weekday} ${date} (UTC) at ${price(close)}, ${size.toFixed(2)}% ${up ? 'above' : 'below'} its open of ${price(open)}. ` +
        `The day's range ran from ${price(low)} to ${price(high)}.`,
      sentiment: up ? 'positive' : 'negative',
    });
  }
  return events;
}

/** Closed hours with from ≤ time < to. */
function hoursBetween(hours: Candle[], from: number, to: number): Candle[] {
  return hours.filter((c) => c.time >= from && c.time < to);
}

/** An hour's high-low range as a percentage of its open. */
function rangeOf(c: Candle): number {
  return ((c.high - c.low) / c.open) * 100;
}

function pct(from: number, to: number): number {
  return ((to - from) / from) * 100;
}

function median(values: number[]): number | undefined {
  if (values.length < BASELINE_MIN_HOURS) return undefined;
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return value;
}

/** The sentence that says how unusual a figure is against its baseline. */
function compared(value: number, baseline: number, what: string): string {
  if (baseline < 0.001) return `That is well beyond its typical ${what}, which was close to flat.`;
  return `That is about ${(value / baseline).toFixed(1)} times its typical ${what}.`;
}

/** 13:00 */
function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

/** 20260105T1300Z */
function stamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace(/[-:]/g, '').concat('Z');
}
