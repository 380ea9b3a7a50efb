import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MINUTE_MS, type ScaledCandle } from './candles.js';
import { SETTLED_REREAD_MS, SettledCandles, type StoredCandleReader } from './settled-candles.js';

const HOUR = 60 * MINUTE_MS;
const T0 = Date.UTC(2026, 2, 10);

/** A table of stored h1 candles and a reader over it that counts the rows it returns. */
function storedHours(count: number) {
  const rows: ScaledCandle[] = Array.from({ length: count }, (_, i) => ({
    time: T0 + i * HOUR,
    open: 1_000_000 + i,
    high: 1_000_100 + i,
    low: 999_900 + i,
    close: 1_000_050 + i,
    volume: i,
  }));
  const reads: Array<{ from?: number; before: number; newest?: number; rows: number }> = [];
  const read: StoredCandleReader = async (_pair, _tf, window) => {
    const inWindow = rows.filter((r) => (window.from === undefined || r.time >= window.from) && r.time < window.before);
    const answer = (window.newest === undefined ? inWindow : inWindow.slice(-window.newest)).map((r) => ({ ...r }));
    reads.push({ ...window, rows: answer.length });
    return answer;
  };
  const direct = (before: number, limit: number) => rows.filter((r) => r.time < before).slice(-limit);
  return { rows, reads, read, direct };
}

describe('the settled candles kept in memory', () => {
  it('answers what the database holds for any edge and limit, as the edge moves forward and back (property)', async () => {
    const seed = Number(process.env.SETTLED_SEED ?? Date.now() % 2 ** 31);
    console.log(`settled candles property seed ${seed} (replay with SETTLED_SEED=${seed})`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ edgeHour: fc.integer({ min: 0, max: 3000 }), limit: fc.integer({ min: 1, max: 1000 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        async (steps) => {
          const stored = storedHours(2500);
          let now = T0;
          const cache = new SettledCandles(stored.read, () => now);
          for (const { edgeHour, limit } of steps) {
            now += MINUTE_MS / 4;
            const edge = T0 + edgeHour * HOUR;
            expect(await cache.newest(1, 60, edge, limit)).toEqual(stored.direct(edge, limit));
          }
        },
      ),
      { seed, numRuns: 60 },
    );
  });

  it('reads the database once for the same edge, and only the candles that settled since when it moves on', async () => {
    const stored = storedHours(2000);
    const cache = new SettledCandles(stored.read, () => T0);
    const edge = T0 + 1500 * HOUR;
    const [a, b] = await Promise.all([cache.newest(1, 60, edge, 1000), cache.newest(1, 60, edge, 300)]);
    expect(a).toHaveLength(1000);
    expect(b).toEqual(a.slice(-300));
    await cache.newest(1, 60, edge, 1000);
    expect(stored.reads).toEqual([{ before: edge, newest: 1000, rows: 1000 }]);

    await cache.newest(1, 60, edge + 2 * HOUR, 1000);
    expect(stored.reads.at(-1)).toEqual({ from: edge, before: edge + 2 * HOUR, rows: 2 });
    expect(await cache.newest(1, 60, edge + 2 * HOUR, 1000)).toEqual(stored.direct(edge + 2 * HOUR, 1000));
    expect(stored.reads).toHaveLength(2);
  });

  it('shows a candle written late (or removed) once the minute since the last full read has passed', async () => {
    const stored = storedHours(100);
    let now = T0;
    const cache = new SettledCandles(stored.read, () => now);
    const edge = T0 + 100 * HOUR;
    expect(await cache.newest(1, 60, edge, 1000)).toHaveLength(100);
    stored.rows.splice(40, 1);
    now += SETTLED_REREAD_MS - 1;
    expect(await cache.newest(1, 60, edge, 1000)).toHaveLength(100);
    now += 1;
    expect(await cache.newest(1, 60, edge, 1000)).toEqual(stored.direct(edge, 1000));
    expect(stored.reads.at(-1)).toEqual({ before: edge, newest: 1000, rows: 99 });
  });

  it('hands out candles no caller can change', async () => {
    const stored = storedHours(10);
    const cache = new SettledCandles(stored.read, () => T0);
    const [first] = await cache.newest(1, 60, T0 + 10 * HOUR, 10);
    expect(() => {
      (first as ScaledCandle).close = 0;
    }).toThrow(TypeError);
  });
});
