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

export interface ReplayDeps {
  ctx: Pick<AppContext, 'db' | 'clock' | 'log'>;
  pairs: PairCatalog;
  /** Every pair's real series (parsed once per process). */
  data: ReadonlyMap<string, BarSeries>;
  trading: Pick<TradingServiceImpl, 'markets' | 'accountPerformance'>;
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

  /** Stops the play loop and waits for the moves under way (their clocks are written). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.held.values()].map((h) => h.queue));
    await Promise.allSettled([...this.writing]);
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
    // A session this node holds is shown as held (its clock may be ahead of the row by a move under way).
    return rows.map((row) => {
      const held = this.held.get(Number(row.id));
      return held ? this.dto(held) : rowDto(row, this.rangeOf(row.symbols.split(',')));
    });
  }

  /** A student's sessions for their instructors (the caller's scope is checked by the route), each with its statistics. */
  async ofStudent(studentId: number): Promise<ReplayDetailDto[]> {
    const rows = await repo.sessionsOfUser(this.deps.ctx.db.kysely, studentId);
    const answers: ReplayDetailDto[] = [];
    for (const row of rows) {
      const held = await this.hold(row);
      answers.push({
        replay: this.dto(held),
        performance: await this.deps.trading.accountPerformance(studentId, held.accountId),
      });
    }
    return answers;
  }

  async get(userId: number, id: number): Promise<ReplayDetailDto> {
    const held = await this.own(userId, id);
    const performance = await this.deps.trading.accountPerformance(userId, held.accountId);
    return { replay: this.dto(held), performance };
  }

  /** Ends the session: it stops, its account is closed (its history stays), and the calls no longer show it. */
  async remove(userId: number, id: number): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return this.run(held, async () => {
      const { ctx } = this.deps;
      const now = ctx.clock.now();
      const shown = this.dto(held);
      await writeTransaction(ctx.db, async (trx) => {
        await repo.saveSession(trx, held.id, { clock: held.market.clock, status: 'deleted', speed: held.speed, updatedAt: now });
        await closeAccount(trx, held.accountId, now);
      });
      held.status = 'deleted';
      return shown;
    });
  }

  async play(userId: number, id: number, speed: ReplaySpeed): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return this.run(held, async () => {
      if (held.market.finished) throw errors.replayFinished();
      held.speed = speed;
      held.status = 'playing';
      held.playedAt = this.deps.ctx.clock.now();
      held.unwatchedSince = undefined;
      await this.save(held);
      return this.dto(held);
    });
  }

  async pause(userId: number, id: number): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return this.run(held, async () => {
      if (held.status === 'playing') {
        held.status = 'paused';
        await this.save(held);
      }
      return this.dto(held);
    });
  }

  async step(userId: number, id: number, minutes: number): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    return this.run(held, async () => {
      if (held.market.finished) throw errors.replayFinished();
      await this.advance(held, Math.min(held.market.clock + minutes * MINUTE_MS, held.market.range.to));
      return this.dto(held);
    });
  }

  async seek(userId: number, id: number, to: string): Promise<ReplayDto> {
    const held = await this.own(userId, id);
    const target = parseReplayTime(to);
    return this.run(held, async () => {
      const { range, clock } = held.market;
      if (held.market.finished) throw errors.replayFinished();
      if (!(target >= clock)) throw errors.validation(`to: a seek goes forward only; the session's clock is ${iso(clock)}`);
      if (target > range.to) {
        throw errors.validation(`to: the data of these pairs runs from ${iso(range.from)} to ${iso(range.to)}`);
      }
      await this.advance(held, target);
      return this.dto(held);
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
      for (let quote = market.next(until); quote !== undefined; quote = market.next(until)) await bound.tick(quote);
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
    const moves: Array<Promise<{ id: number; clock: number } | undefined>> = [];
    const slot = this.turns++ % PLAY_SLOTS;
    for (const held of this.held.values()) {
      if (held.status !== 'playing' || held.id % PLAY_SLOTS !== slot) continue;
      if (!this.markets.watched(held.accountId)) {
        // Unwatched time is not played: nothing jumps when the trader comes back.
        held.playedAt = now;
        held.unwatchedSince ??= now;
        if (now - held.unwatchedSince >= PAUSE_UNWATCHED_MS) this.pauseUnwatched(held);
        continue;
      }
      held.unwatchedSince = undefined;
      const elapsed = now - held.playedAt;
      if (elapsed <= 0) continue;
      held.playedAt = now;
      moves.push(
        this.run(held, async () => {
          // Paused or deleted while this move waited in the queue.
          if (held.status !== 'playing' || this.stopped) return undefined;
          try {
            await this.advance(held, Math.min(held.market.clock + elapsed * held.speed, held.market.range.to), true);
          } catch (err) {
            this.deps.ctx.log.error({ err, replay: held.id }, 'replay: playing a session failed');
          }
          // Where the move stopped, even part way: every tick up to it has been played.
          return held.status === 'playing' ? { id: held.id, clock: held.market.clock } : undefined;
        }),
      );
    }
    if (moves.length > 0) this.writeTurn(moves, now);
  }

  /**
   * The turn's clocks in one statement once its moves are done (20 writes a second however many
   * sessions play, not one per session and move: 800 a second for 200 sessions, bench/README.md): a
   * restart resumes at the clock written last, at most a move behind the session.
   */
  private writeTurn(moves: Array<Promise<{ id: number; clock: number } | undefined>>, now: number): void {
    const write = Promise.all(moves)
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
      held.status = 'paused';
      await this.save(held);
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
      const { data, pairs } = this.deps;
      const symbols = row.symbols.split(',');
      const market = new SessionMarket({
        data,
        pairs: symbols.map((s) => {
          const pair = pairs.get(s);
          if (!pair) throw new Error(`replay: pair ${s} of session ${id} is missing from the catalogue`);
          return pair;
        }),
        clock: Number(row.clock),
      });
      const prices = new SessionPriceBook(market, data, pairs);
      const bound = await this.markets.bind(Number(row.account_id), {
        prices,
        clock: { now: () => market.clock },
        symbols: market.symbols,
      });
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
      };
      this.held.set(id, held);
      this.heldByAccount.set(held.accountId, held);
      return held;
    })().finally(() => this.loading.delete(id));
    this.loading.set(id, load);
    return load;
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
