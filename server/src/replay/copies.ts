import { errors } from '../errors.js';
import { behind, type Held, type ReplayDeps, runQueued, sessionMarketAt, sessionSource } from './held.js';
import * as repo from './repo.js';

/**
 * How long a node's lease of a session lasts (real ms, docs/replay.md#many-nodes): the play loop
 * renews it at every move, a control takes it for its move; a node that stops answering loses its
 * sessions to another node this long after its last renewal.
 */
export const LEASE_MS = 2_000;
/** How often a control waiting for another node's move asks for the lease again (real ms); it waits at most `LEASE_MS`. */
const LEASE_RETRY_MS = 50;

/**
 * A node's copies of sessions kept true on many nodes (docs/replay.md#many-nodes): the row is the
 * truth, a copy is rebuilt when another node moved the session or changed its account, and one
 * node at a time moves a session, under a lease in its row.
 */
export class SessionCopies {
  constructor(
    private readonly deps: ReplayDeps,
    /** This node's copy of the session of a practice account, if it holds one. */
    private readonly byAccount: (accountId: number) => Held | undefined,
  ) {}

  /**
   * Builds this node's copy again at the stored clock: another node moved the session. A fresh
   * market, and the account bound to it again (its trigger book and state loaded again from the
   * database, its socket book replaced). Run in the session's queue.
   */
  async rebuild(held: Held, stored: repo.StoredState): Promise<void> {
    // A copy that moved ahead of the row (this node's move not yet written) never goes back.
    const market = sessionMarketAt(this.deps, held.id, held.market.symbols, Math.max(stored.clock, held.market.clock));
    held.revision = Math.max(held.revision, stored.revision);
    held.bound = await this.deps.trading.markets.rebind(held.accountId, sessionSource(this.deps, market));
    held.market = market;
    held.playedAt = this.deps.ctx.clock.now();
    // The price sockets of the account on this node follow its new clock, as after a move.
    this.deps.trading.markets.notifyMoved(held.bound);
  }

  /**
   * This node changed the session's account (an order, a fill, a protection): counted in the row,
   * so other nodes' copies reload it. This copy stays current unless another node's change came in
   * between, when it reloads at its next check.
   */
  accountChanged(accountId: number): void {
    const held = this.byAccount(accountId);
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
  async sync(held: Held, given?: repo.StoredState): Promise<void> {
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
  async refreshAccount(accountId: number): Promise<void> {
    const held = this.byAccount(accountId);
    if (!held || held.leaseUntil > this.deps.ctx.clock.now()) return;
    await held.counting;
    const stored = await repo.storedState(this.deps.ctx.db.kysely, held.id);
    if (!stored || !behind(held, stored)) return;
    await runQueued(held, async () => {
      if (behind(held, stored)) await this.rebuild(held, stored);
    });
  }

  /**
   * Takes the session's lease for a control's move and brings this copy to the row. Another node
   * mid-move is waited for (at most `LEASE_MS`); a session playing on another node is 409
   * `REPLAY_BUSY` at once (it keeps its lease while it plays), unless `waitForPause` (a delete,
   * which paused it first: that node gives the lease up at its next turn).
   */
  async takeLease(held: Held, waitForPause: boolean): Promise<void> {
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
  async renewLease(held: Held): Promise<void> {
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

  async releaseLease(held: Held): Promise<void> {
    held.leaseUntil = 0;
    await repo.releaseLease(this.deps.ctx.db.kysely, held.id, this.deps.nodeId);
  }

  /** After a control's move: a session that plays keeps the lease for the loop (it lapses unless a socket here watches it). */
  async releaseUnlessPlaying(held: Held): Promise<void> {
    if (held.status !== 'playing') await this.releaseLease(held);
  }
}
