import { LEASE_MS, type SessionCopies } from './copies.js';
import { behind, type Held, type ReplayDeps, runQueued } from './held.js';
import * as repo from './repo.js';

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

/** What the loop moves: the sessions this node holds, and how one moves (replay/sessions.ts). */
export interface PlayedSessions {
  held(): Iterable<Held>;
  /** Plays every tick up to `until`; a loop move (`byLoop`) leaves the clock to the turn's one write. */
  advance(held: Held, until: number, byLoop: boolean): Promise<void>;
}

/**
 * The play loop (docs/replay.md#playing): a turn every `PLAY_TURN_MS`, each moving the playing
 * sessions of one slot that a trading socket of this node watches, under their leases, and writing
 * their clocks in one statement.
 */
export class PlayLoop {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Turns of the play loop so far (which slot moves). */
  private turns = 0;
  /** The loop turns' clock writes under way (the shutdown waits for them). */
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly deps: ReplayDeps,
    private readonly sessions: PlayedSessions,
    private readonly copies: SessionCopies,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.playDue(), PLAY_TURN_MS);
    this.timer.unref();
  }

  /** No more turns; waits for the clock writes under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.writing]);
  }

  /**
   * The play loop: each playing session moves at its slot's turn (every `PLAY_EVERY_MS`) by its
   * speed × the real time since its last move, only while a trading socket of this node serves its account (DESIGN §19 "Scale"); one that
   * nobody has watched for `PAUSE_UNWATCHED_MS` is paused, and that is saved
   * (docs/replay.md#playing).
   */
  playDue(): void {
    if (this.stopped) return;
    const now = this.deps.ctx.clock.now();
    const slot = this.turns++ % PLAY_SLOTS;
    const watched: Held[] = [];
    for (const held of this.sessions.held()) {
      if (held.status === 'deleted' || held.id % PLAY_SLOTS !== slot) continue;
      if (this.deps.trading.markets.watched(held.accountId)) {
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
  turn(watched: Held[], now: number): void {
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
          return runQueued(held, async () => {
            // Paused, deleted or given up while this move waited in the queue.
            if (held.status !== 'playing' || this.stopped || held.leaseUntil <= this.deps.ctx.clock.now()) return undefined;
            try {
              // Another node moved it before this one took the lease: this copy catches up first.
              await held.counting;
              if (behind(held, stored)) await this.copies.rebuild(held, stored);
              await this.sessions.advance(held, Math.min(held.market.clock + elapsed * held.speed, held.market.range.to), true);
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
  notMoving(held: Held): Promise<undefined> {
    if (held.status === 'playing') {
      // What the row says is learnt at the next call that syncs; until then the loop asks the row each turn.
      held.status = 'paused';
    }
    if (held.leaseUntil === 0) return Promise.resolve(undefined);
    return runQueued(held, async () => {
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
  writeTurn(moves: Promise<Array<Promise<{ id: number; clock: number } | undefined>>>, now: number): void {
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
  pauseUnwatched(held: Held): void {
    held.unwatchedSince = undefined;
    void runQueued(held, async () => {
      if (held.status !== 'playing' || this.stopped || this.deps.trading.markets.watched(held.accountId)) return;
      // A node whose socket watches it holds its lease and keeps it playing; this copy is simply not the one that moves.
      const { ctx } = this.deps;
      await repo.pauseUnleased(ctx.db.kysely, held.id, { me: this.deps.nodeId, clock: held.market.clock, now: ctx.clock.now() });
      held.status = 'paused';
      if (held.leaseUntil > 0) await this.copies.releaseLease(held);
    }).catch((err: unknown) => this.deps.ctx.log.error({ err, replay: held.id }, 'replay: pausing an unwatched session failed'));
  }
}
