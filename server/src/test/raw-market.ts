import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ScaledCandle } from '../market/candles.js';
import { toScaled } from '../market/quotes.js';
import { loadReplayData, REPLAY_DIR } from '../market/replay-data.js';

/** One row of the shipped real data, read as text without the server's parser. */
export interface RawBar {
  /** "2023-04-03 12:01:00", as the file writes it. */
  dtime: string;
  open: number;
  high: number;
  low: number;
  close: number;
  count: number;
}

/**
 * The shipped real minutes of `symbol` (server/data/replay/README.md), read with split() and
 * Number() so tests compare the server's parser with something that shares none of its code.
 * Like the server, it drops a row whose time text is not after the last kept row's (a repeated
 * bar) and one with a price that is not positive.
 */
export function readRawMinutes(symbol: string): RawBar[] {
  const text = gunzipSync(readFileSync(path.join(REPLAY_DIR, `${symbol}.m1.csv.gz`))).toString('utf8');
  let latest = '';
  return text
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [dtime, , open, high, low, close, , , count] = line.split(',');
      return {
        dtime: dtime!,
        open: Number(open),
        high: Number(high),
        low: Number(low),
        close: Number(close),
        count: Number(count),
      };
    })
    .filter((r) => r.open > 0 && r.high > 0 && r.low > 0 && r.close > 0)
    .filter((r) => {
      if (r.dtime <= latest) return false;
      latest = r.dtime;
      return true;
    });
}

/** The same minutes as the server's parser loads them, as scaled candles (volume = trade count). */
export function parsedMinutes(symbol: string): ScaledCandle[] {
  const s = loadReplayData().get(symbol)!;
  return Array.from({ length: s.length }, (_, i) => ({
    time: s.times[i]!,
    open: toScaled(s.open[i]!),
    high: toScaled(s.high[i]!),
    low: toScaled(s.low[i]!),
    close: toScaled(s.close[i]!),
    volume: s.count[i]!,
  }));
}
