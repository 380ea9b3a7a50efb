import {
  Dec,
  parseReplayTime,
  REPLAY_DEFAULT_BALANCE,
  REPLAY_DEFAULT_LEVERAGE,
  type ReplayCreateRequest,
  type ReplayDetailDto,
  type ReplayDto,
  type ReplaySpeed,
} from '@pipdesk/contract';
import { closeAccount, openExtraAccount } from '../accounts/index.js';
import type { AppContext } from '../core/context.js';
import { writeTransaction } from '../db/transaction.js';
import { errors } from '../errors.js';
import { type AccountMarketView, type BarSeries, type PairCatalog, seriesCandlesAt } from '../market/index.js';
import type { AccountMarkets, BoundAccountMarket, TradingServiceImpl } from '../trading/index.js';
import { checkReplayStart, dataRange, replayProblemMessage } from './data-range.js';
import * as repo from './repo.js';
import { SessionMarket } from './session-market.js';
import { SessionPriceBook } from './session-prices.js';
import type { StoredReplayStatus } from './tables.js';
import type { DataRange } from './types.js';

const MINUTE_MS = 60_000;
/** How often the play loop turns (real ms); each turn moves the sessions of one slot. */
export const PLAY_TURN_MS = 50;
/**
 * The slots a session falls in by its id: each session moves at one turn in `PLAY_SLOTS`, so the
 * sessions' moves are spread over the period rather than all at one instant, and a session's
 * ticks reach its socket after its own move, not after everyone's (docs/replay.md#playing).
 */
export const PLAY_SLOTS = 6;
/**
 * How often a playing session moves (real ms): a little longer than the trading socket's price
 * pacing (a quarter second), so each move's ticks find its account's fan-out quiet and go out at
 * once instead of waiting for the next pacing window (bench/README.md, replay).
 */
export const PLAY_EVERY_MS = PLAY_TURN_MS * PLAY_SLOTS;
/**
 * How long a playing session waits, unmoved, for a trading socket of its account before it is
 * paused (docs/replay.md#playing): a reconnect or a play pressed as the page opens is not a leave.
 */
export const PAUSE_UNWATCHED_MS = 5_000;
/**
 * How long a node's lease of a session lasts (real ms, docs/replay.md#many-nodes): the play loop
 * renews it at every move, a control takes it for its move; a node that stops answering loses its
 * sessions to another node this long after its last renewal.
 */
export const LEASE_MS = 2_000;
/** How often a control waiting for another node's move asks for the lease again (real ms); it waits at most `LEASE_MS`. */
const LEASE_RETRY_MS = 50;

export interface ReplayDeps {
  ctx: Pick<AppContext, 'db' | 'clock' | 'log'>;
  pairs: PairCatalog;
  /** Every pair's real series (parsed once per process). */
  data: ReadonlyMap<string, BarSeries>;
  trading: Pick<TradingServiceImpl, 'markets' | 'accountPerformance'>;
  /** This node's id, unique among the running nodes: the holder of a session's lease (docs/replay.md#many-nodes). */
  nodeId: string;
}

/** A session this node holds: its market, bound to its practice account. */
interface Held {
  id: number;
  userId: number;
  accountId: number;
  startAt: number;
  createdAt: number;
  status: StoredReplayStatus;
  speed: number;
  market: SessionMarket;
  bound: BoundAccountMarket;
  /** The controls and the play loop of one session run one after another. */
  queue: Promise<unknown>;
  /** Real time the play loop last advanced it (or found it unwatched: that time is not played). */
  playedAt: number;
  /** Real time since which no trading socket of this node has served its account while it plays. */
  unwatchedSince: number | undefined;
  /**
   * Real time until which this node holds the session's lease (0: it does not): while it does, no
   * other node moves the session and this copy is the truth, ahead of the row by at most a move.
   */
  leaseUntil: number;
  /** The row's `revision` this copy's account was loaded at, with this node's own changes since. */
  revision: number;
  /** This node's changes being counted, one after another (a check waits for them). */
  counting: Promise<void>;
}

/**
 * Replay sessions (DESIGN §19, docs/replay.md#sessions-and-their-calls): stored in
 * `replay_sessions`, each bound to its practice account's own market (trading's
 * `AccountMarkets`), moved by the controls and the play loop. Every move plays every tick in
 * between through the account's trigger book and then writes the clock, so a restart resumes
 * exactly there.
 */
export class ReplaySessions {
  private readonly held = new Map<number, Held>();
  /** The same sessions by their practice account. */
  private readonly heldByAccount = new Map<number, Held>();
  private readonly loading = new Map<number, Promise<Held>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Turns of the play loop so far (which slot moves). */
  private turns = 0;
  /** The loop turns' clock writes under way (the shutdown waits for them). */
  private readonly writing = new Set<Promise<void>>();

  constructor(private readonly deps: ReplayDeps) {
    // A practice account this node has not bound yet is bound to its session on first use.
    deps.trading.markets.setLoader(async (accountId) => {
      const row = await repo.sessionOfAccount(deps.ctx.db.kysely, accountId);
      if (row) await this.hold(row);
    });
    // Before a call on a practice account uses this node's copy, the copy is checked against the row.
    deps.trading.markets.setRefresher({
      refresh: (accountId) => this.refreshAccount(accountId),
      changed: (accountId) => this.accountChanged(accountId),
    });
  }

  private get markets(): AccountMarkets {
    return this.deps.trading.markets;
  }

  /** Pauses what the last run left playing and starts the play loop. */
  async start(): Promise<void> {
    const paused = await repo.pauseAllPlaying(this.deps.ctx.db.kysely, this.deps.ctx.clock.now());
    if (paused > 0) this.deps.ctx.log.info({ sessions: paused }, 'replay: sessions left playing are paused');
    this.timer = setInterval(() => this.playDue(), PLAY_TURN_MS);
    this.timer.unref();
  }

  /**
   * Stops the play loop, waits for the moves under way (their clocks are written) and releases
   * this node's leases, so another node may move its sessions at once.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.held.values()].map((h) => h.queue));
    await Promise.allSettled([...this.writing]);
    try {
      await repo.releaseLeases(this.deps.ctx.db.kysely, this.deps.nodeId);
    } catch (err) {
      // They expire by themselves after LEASE_MS.
      this.deps.ctx.log.warn({ err }, 'replay: releasing the leases failed');
    }
    for (const held of this.held.values()) held.leaseUntil = 0;
  }

  // ------------------------------------------------------------------ the calls

  async create(userId: number, body: ReplayCreateRequest): Promise<ReplayDto> {
    const { ctx, data, pairs } = this.deps;
    const symbols = [...body.symbols].sort();
    const start = parseReplayTime(body.start);
    const problem = checkReplayStart(data, symbols, start);
    if (problem) throw errors.validation(replayProblemMessage(problem));
    for (const s of symbols) if (!pairs.get(s)?.isActive) throw errors.validation(`symbols: ${s} is not a tradable pair`);
    const now = ctx.clock.now();
    const balanceMinor = Dec.from(body.initial_balance ?? REPLAY_DEFAULT_BALANCE).toScaledNumber(2);
    const leverage = body.leverage ?? REPLAY_DEFAULT_LEVERAGE;
    const created = await writeTransaction(ctx.db, async (trx) => {
      const opened = await openExtraAccount(trx, {
        userId,
        kind: 'practice',
        name: `Replay ${symbols.join(' ')} ${new Date(start).toISOString().slice(0, 16).replace('T', ' ')}`,
        balanceMinor,
        leverage,
        // The account lives in its session's time from its first moment: its statistics' period and equity curve start there.
        now: start,
      });
      if (!opened) return undefined;
      const id = await repo.insertSession(trx, {
        user_id: userId,
        account_id: opened.accountId,
        symbols: symbols.join(','),
        start_at: start,
        clock: start,
        speed: 1,
        status: 'paused',
        created_at: now,
        updated_at: now,
      });
      return { id, accountId: opened.accountId };
    });
    if (!created) throw errors.noTradingAccount();
    const row = await repo.findOwnSession(ctx.db.kysely, userId, created.id);
    if (!row) throw errors.replayNotFound();
    return this.dto(await this.hold(row));
  }

  async list(userId: number): Promise<ReplayDto[]> {
    const rows = await repo.sessionsOfUser(this.deps.ctx.db.kysely, userId);
    // A session this node moves is shown as held (its clock may be ahead of the row by a move under way); any other as stored.
    const now = this.deps.ctx.clock.now();
    return rows.map((row) => {
      const held = this.held.get(Number(row.id));
      return held && held.leaseUntil > now ? this.dto(held) : rowDto(row, this.rangeOf(row.symbols.split(',')));
    });
  }

  /** A student's sessions for their instructors (the caller's scope is checked by the route), each with its statistics. */
  async ofStudent(studentId: number): Promise<ReplayDetailDto[]> {
    const rows = await repo.sessionsOfUser(this.deps.ctx.db.kysely, studentId);
    const answers: ReplayDetailDto[] = [];
    for (const row of rows) {
      const held = await this.hold(row);
      await this.run(held, () => this.sync(held));
      answers.push({
        replay: this.dto(held),
        performance: await this.deps.trading.accountPerformance(studentId, held.accountId),
      });
    }
    return answers;
  }

  async get(userId: number, id: number): Promise<ReplayDetailDto> {
    const held = await this.own(userId, id);
    await this.run(held, () => this.sync(held));
    const performance = await this.deps.trading.accountPerformance(userId, held.accountId);
    return { replay: this.dto(held), performance };
  }

  /** Ends the session: it stops, its account is closed (its history stays), and the calls no longer show it. */
  async remove(userId: number, id: number): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return this.run(held, async () => {
      const { ctx } = this.deps;
      // Another node playing it stops at its next turn and gives the lease up.
      await repo.setPlaying(ctx.db.kysely, held.id, { status: 'paused', speed: held.speed, updatedAt: ctx.clock.now() });
      await this.takeLease(held, true);
      const now = ctx.clock.now();
      const shown = this.dto(held);
      await writeTransaction(ctx.db, async (trx) => {
        await repo.saveSession(trx, held.id, { clock: held.market.clock, status: 'deleted', speed: held.speed, updatedAt: now });
        await closeAccount(trx, held.accountId, now);
      });
      held.status = 'deleted';
      await this.releaseLease(held);
      return shown;
    });
  }

  async play(userId: number, id: number, speed: ReplaySpeed): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return this.run(held, async () => {
      await this.sync(held);
      if (held.market.finished) throw errors.replayFinished();
      // Moves no clock, so it needs no lease: whichever node's socket watches the session plays it (docs/replay.md#many-nodes).
      const { ctx } = this.deps;
      const stored = await repo.setPlaying(ctx.db.kysely, held.id, { status: 'playing', speed, updatedAt: ctx.clock.now() });
      if (!stored) throw errors.replayNotFound();
      await this.sync(held, stored);
      held.unwatchedSince = undefined;
      return this.dto(held);
    });
  }

  async pause(userId: number, id: number): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return this.run(held, async () => {
      // Another node that plays it stops at its next turn (it renews only the leases of playing sessions).
      const { ctx } = this.deps;
      const stored = await repo.setPlaying(ctx.db.kysely, held.id, {
        status: 'paused',
        speed: held.speed,
        updatedAt: ctx.clock.now(),
      });
      await this.sync(held, stored);
      return this.dto(held);
    });
  }

  async step(userId: number, id: number, minutes: number): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return this.run(held, async () => {
      await this.takeLease(held, false);
      try {
        if (held.market.finished) throw errors.replayFinished();
        await this.advance(held, Math.min(held.market.clock + minutes * MINUTE_MS, held.market.range.to));
        return this.dto(held);
      } finally {
        await this.releaseUnlessPlaying(held);
      }
    });
  }

  async seek(userId: number, id: number, to: string): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    const target = parseReplayTime(to);
    return this.run(held, async () => {
      await this.takeLease(held, false);
      try {
        const { range, clock } = held.market;
        if (held.market.finished) throw errors.replayFinished();
        if (!(target >= clock)) throw errors.validation(`to: a seek goes forward only; the session's clock is ${iso(clock)}`);
        if (target > range.to) {
          throw errors.validation(`to: the data of these pairs runs from ${iso(range.from)} to ${iso(range.to)}`);
        }
        await this.advance(held, target);
        return this.dto(held);
      } finally {
        await this.releaseUnlessPlaying(held);
      }
    });
  }

  /**
   * The session's market as the market calls show it to its practice account (`?account=`,
   * docs/replay.md#the-accounts-market): its quotes at its clock, and candles of the real minutes
   * up to its clock, the newest cut where the clock stands. Undefined for an account on the live
   * market: trading's `AccountMarkets` remembers those, so a live account costs one read per node.
   */
  async marketView(accountId: number): Promise<AccountMarketView | undefined> {
    if (!(await this.markets.marketOf(accountId))) return undefined;
    const held = this.heldByAccount.get(accountId);
    if (!held) return undefined;
    const { data } = this.deps;
    return {
      quote: (symbol) => held.bound.quote(symbol),
      candles: (pair, timeframeMinutes, window) => {
        const series = data.get(pair.symbol);
        // A pair without a file has no history to show, only its conversion quote.
        return series ? seriesCandlesAt(series, held.market.clock, timeframeMinutes, window) : [];
      },
    };
  }

  // ------------------------------------------------------------------ moving the clock

  /**
   * Plays every tick up to `until` through the account's trigger book, one at a time, each
   * trigger awaited before the next tick (so a step or a seek fills exactly where playing would),
   * then writes the clock: a restart resumes there (docs/replay.md#the-clock). A move of the play
   * loop (`byLoop`) leaves the clock to its turn's one write, unless the session finished.
   */
  private async advance(held: Held, until: number, byLoop = false): Promise<void> {
    const { market, bound } = held;
    try {
      let played = 0;
      for (let quote = market.next(until); quote !== undefined; quote = market.next(until)) {
        await bound.tick(quote);
        // A long step (a month of four pairs is 100,000 ticks) keeps its lease while it lasts.
        if (++played % 4_096 === 0) await this.renewLease(held);
      }
      market.advanceTo(until);
      await bound.flush();
    } finally {
      if (market.finished && held.status !== 'deleted') held.status = 'finished';
      if (!byLoop || held.status !== 'playing') await this.save(held);
    }
  }

  /**
   * The play loop: each playing session moves at its slot's turn (every `PLAY_EVERY_MS`) by its
   * speed × the real time since its last move, only while a trading socket of this node serves its account (DESIGN §19 "Scale"); one that
   * nobody has watched for `PAUSE_UNWATCHED_MS` is paused, and that is saved
   * (docs/replay.md#playing).
   */
  private playDue(): void {
    if (this.stopped) return;
    const now = this.deps.ctx.clock.now();
    const slot = this.turns++ % PLAY_SLOTS;
    const watched: Held[] = [];
    for (const held of this.held.values()) {
      if (held.status === 'deleted' || held.id % PLAY_SLOTS !== slot) continue;
      if (this.markets.watched(held.accountId)) {
        watched.push(held);
        continue;
      }
      if (held.status !== 'playing') continue;
      // Unwatched time is not played: nothing jumps when the trader comes back.
      held.playedAt = now;
      held.unwatchedSince ??= now;
      if (now - held.unwatchedSince >= PAUSE_UNWATCHED_MS) this.pauseUnwatched(held);
    }
    if (watched.length > 0) this.turn(watched, now);
  }

  /**
   * One turn of the sessions a socket of this node watches: their leases are taken or renewed in
   * one statement (only those playing and not moved by another node, whose status and speed this
   * node learns from it), each moves by its speed × the real time since its last move, and their
   * clocks are written in one statement (docs/replay.md#many-nodes).
   */
  private turn(watched: Held[], now: number): void {
    const until = now + LEASE_MS;
    const { db } = this.deps.ctx;
    const moves = repo
      .takePlayingLeases(
        db.kysely,
        watched.map((h) => h.id),
        this.deps.nodeId,
        now,
        until,
      )
      .then((leased) => {
        const byId = new Map(leased.map((s) => [s.id, s]));
        return watched.map((held) => {
          const stored = byId.get(held.id);
          if (!stored) return this.notMoving(held);
          held.leaseUntil = until;
          held.unwatchedSince = undefined;
          held.speed = stored.speed;
          if (held.status !== 'playing') {
            // Played from another node: it moves from the next turn on, nothing jumps.
            held.status = 'playing';
            held.playedAt = now;
          }
          const elapsed = now - held.playedAt;
          if (elapsed <= 0) return Promise.resolve(undefined);
          held.playedAt = now;
          return this.run(held, async () => {
            // Paused, deleted or given up while this move waited in the queue.
            if (held.status !== 'playing' || this.stopped || held.leaseUntil <= this.deps.ctx.clock.now()) return undefined;
            try {
              // Another node moved it before this one took the lease: this copy catches up first.
              await held.counting;
              if (behind(held, stored)) await this.rebuild(held, stored);
              await this.advance(held, Math.min(held.market.clock + elapsed * held.speed, held.market.range.to), true);
            } catch (err) {
              this.deps.ctx.log.error({ err, replay: held.id }, 'replay: playing a session failed');
            }
            // Where the move stopped, even part way: every tick up to it has been played.
            return held.status === 'playing' ? { id: held.id, clock: held.market.clock } : undefined;
          });
        });
      });
    this.writeTurn(moves, now);
  }

  /**
   * A watched session this turn does not move: paused (here or on another node) or moved by
   * another node. A lease this node held is given up at once, so the other node's control need not
   * wait for it to expire.
   */
  private notMoving(held: Held): Promise<undefined> {
    if (held.status === 'playing') {
      // What the row says is learnt at the next call that syncs; until then the loop asks the row each turn.
      held.status = 'paused';
    }
    if (held.leaseUntil === 0) return Promise.resolve(undefined);
    return this.run(held, async () => {
      if (held.leaseUntil === 0) return undefined;
      held.leaseUntil = 0;
      await repo.releaseLease(this.deps.ctx.db.kysely, held.id, this.deps.nodeId);
      return undefined;
    });
  }

  /**
   * The turn's clocks in one statement once its moves are done (20 writes a second however many
   * sessions play, not one per session and move: 800 a second for 200 sessions, bench/README.md): a
   * restart resumes at the clock written last, at most a move behind the session.
   */
  private writeTurn(moves: Promise<Array<Promise<{ id: number; clock: number } | undefined>>>, now: number): void {
    const write = moves
      .then((each) => Promise.all(each))
      .then((moved) => {
        const rows = moved.filter((m) => m !== undefined);
        return rows.length > 0 ? repo.saveClocks(this.deps.ctx.db.kysely, rows, now) : undefined;
      })
      .catch((err: unknown) => this.deps.ctx.log.error({ err }, 'replay: writing the played clocks failed'))
      .finally(() => this.writing.delete(write));
    this.writing.add(write);
  }

  /** Pauses a session nobody watches any more, unless a control changed it meanwhile. */
  private pauseUnwatched(held: Held): void {
    held.unwatchedSince = undefined;
    void this.run(held, async () => {
      if (held.status !== 'playing' || this.stopped || this.markets.watched(held.accountId)) return;
      // A node whose socket watches it holds its lease and keeps it playing; this copy is simply not the one that moves.
      const { ctx } = this.deps;
      await repo.pauseUnleased(ctx.db.kysely, held.id, { me: this.deps.nodeId, clock: held.market.clock, now: ctx.clock.now() });
      held.status = 'paused';
      if (held.leaseUntil > 0) await this.releaseLease(held);
    }).catch((err: unknown) => this.deps.ctx.log.error({ err, replay: held.id }, 'replay: pausing an unwatched session failed'));
  }

  // ------------------------------------------------------------------ holding sessions

  /** The trader's session, held by this node (404 for another trader's or a deleted one). */
  private async own(userId: number, id: number): Promise<Held> {
    const held = this.held.get(id);
    if (held) {
      if (held.userId !== userId || held.status === 'deleted') throw errors.replayNotFound();
      return held;
    }
    const row = await repo.findOwnSession(this.deps.ctx.db.kysely, userId, id);
    if (!row) throw errors.replayNotFound();
    return this.hold(row);
  }

  /** Builds a stored session's market at its clock and binds its account to it (once per node). */
  private hold(row: repo.ReplaySessionRow): Promise<Held> {
    const id = Number(row.id);
    const existing = this.held.get(id);
    if (existing) return Promise.resolve(existing);
    const loading = this.loading.get(id);
    if (loading) return loading;
    const load = (async () => {
      const market = this.marketAt(id, row.symbols.split(','), Number(row.clock));
      const bound = await this.markets.bind(Number(row.account_id), this.sourceOf(market));
      const held: Held = {
        id,
        userId: Number(row.user_id),
        accountId: Number(row.account_id),
        startAt: Number(row.start_at),
        createdAt: Number(row.created_at),
        status: row.status,
        speed: Number(row.speed),
        market,
        bound,
        queue: Promise.resolve(),
        playedAt: this.deps.ctx.clock.now(),
        unwatchedSince: undefined,
        leaseUntil: 0,
        revision: Number(row.revision),
        counting: Promise.resolve(),
      };
      this.held.set(id, held);
      this.heldByAccount.set(held.accountId, held);
      return held;
    })().finally(() => this.loading.delete(id));
    this.loading.set(id, load);
    return load;
  }

  private marketAt(id: number, symbols: readonly string[], clock: number): SessionMarket {
    const { data, pairs } = this.deps;
    return new SessionMarket({
      data,
      pairs: symbols.map((s) => {
        const pair = pairs.get(s);
        if (!pair) throw new Error(`replay: pair ${s} of session ${id} is missing from the catalogue`);
        return pair;
      }),
      clock,
    });
  }

  private sourceOf(market: SessionMarket) {
    return {
      prices: new SessionPriceBook(market, this.deps.data, this.deps.pairs),
      clock: { now: () => market.clock },
      symbols: market.symbols,
    };
  }

  // ------------------------------------------------------------------ many nodes (docs/replay.md#many-nodes)

  /**
   * Builds this node's copy again at the stored clock: another node moved the session. A fresh
   * market, and the account bound to it again (its trigger book and state loaded again from the
   * database, its socket book replaced). Run in the session's queue.
   */
  private async rebuild(held: Held, stored: repo.StoredState): Promise<void> {
    // A copy that moved ahead of the row (this node's move not yet written) never goes back.
    const market = this.marketAt(held.id, held.market.symbols, Math.max(stored.clock, held.market.clock));
    held.revision = Math.max(held.revision, stored.revision);
    held.bound = await this.markets.rebind(held.accountId, this.sourceOf(market));
    held.market = market;
    held.playedAt = this.deps.ctx.clock.now();
    // The price sockets of the account on this node follow its new clock, as after a move.
    this.markets.notifyMoved(held.bound);
  }

  /**
   * This node changed the session's account (an order, a fill, a protection): counted in the row,
   * so other nodes' copies reload it. This copy stays current unless another node's change came in
   * between, when it reloads at its next check.
   */
  private accountChanged(accountId: number): void {
    const held = this.heldByAccount.get(accountId);
    if (!held) return;
    held.counting = held.counting
      .then(async () => {
        const known = held.revision;
        const revision = await repo.bumpRevision(this.deps.ctx.db.kysely, accountId);
        // Another node's change in between leaves this copy behind: it reloads at its next check.
        if (revision === known + 1 && held.revision === known) held.revision = revision;
      })
      .catch((err: unknown) => this.deps.ctx.log.error({ err, replay: held.id }, 'replay: counting an account change failed'));
  }

  /**
   * Brings this node's copy to the session as stored (read now unless given): rebuilt if another
   * node moved its clock, its status and speed taken from the row. Run in the session's queue.
   */
  private async sync(held: Held, given?: repo.StoredState): Promise<void> {
    await held.counting;
    const stored = given ?? (await repo.storedState(this.deps.ctx.db.kysely, held.id));
    if (!stored) return;
    if (behind(held, stored)) await this.rebuild(held, stored);
    if (stored.status === 'playing' && held.status !== 'playing') held.playedAt = this.deps.ctx.clock.now();
    held.status = stored.status;
    held.speed = stored.speed;
  }

  /**
   * Before a call on the practice account uses this node's copy (trading's `AccountMarkets`): a
   * node that holds the lease is the one moving the session, its copy is the truth; any other reads
   * the row's clock (one read by primary key) and catches up if the session moved elsewhere.
   */
  private async refreshAccount(accountId: number): Promise<void> {
    const held = this.heldByAccount.get(accountId);
    if (!held || held.leaseUntil > this.deps.ctx.clock.now()) return;
    await held.counting;
    const stored = await repo.storedState(this.deps.ctx.db.kysely, held.id);
    if (!stored || !behind(held, stored)) return;
    await this.run(held, async () => {
      if (behind(held, stored)) await this.rebuild(held, stored);
    });
  }

  /**
   * Takes the session's lease for a control's move and brings this copy to the row. Another node
   * mid-move is waited for (at most `LEASE_MS`); a session playing on another node is 409
   * `REPLAY_BUSY` at once (it keeps its lease while it plays), unless `waitForPause` (a delete,
   * which paused it first: that node gives the lease up at its next turn).
   */
  private async takeLease(held: Held, waitForPause: boolean): Promise<void> {
    const { ctx, nodeId } = this.deps;
    for (let attempt = 0; ; attempt++) {
      const now = ctx.clock.now();
      const stored = await repo.takeLease(ctx.db.kysely, held.id, nodeId, now, now + LEASE_MS);
      if (stored) {
        held.leaseUntil = now + LEASE_MS;
        await this.sync(held, stored);
        return;
      }
      const current = await repo.storedState(ctx.db.kysely, held.id);
      if (!current || current.status === 'deleted') throw errors.replayNotFound();
      const playing = current.status === 'playing';
      if ((playing && !waitForPause) || attempt * LEASE_RETRY_MS >= LEASE_MS) throw errors.replayBusy(playing);
      await new Promise((r) => setTimeout(r, LEASE_RETRY_MS));
    }
  }

  /** During a long move: renews the lease before it runs out; a lease another node took meanwhile stops the move. */
  private async renewLease(held: Held): Promise<void> {
    const { ctx, nodeId } = this.deps;
    const now = ctx.clock.now();
    if (now < held.leaseUntil - LEASE_MS / 2) return;
    const stored = await repo.takeLease(ctx.db.kysely, held.id, nodeId, now, now + LEASE_MS);
    if (!stored) {
      held.leaseUntil = 0;
      throw errors.replayBusy(false);
    }
    held.leaseUntil = now + LEASE_MS;
  }

  private async releaseLease(held: Held): Promise<void> {
    held.leaseUntil = 0;
    await repo.releaseLease(this.deps.ctx.db.kysely, held.id, this.deps.nodeId);
  }

  /** After a control's move: a session that plays keeps the lease for the loop (it lapses unless a socket here watches it). */
  private async releaseUnlessPlaying(held: Held): Promise<void> {
    if (held.status !== 'playing') await this.releaseLease(held);
  }

  /** Runs `work` after everything queued for the session. */
  private run<T>(held: Held, work: () => Promise<T>): Promise<T> {
    const result = held.queue.then(work);
    held.queue = result.catch(() => {});
    return result;
  }

  private save(held: Held): Promise<void> {
    return repo.saveSession(this.deps.ctx.db.kysely, held.id, {
      clock: held.market.clock,
      status: held.status,
      speed: held.speed,
      updatedAt: this.deps.ctx.clock.now(),
    });
  }

  private rangeOf(symbols: readonly string[]): DataRange {
    return dataRange(this.deps.data, symbols) ?? { from: 0, to: 0 };
  }

  private dto(held: Held): ReplayDto {
    return {
      id: held.id,
      account_id: held.accountId,
      symbols: [...held.market.symbols],
      start: iso(held.startAt),
      clock: iso(held.market.clock),
      speed: held.speed,
      status: held.status === 'deleted' ? 'paused' : held.status,
      data_from: iso(held.market.range.from),
      data_to: iso(held.market.range.to),
      created_at: iso(held.createdAt),
    };
  }
}

/** Whether another node moved the session past this copy, or changed its account since this copy loaded it. */
function behind(held: Held, stored: repo.StoredState): boolean {
  return stored.clock > held.market.clock || stored.revision > held.revision;
}

function rowDto(row: repo.ReplaySessionRow, range: DataRange): ReplayDto {
  return {
    id: Number(row.id),
    account_id: Number(row.account_id),
    symbols: row.symbols.split(','),
    start: iso(Number(row.start_at)),
    clock: iso(Number(row.clock)),
    speed: Number(row.speed),
    status: row.status === 'deleted' ? 'paused' : row.status,
    data_from: iso(range.from),
    data_to: iso(range.to),
    created_at: iso(Number(row.created_at)),
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();
