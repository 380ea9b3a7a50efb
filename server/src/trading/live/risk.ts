import { Dec } from '@pipdesk/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../core/clock.js';
import { AppError } from '../../errors.js';
import type { TradingService } from '../service.js';
import { accountId as accountIdOf } from '../types.js';
import type { Figures, LiveAccount, LiveBook } from './book.js';

/** What the risk engine needs from the trading service. */
export type RiskService = Pick<TradingService, 'closePosition' | 'protectNegativeBalance'>;

export interface RiskDeps {
  book: LiveBook;
  service: RiskService;
  /** Percent (docs/trading-rules.md#margin-call-and-stop-out: 100). */
  marginCallLevel: number;
  /** Percent (docs/trading-rules.md#margin-call-and-stop-out: 50). */
  stopOutLevel: number;
  /** Whether this node runs stop-outs: only one node of a deployment may (the price-source leader). */
  runsStopOuts(): boolean;
  /** The margin level fell to the margin call level or below (once per crossing). */
  onMarginCall(account: LiveAccount, figures: Figures): void;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * The margin call rule on a book's account after its figures changed: `onCall` once per crossing
 * to the level or below (re-armed above it, or with no position). Answers whether the account is
 * at or below the level now. A position without a price cannot be valued: no decision on partial
 * figures. Shared by the live risk engine and a practice account's book (practice.ts).
 */
export function watchMarginCall(
  book: LiveBook,
  account: LiveAccount,
  levelRaw: bigint,
  onCall: (account: LiveAccount, figures: Figures) => void,
): boolean {
  const risk = account.risk;
  if (account.positions.size === 0) {
    risk.marginCallArmed = true;
    return false;
  }
  if (account.unvalued > 0) return false;
  if (!book.levelAtOrBelow(account, levelRaw)) {
    risk.marginCallArmed = true;
    return false;
  }
  if (risk.marginCallArmed) {
    risk.marginCallArmed = false;
    onCall(account, book.figures(account));
  }
  return true;
}

/** The account's figures while it is at or below the margin call level (for a trader who subscribes late). */
export function marginCallFigures(book: LiveBook, account: LiveAccount, levelRaw: bigint): Figures | undefined {
  if (account.positions.size === 0 || account.unvalued > 0) return undefined;
  return book.levelAtOrBelow(account, levelRaw) ? book.figures(account) : undefined;
}

/** After a failed stop-out, the next attempt waits this long (the next ticks retry it). */
const RETRY_AFTER_MS = 1_000;

/**
 * Margin call and stop-out (docs/trading-rules.md#margin-call-and-stop-out), evaluated in memory for every account whose figures
 * changed, connected or not. A stop-out closes the largest loser, recomputes, and repeats
 * while the margin level is still at or below the stop-out level, then applies negative
 * balance protection. One stop-out at a time per account.
 */
export class RiskEngine {
  private readonly marginCallLevel: Dec;
  private readonly stopOutLevel: Dec;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly deps: RiskDeps) {
    this.marginCallLevel = Dec.from(deps.marginCallLevel);
    this.stopOutLevel = Dec.from(deps.stopOutLevel);
  }

  /** Checks one account after its figures changed (a tick, an execution). Synchronous; a stop-out runs in the background. */
  evaluate(account: LiveAccount): void {
    const { book } = this.deps;
    if (!watchMarginCall(book, account, this.marginCallLevel.raw, this.deps.onMarginCall)) return;
    const risk = account.risk;
    if (
      !risk.stopOutRunning &&
      !this.stopped &&
      book.levelAtOrBelow(account, this.stopOutLevel.raw) &&
      this.deps.clock.now() >= risk.retryAt &&
      this.deps.runsStopOuts()
    ) {
      risk.stopOutRunning = true;
      const run = this.stopOut(account).finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  /** Whether the account is at or below the margin call level now (for a trader who subscribes late). */
  inMarginCall(account: LiveAccount): Figures | undefined {
    return marginCallFigures(this.deps.book, account, this.marginCallLevel.raw);
  }

  /** Resolves when no stop-out is running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** No new stop-outs; waits for running ones (they hold database transactions). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }

  private async stopOut(account: LiveAccount): Promise<void> {
    const { book, service, log } = this.deps;
    let closed = 0;
    try {
      // Bounded: each round closes one position (or learns it was already closed).
      for (let round = 0; round < 1_000 && !this.stopped; round++) {
        if (account.unvalued > 0 || !book.levelAtOrBelow(account, this.stopOutLevel.raw)) break;
        const loser = book.largestLoser(account);
        if (!loser) break;
        const id = Number(loser.state.id);
        try {
          const result = await service.closePosition(account.userId, id, {
            reason: 'stop_out',
            accountId: accountIdOf(account.accountId),
          });
          closed++;
          // The in-process bus has already applied the close's execution event; with Redis
          // it may still be travelling, so the next round must not count this position.
          if (account.positions.get(id) === loser) {
            book.removePosition(id);
            book.setBalance(account.accountId, account.balanceMinor + Dec.from(result.profit_loss).toScaledNumber(2));
          }
        } catch (err) {
          // Closed meanwhile (by the trader or another path): not ours to close any more.
          if (err instanceof AppError && (err.status === 404 || err.status === 409)) {
            book.removePosition(id);
            continue;
          }
          throw err;
        }
      }
      if (closed > 0) {
        // The service credits a negative balance once no position is left, and publishes the
        // new balance ('trading.balance_adjusted'), which every node's book applies.
        await service.protectNegativeBalance(account.accountId);
        log.info({ accountId: account.accountId, closed }, 'stop-out');
      }
    } catch (err) {
      log.error({ err, accountId: account.accountId }, 'stop-out failed; retrying on a later tick');
      account.risk.retryAt = this.deps.clock.now() + RETRY_AFTER_MS;
    } finally {
      account.risk.stopOutRunning = false;
    }
    // Prices moved while positions were being closed: decide again on the latest figures.
    if (!this.stopped) this.evaluate(account);
  }
}
