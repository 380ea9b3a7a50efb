import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { MINUTE_MS } from './candles.js';

/**
 * Real one-minute candles (server/data/replay, see its README for the source) and how they
 * are laid on today's clock: bar by bar from a fixed anchor, played forward and then
 * backward (so the loop has no jump), each minute walked open → nearer extreme → other
 * extreme → close.
 */

/** Where the data ships: server/data/replay, the same from src/ and from dist/. */
export const REPLAY_DIR = path.resolve(import.meta.dirname, '../../data/replay');

/** Real minute 0 of every file plays at this instant (and every 2 × length minutes after). */
export const REPLAY_ANCHOR = Date.UTC(2026, 0, 1);

export interface BarSeries {
  symbol: string;
  /** Open times in epoch ms (gaps in the data stay gaps here). */
  times: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  /** Trades in the minute (0 for a flat bar the exchange repeated). */
  count: Int32Array;
  length: number;
}

export interface Bar {
  open: number;
  high: number;
  low: number;
  close: number;
  count: number;
}

/**
 * Parses `dtime,time,open,high,low,close,vwap,volume,count` (time in Unix seconds). A row whose
 * time is not after the row kept before it is dropped: the files repeat a few bars where the
 * collector restarted, and a series must run forward (server/data/replay/README.md).
 */
export function parseM1Csv(symbol: string, text: string): BarSeries {
  // Hand-rolled field scanning: split() on ~400k lines made start-up noticeably slower.
  let capacity = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) capacity++;
  capacity++;
  const times = new Float64Array(capacity);
  const open = new Float64Array(capacity);
  const high = new Float64Array(capacity);
  const low = new Float64Array(capacity);
  const close = new Float64Array(capacity);
  const count = new Int32Array(capacity);
  let k = 0;
  let pos = text.indexOf('\n') + 1;
  const fields: number[] = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  while (pos > 0 && pos < text.length && k < capacity) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    let start = pos;
    for (let f = 0; f < 9; f++) {
      let comma = text.indexOf(',', start);
      if (comma < 0 || comma > end) comma = end;
      // dtime, vwap and volume are not needed.
      fields[f] = f === 0 || f === 6 || f === 7 ? 0 : parseDecimal(text, start, comma);
      start = comma + 1;
    }
    pos = end + 1;
    const [, t, o, h, l, c, , , n] = fields as [number, number, number, number, number, number, number, number, number];
    if (!(t > 0 && o > 0 && h > 0 && l > 0 && c > 0)) continue;
    if (k > 0 && t * 1000 <= times[k - 1]!) continue;
    times[k] = t * 1000;
    open[k] = o;
    high[k] = Math.max(h, o, c);
    low[k] = Math.min(l, o, c);
    close[k] = c;
    count[k] = n || 0;
    k++;
  }
  return {
    symbol,
    times: times.slice(0, k),
    open: open.slice(0, k),
    high: high.slice(0, k),
    low: low.slice(0, k),
    close: close.slice(0, k),
    count: count.slice(0, k),
    length: k,
  };
}

/**
 * Parses a plain decimal ("1.08635", "1680523260") without allocating a substring.
 * (digits ÷ 10^decimals) is one correctly rounded division of two exact integers, so the
 * result equals Number("1.08635"). Anything unusual falls back to Number().
 */
function parseDecimal(text: string, start: number, end: number): number {
  let mantissa = 0;
  let decimals = -1;
  for (let i = start; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (ch >= 48 && ch <= 57) {
      mantissa = mantissa * 10 + (ch - 48);
      if (decimals >= 0) decimals++;
    } else if (ch === 46 && decimals < 0) decimals = 0;
    else return Number(text.slice(start, end));
  }
  if (start === end || mantissa > Number.MAX_SAFE_INTEGER) return Number(text.slice(start, end));
  return decimals > 0 ? mantissa / 10 ** decimals : mantissa;
}

const cache = new Map<string, ReadonlyMap<string, BarSeries>>();

/** Every `<SYMBOL>.m1.csv.gz` of `dir`, parsed once per process. A missing folder is an empty map. */
export function loadReplayData(dir: string = REPLAY_DIR): ReadonlyMap<string, BarSeries> {
  const cached = cache.get(dir);
  if (cached) return cached;
  const data = new Map<string, BarSeries>();
  if (existsSync(dir)) {
    for (const file of readdirSync(dir).sort()) {
      const m = /^([A-Z]{6})\.m1\.csv\.gz$/.exec(file);
      if (!m) continue;
      const text = gunzipSync(readFileSync(path.join(dir, file))).toString('utf8');
      const series = parseM1Csv(m[1]!, text);
      if (series.length > 0) data.set(series.symbol, series);
    }
  }
  cache.set(dir, data);
  return data;
}

/** The bar playing in the minute that starts at `minuteStart` (ping-pong over the file's bars). */
export function barAt(series: BarSeries, minuteStart: number): Bar {
  const n = series.length;
  const period = 2 * n;
  const k = Math.floor((minuteStart - REPLAY_ANCHOR) / MINUTE_MS);
  const pos = ((k % period) + period) % period;
  if (pos < n) {
    return {
      open: series.open[pos]!,
      high: series.high[pos]!,
      low: series.low[pos]!,
      close: series.close[pos]!,
      count: series.count[pos]!,
    };
  }
  // Played backward: the bar runs from its close to its open.
  const j = period - 1 - pos;
  return { open: series.close[j]!, high: series.high[j]!, low: series.low[j]!, close: series.open[j]!, count: series.count[j]! };
}

/** Offsets in the minute where the walk passes open, first extreme, second extreme and close. */
export const WALK_KEYS_MS = [0, 20_000, 40_000, 55_000] as const;

/** The four prices of the walk: the extreme nearer the open comes first. */
export function walkKeys(bar: Bar): [number, number, number, number] {
  const highFirst = bar.high - bar.open <= bar.open - bar.low;
  return highFirst ? [bar.open, bar.high, bar.low, bar.close] : [bar.open, bar.low, bar.high, bar.close];
}

/** The walk's price `offsetMs` into the minute: straight lines between the keys, the close after 55 s. */
export function walkValue(bar: Bar, offsetMs: number): number {
  return walkAt(walkKeys(bar), offsetMs);
}

/** `walkValue` from precomputed keys (the history backfill samples millions of instants). */
export function walkAt(keys: readonly [number, number, number, number], offsetMs: number): number {
  if (offsetMs <= 0) return keys[0];
  if (offsetMs >= WALK_KEYS_MS[3]) return keys[3];
  const i = offsetMs <= WALK_KEYS_MS[1] ? 1 : offsetMs <= WALK_KEYS_MS[2] ? 2 : 3;
  const from = WALK_KEYS_MS[i - 1]!;
  const to = WALK_KEYS_MS[i]!;
  return keys[i - 1]! + (keys[i]! - keys[i - 1]!) * ((offsetMs - from) / (to - from));
}

/** Index of the last bar opening at or before `t`, −1 when none does. Binary search: a series holds ~50,000 bars. */
export function lastBarAtOrBefore(times: Float64Array, t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Index of the first bar opening at or after `t` (the series' length when none does). */
export function firstBarAtOrAfter(times: Float64Array, t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
