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
import { writeTransaction } from '../db/transaction.js';
import { errors } from '../errors.js';
import { type AccountMarketView, seriesCandlesAt } from '../market/index.js';
import type { AccountMarkets } from '../trading/index.js';
import { SessionCopies } from './copies.js';
import { checkReplayStart, dataRange, replayProblemMessage } from './data-range.js';
import { type Held, heldDto, iso, type ReplayDeps, rowDto, runQueued, saveHeld, sessionMarketAt, sessionSource } from './held.js';
import { PlayLoop } from './play-loop.js';
import * as repo from './repo.js';
import type { DataRange } from './types.js';

export type { ReplayDeps } from './held.js';

const MINUTE_MS = 60_000;

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
  private readonly copies: SessionCopies;
  private readonly loop: PlayLoop;

  constructor(private readonly deps: ReplayDeps) {
    this.copies = new SessionCopies(deps, (accountId) => this.heldByAccount.get(accountId));
    this.loop = new PlayLoop(
      deps,
      { held: () => this.held.values(), advance: (held, until, byLoop) => this.advance(held, until, byLoop) },
      this.copies,
    );
    // A practice account this node has not bound yet is bound to its session on first use.
    deps.trading.markets.setLoader(async (accountId) => {
      const row = await repo.sessionOfAccount(deps.ctx.db.kysely, accountId);
      if (row) await this.hold(row);
    });
    // Before a call on a practice account uses this node's copy, the copy is checked against the row.
    deps.trading.markets.setRefresher({
      refresh: (accountId) => this.copies.refreshAccount(accountId),
      changed: (accountId) => this.copies.accountChanged(accountId),
    });
  }

  private get markets(): AccountMarkets {
    return this.deps.trading.markets;
  }

  /** Pauses what the last run left playing and starts the play loop. */
  async start(): Promise<void> {
    const paused = await repo.pauseAllPlaying(this.deps.ctx.db.kysely, this.deps.ctx.clock.now());
    if (paused > 0) this.deps.ctx.log.info({ sessions: paused }, 'replay: sessions left playing are paused');
    this.loop.start();
  }

  /**
   * Stops the play loop, waits for the moves under way (their clocks are written) and releases
   * this node's leases, so another node may move its sessions at once.
   */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.held.values()].map((h) => h.queue));
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
    return heldDto(await this.hold(row));
  }

  async list(userId: number): Promise<ReplayDto[]> {
    const rows = await repo.sessionsOfUser(this.deps.ctx.db.kysely, userId);
    // A session this node moves is shown as held (its clock may be ahead of the row by a move under way); any other as stored.
    const now = this.deps.ctx.clock.now();
    return rows.map((row) => {
      const held = this.held.get(Number(row.id));
      return held && held.leaseUntil > now ? heldDto(held) : rowDto(row, this.rangeOf(row.symbols.split(',')));
    });
  }

  /** A student's sessions for their instructors (the caller's scope is checked by the route), each with its statistics. */
  async ofStudent(studentId: number): Promise<ReplayDetailDto[]> {
    const rows = await repo.sessionsOfUser(this.deps.ctx.db.kysely, studentId);
    const answers: ReplayDetailDto[] = [];
    for (const row of rows) {
      const held = await this.hold(row);
      await runQueued(held, () => this.copies.sync(held));
      answers.push({
        replay: heldDto(held),
        performance: await this.deps.trading.accountPerformance(studentId, held.accountId),
      });
    }
    return answers;
  }

  async get(userId: number, id: number): Promise<ReplayDetailDto> {
    const held = await this.own(userId, id);
    await runQueued(held, () => this.copies.sync(held));
    const performance = await this.deps.trading.accountPerformance(userId, held.accountId);
    return { replay: heldDto(held), performance };
  }

  /** Ends the session: it stops, its account is closed (its history stays), and the calls no longer show it. */
  async remove(userId: number, id: number): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return runQueued(held, async () => {
      const { ctx } = this.deps;
      // Another node playing it stops at its next turn and gives the lease up.
      await repo.setPlaying(ctx.db.kysely, held.id, { status: 'paused', speed: held.speed, updatedAt: ctx.clock.now() });
      await this.copies.takeLease(held, true);
      const now = ctx.clock.now();
      const shown = heldDto(held);
      await writeTransaction(ctx.db, async (trx) => {
        await repo.saveSession(trx, held.id, { clock: held.market.clock, status: 'deleted', speed: held.speed, updatedAt: now });
        await closeAccount(trx, held.accountId, now);
      });
      held.status = 'deleted';
      await this.copies.releaseLease(held);
      return shown;
    });
  }

  async play(userId: number, id: number, speed: ReplaySpeed): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return runQueued(held, async () => {
      await this.copies.sync(held);
      if (held.market.finished) throw errors.replayFinished();
      // Moves no clock, so it needs no lease: whichever node's socket watches the session plays it (docs/replay.md#many-nodes).
      const { ctx } = this.deps;
      const stored = await repo.setPlaying(ctx.db.kysely, held.id, { status: 'playing', speed, updatedAt: ctx.clock.now() });
      if (!stored) throw errors.replayNotFound();
      await this.copies.sync(held, stored);
      held.unwatchedSince = undefined;
      return heldDto(held);
    });
  }

  async pause(userId: number, id: number): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return runQueued(held, async () => {
      // Another node that plays it stops at its next turn (it renews only the leases of playing sessions).
      const { ctx } = this.deps;
      const stored = await repo.setPlaying(ctx.db.kysely, held.id, {
        status: 'paused',
        speed: held.speed,
        updatedAt: ctx.clock.now(),
      });
      await this.copies.sync(held, stored);
      return heldDto(held);
    });
  }

  async step(userId: number, id: number, minutes: number): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return runQueued(held, async () => {
      await this.copies.takeLease(held, false);
      try {
        if (held.market.finished) throw errors.replayFinished();
        await this.advance(held, Math.min(held.market.clock + minutes * MINUTE_MS, held.market.range.to));
        return heldDto(held);
      } finally {
        await this.copies.releaseUnlessPlaying(held);
      }
    });
  }

  async seek(userId: number, id: number, to: string): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    const target = parseReplayTime(to);
    return runQueued(held, async () => {
      await this.copies.takeLease(held, false);
      try {
        const { range, clock } = held.market;
        if (held.market.finished) throw errors.replayFinished();
        if (!(target >= clock)) throw errors.validation(`to: a seek goes forward only; the session's clock is ${iso(clock)}`);
        if (target > range.to) {
          throw errors.validation(`to: the data of these pairs runs from ${iso(range.from)} to ${iso(range.to)}`);
        }
        await this.advance(held, target);
        return heldDto(held);
      } finally {
        await this.copies.releaseUnlessPlaying(held);
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
  async advance(held: Held, until: number, byLoop = false): Promise<void> {
    const { market, bound } = held;
    try {
      let played = 0;
      for (let quote = market.next(until); quote !== undefined; quote = market.next(until)) {
        await bound.tick(quote);
        // A long step (a month of four pairs is 100,000 ticks) keeps its lease while it lasts.
        if (++played % 4_096 === 0) await this.copies.renewLease(held);
      }
      market.advanceTo(until);
      await bound.flush();
    } finally {
      if (market.finished && held.status !== 'deleted') held.status = 'finished';
      if (!byLoop || held.status !== 'playing') await saveHeld(this.deps, held);
    }
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
      const market = sessionMarketAt(this.deps, id, row.symbols.split(','), Number(row.clock));
      const bound = await this.markets.bind(Number(row.account_id), sessionSource(this.deps, market));
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

  private rangeOf(symbols: readonly string[]): DataRange {
    return dataRange(this.deps.data, symbols) ?? { from: 0, to: 0 };
  }
}
