import { CHART_MAX_LIMIT } from '@pipdesk/contract';
import { MINUTE_MS, type ScaledCandle } from './candles.js';

/**
 * A candle whose bucket ended this long ago no longer changes: its minutes have left every
 * node's memory (LiveCandles keeps ten minutes) and the writer has stored them and their
 * aggregates in one transaction (docs/charting.md#the-settled-part-in-memory).
 */
export const SETTLED_AFTER_MS = 10 * MINUTE_MS;

/** Reads stored candles of a pair and timeframe, oldest first: `[from, before)`, or the `newest` before `before`. */
export type StoredCandleReader = (
  pairId: number,
  tf: number,
  window: { from?: number; before: number; newest?: number },
) => Promise<ScaledCandle[]>;

/**
 * A full read at least this often: a candle written late (the writer retrying after a database
 * outage, a new leader writing minutes the old one never did) shows within a minute on every node.
 */
export const SETTLED_REREAD_MS = MINUTE_MS;

interface Entry {
  /** Every stored candle before this is settled; `candles` are the newest of them. */
  edge: number;
  /** When the entry was last read in full. */
  readAt: number;
  /** At most CHART_MAX_LIMIT, oldest first, frozen (answers share them). */
  candles: readonly ScaledCandle[];
}

/**
 * The newest settled candles of each pair and timeframe, in memory, so a chart's first page
 * (the hot read: every pair page and timeframe switch) reads one short range of the database
 * instead of a thousand rows. When the edge moves on, only the candles between the old edge
 * and the new one are read and appended, and the whole is read again once a minute. Bound: active pairs × 7 timeframes × CHART_MAX_LIMIT
 * candles (docs/operations.md#memory).
 */
export class SettledCandles {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry>>();

  constructor(
    private readonly read: StoredCandleReader,
    private readonly now: () => number,
    private readonly max = CHART_MAX_LIMIT,
  ) {}

  /** The `limit` (≤ CHART_MAX_LIMIT) newest stored candles of `tf` minutes before `edge`, oldest first. */
  async newest(pairId: number, tf: number, edge: number, limit: number): Promise<readonly ScaledCandle[]> {
    const key = `${pairId}:${tf}`;
    let entry = this.entries.get(key);
    if (entry?.edge !== edge || this.now() - entry.readAt >= SETTLED_REREAD_MS) entry = await this.refresh(key, pairId, tf, edge);
    return entry.candles.length <= limit ? entry.candles : entry.candles.slice(-limit);
  }

  /** Forgets everything (stored candles were rewritten or deleted outside the writer). */
  clear(): void {
    this.entries.clear();
  }

  private refresh(key: string, pairId: number, tf: number, edge: number): Promise<Entry> {
    const loadKey = `${key}:${edge}`;
    let loading = this.loading.get(loadKey);
    if (!loading) {
      const previous = this.entries.get(key);
      const fresh = previous && this.now() - previous.readAt < SETTLED_REREAD_MS ? previous : undefined;
      loading = this.load(pairId, tf, edge, fresh)
        .then((entry) => {
          // A slower load of an older edge never replaces a newer one.
          const current = this.entries.get(key);
          if (!current || current.edge < entry.edge || (current.edge === entry.edge && current.readAt <= entry.readAt))
            this.entries.set(key, entry);
          return entry;
        })
        .finally(() => this.loading.delete(loadKey));
      this.loading.set(loadKey, loading);
    }
    return loading;
  }

  private async load(pairId: number, tf: number, edge: number, previous: Entry | undefined): Promise<Entry> {
    if (previous && previous.edge < edge) {
      // Only what settled since: the older candles cannot have changed.
      const added = await this.read(pairId, tf, { from: previous.edge, before: edge });
      const merged = [...previous.candles, ...added.map(frozen)];
      return { edge, readAt: previous.readAt, candles: merged.length > this.max ? merged.slice(-this.max) : merged };
    }
    const readAt = this.now();
    const rows = await this.read(pairId, tf, { before: edge, newest: this.max });
    return { edge, readAt, candles: rows.map(frozen) };
  }
}

const frozen = (c: ScaledCandle): ScaledCandle => Object.freeze(c);
