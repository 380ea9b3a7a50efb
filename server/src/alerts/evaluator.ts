import type { ArmedAlertState } from '@pipdesk/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import { LeaderLoad, type LeaderMode } from '../core/leader-load.js';
import type { Db } from '../db/database.js';
import type { PairCatalog, PriceBook, Quote } from '../market/index.js';
import type { Bus } from '../realtime/bus.js';
import { AlertBook, type FiredAlert } from './book.js';
import { alertDto } from './presenter.js';
import * as repo from './repo.js';
import {
  ALERT_CHANGE_TOPIC,
  ALERT_UPDATE_TOPIC,
  type AlertChangePayload,
  type AlertRow,
  armedStateOf,
  type FireGroup,
} from './types.js';

// The runtime of price alerts (docs/charting.md#alerts): on the price-source leader, the book is
// loaded from the database, follows the bus, and is fed every tick; what fires or expires is
// written in batches off the tick path, and the written alerts go out on the bus, from which
// every node tells the trader's sockets. A follower holds no book: it loads one when it leads.

export interface AlertEvaluatorDeps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: FastifyBaseLogger;
  market: { pairs: PairCatalog; prices: PriceBook; isLeader(): boolean };
}

export interface AlertEvaluatorOptions {
  /** How often expiries, retries and leadership are checked without a tick (ms). */
  checkEveryMs: number;
  /** A failed write is tried again after this long (ms). */
  retryAfterMs: number;
}

export const defaultEvaluatorOptions: AlertEvaluatorOptions = { checkEveryMs: 250, retryAfterMs: 1_000 };

type Fire = FiredAlert & { at: number };
/** An expiry decided at `at`: its write expires it only if still due then (a PATCH may have moved it). */
type Expiry = { state: ArmedAlertState; at: number };

export class AlertEvaluator {
  private readonly book: AlertBook;
  private readonly leadership: LeaderLoad<AlertChangePayload, Awaited<ReturnType<typeof repo.loadActiveAlerts>>>;
  private fires: Fire[] = [];
  private expiries: Expiry[] = [];
  /** Writes that failed, with when to try them again. */
  private retry: { at: number; fires: Fire[]; expiries: Expiry[] } | null = null;
  private writing: Promise<void> | undefined;
  private scheduled = false;
  private readonly unsubscribers: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly deps: AlertEvaluatorDeps,
    private readonly options: AlertEvaluatorOptions = defaultEvaluatorOptions,
  ) {
    this.book = new AlertBook(deps.market.pairs.list());
    // Read from the market on every tick and timer: alerts are evaluated exactly where the price source runs, as pending orders are.
    this.leadership = new LeaderLoad({
      name: 'alerts',
      contents: 'the active alerts',
      isLeader: () => deps.market.isLeader(),
      now: () => deps.clock.now(),
      log: deps.log,
      retryAfterMs: options.retryAfterMs,
      read: () => repo.loadActiveAlerts(deps.db),
      install: (rows) => {
        this.book.load(rows.map(armedStateOf));
        return { alerts: rows.length };
      },
      apply: (change) => this.apply(change),
      // The next leader loads from the database; what this one held or queued is its to fire.
      lost: () => {
        this.fires = [];
        this.expiries = [];
        this.retry = null;
        this.book.clear();
      },
    });
  }

  private get mode(): LeaderMode {
    return this.leadership.mode;
  }

  /** Follows the bus and ticks; on the leader, loads the book before it returns (and so before its first tick). */
  async start(): Promise<void> {
    const { bus, market } = this.deps;
    this.unsubscribers.push(
      bus.subscribe('message', (message) => {
        if (message.topic === ALERT_CHANGE_TOPIC) this.onChange(message.payload);
        // Written by some node: never armed again here (a second node that believed it led).
        else if (message.topic === ALERT_UPDATE_TOPIC) for (const u of message.payload.updates) this.book.remove(u.alert.id);
      }),
      bus.subscribe('resync', () => this.resync()),
      market.prices.onTick((quote) => this.onTick(quote)),
    );
    this.timer = setInterval(() => this.onTimer(), this.options.checkEveryMs);
    this.timer.unref();
    this.leadership.check();
    await this.leadership.settled;
  }

  /** Stops following ticks and the bus, and writes what already fired or expired (the next leader fires the rest on its ticks). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
    if (this.timer) clearInterval(this.timer);
    await this.leadership.halt();
    await this.idle();
    this.leadership.rest();
  }

  /** Resolves once nothing is queued or being written (tests, the benchmark). */
  async idle(): Promise<void> {
    while (this.writing || this.scheduled || (this.mode === 'leading' && (this.fires.length > 0 || this.expiries.length > 0))) {
      if (!this.writing && !this.scheduled) this.schedule();
      await (this.writing ?? new Promise((r) => setImmediate(r)));
    }
  }

  status(): { mode: LeaderMode; alerts: number } {
    return { mode: this.mode, alerts: this.book.size };
  }

  /** After a bus outage the changes it hid are lost: a leader reloads from the database (docs/operations.md#redis-outages-and-leadership). */
  resync(): void {
    if (this.stopped || this.mode === 'follower') return;
    void this.idle().then(() => {
      if (!this.stopped) this.leadership.reload();
    });
  }

  // ------------------------------------------------------------------ inputs

  private onChange(change: AlertChangePayload): void {
    if (this.mode === 'follower') return; // no book here; a new leader loads everything
    if (!this.leadership.buffer(change)) this.apply(change);
  }

  private apply(change: AlertChangePayload): void {
    if (change.kind === 'armed') this.book.upsert(change.alert);
    else if (change.kind === 'gone') this.book.remove(change.alertId);
    else this.deps.log.warn({ change }, 'alerts: unknown change on the bus');
  }

  /** The hot path: four heap peeks per tick when nothing fires; never awaits anything. */
  private onTick(quote: Quote): void {
    this.leadership.check();
    if (this.mode !== 'leading') return;
    // A tick's own time counts too: an alert never fires on a tick at or after its expiry.
    this.expireDue(Math.max(this.deps.clock.now(), quote.timestamp));
    const fired = this.book.onTick(quote);
    if (fired.length === 0) return;
    for (const f of fired) this.fires.push({ state: f.state, priceE10: f.priceE10, at: quote.timestamp });
    this.schedule();
  }

  private onTimer(): void {
    this.leadership.check();
    if (this.mode !== 'leading') return;
    if (this.retry && this.retry.at <= this.deps.clock.now()) {
      this.fires.push(...this.retry.fires);
      this.expiries.push(...this.retry.expiries);
      this.retry = null;
      this.schedule();
    }
    this.expireDue(this.deps.clock.now());
  }

  /** One peek when nothing is due. */
  private expireDue(now: number): void {
    const next = this.book.nextExpiry();
    if (next === undefined || next > now) return;
    for (const state of this.book.expireDue(now)) this.expiries.push({ state, at: now });
    this.schedule();
  }

  // ------------------------------------------------------------------ writes

  /** One write at a time, started on the next turn: every tick fired meanwhile joins it. */
  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.write();
    });
  }

  private write(): void {
    if (this.writing || (this.fires.length === 0 && this.expiries.length === 0)) return;
    const fires = this.fires;
    const expiries = this.expiries;
    this.fires = [];
    this.expiries = [];
    const generation = this.leadership.term;
    this.writing = this.record(fires, expiries, generation).finally(() => {
      this.writing = undefined;
      if (this.fires.length > 0 || this.expiries.length > 0) this.schedule();
    });
  }

  private async record(fires: Fire[], expiries: Expiry[], generation: number): Promise<void> {
    let written: AlertRow[] = [];
    const failed: { fires: Fire[]; expiries: Expiry[] } = { fires: [], expiries: [] };
    if (fires.length > 0) {
      try {
        const rows = await repo.fireAlerts(this.deps.db, groupFires(fires));
        this.settle(
          fires.map((f) => f.state.id),
          rows,
          generation,
        );
        written = rows;
      } catch (err) {
        this.deps.log.error({ err, alerts: fires.length }, 'alerts: recording fired alerts failed; retrying');
        failed.fires = fires;
      }
    }
    if (expiries.length > 0) {
      try {
        const ids = expiries.map((e) => e.state.id);
        const rows = await repo.expireAlerts(
          this.deps.db,
          ids,
          expiries.reduce((latest, e) => Math.max(latest, e.at), 0),
        );
        this.settle(ids, rows, generation);
        written = written.concat(rows);
      } catch (err) {
        this.deps.log.error({ err, alerts: expiries.length }, 'alerts: expiring alerts failed; retrying');
        failed.expiries = expiries;
      }
    }
    if ((failed.fires.length > 0 || failed.expiries.length > 0) && generation === this.leadership.term && !this.stopped)
      this.retry = { at: this.deps.clock.now() + this.options.retryAfterMs, fires: failed.fires, expiries: failed.expiries };
    if (written.length > 0) this.announce(written);
  }

  /** Written ones leave the book; the others (changed or deleted meanwhile) are armed again with their newest state. */
  private settle(ids: number[], rows: AlertRow[], generation: number): void {
    if (generation !== this.leadership.term) return;
    const recorded = new Set(rows.map((r) => r.id));
    for (const id of ids) this.book.settle(id, recorded.has(id));
  }

  /** One bus message per batch: every node sends `alert_update` to the traders' sockets it holds. */
  private announce(rows: AlertRow[]): void {
    const { pairs } = this.deps.market;
    const updates = rows.map((row) => ({ userId: row.user_id, alert: alertDto(row, pairs.get(row.symbol)?.digits ?? 5) }));
    try {
      this.deps.bus.publish('message', { topic: ALERT_UPDATE_TOPIC, payload: { updates } });
    } catch (err) {
      // Recorded already: the alert shows as TRIGGERED on the trader's next visit.
      this.deps.log.warn({ err, alerts: rows.length }, 'alerts: announcing fired alerts failed');
    }
  }
}

/** Alerts of one condition fired by one tick share its price and time: one guarded statement writes them. */
export function groupFires(fires: readonly Fire[]): FireGroup[] {
  const groups = new Map<string, FireGroup>();
  for (const { state, priceE10, at } of fires) {
    const key = `${state.condition}|${priceE10}|${at}`;
    let group = groups.get(key);
    if (!group) {
      group = { ids: [], condition: state.condition, priceE10, at };
      groups.set(key, group);
    }
    group.ids.push(state.id);
  }
  return [...groups.values()];
}
