import { Dec, EMPTY_PERFORMANCE_TALLY, type OrderDto, type ResetResponse, tallyEquityPoint } from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import { lockTraderAccount, postLedgerEntry, type TradingAccountRow } from '../../accounts/index.js';
import type { Database } from '../../db/schema.js';
import { errors } from '../../errors.js';
import type { TradingDeps } from '../deps.js';
import { insertPoint } from '../equity-curve/repo.js';
import { publishAccountReset, publishEngineChanges, publishExecutionEffects, publishOrderUpdate } from '../events.js';
import { execute, type FilledExecution } from '../execution.js';
import { transition } from '../order-status.js';
import { ensurePeriod } from '../performance/period.js';
import * as performanceRepo from '../performance/repo.js';
import { accountAnswer, executionEvent, filledAnswer, iso, orderDto } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId, UserId } from '../types.js';
import { idempotentCommand } from './idempotent-command.js';

export interface ResetAccountInput {
  /** The trader whose account is reset. */
  userId: UserId;
  /** The balance the account starts its new period with (the cohort's starting balance), in cents. */
  startingBalanceMinor: number;
  /** Who asked: an instructor, an admin or the trader; an Idempotency-Key is theirs. */
  actorUserId: number;
  /** The account reset (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId;
  /**
   * Runs in the reset's transaction, after the ledger entry, under the account's lock: an
   * evaluation moves its attempt to the next phase with the reset, or not at all.
   */
  alongside?: (trx: Kysely<Database>, balanceMinor: number) => Promise<void>;
}

/** What a reset did (the contract's answer); also the first answer replayed to a retry with the same Idempotency-Key. */
export type ResetAccountResult = ResetResponse;

type ResetDeps = Pick<
  TradingDeps,
  'writes' | 'inFlight' | 'pairs' | 'pricing' | 'clock' | 'keyClock' | 'bus' | 'log' | 'metrics'
>;

/**
 * Resets a trader's account (docs/academy.md#reset), all in one write transaction holding the
 * account's lock: closes every open position at market (orders with reason `reset`), cancels
 * every pending order, posts one `reset` ledger entry that brings the balance to the starting
 * balance, ends the current period and starts the next. Nothing is kept when any part fails
 * (a position without a price: 503). With an Idempotency-Key (scoped to the caller) a retry
 * answers the first answer and resets nothing again; the key with another request is 422.
 * After commit the live books, the sockets and the trigger engine hear of every change.
 */
export async function resetAccount(
  deps: ResetDeps,
  input: ResetAccountInput,
  idempotencyKey?: string,
): Promise<{ response: ResetAccountResult; replayed: boolean }> {
  if (!Number.isSafeInteger(input.startingBalanceMinor) || input.startingBalanceMinor < 0) {
    throw new Error(`A starting balance must be whole cents, got ${input.startingBalanceMinor}`);
  }
  return idempotentCommand(deps, idempotencyKey, {
    // The caller's key; the student is in the fingerprint, so one key cannot reset two students.
    keyOwner: input.actorUserId,
    fingerprint: () => ({
      call: 'academy.reset',
      student: Number(input.userId),
      starting_balance_minor: input.startingBalanceMinor,
    }),
    okStatus: 200,
    lock: async (trx) => {
      const locked = await lockTraderAccount(trx, input.userId, input.accountId);
      if (!locked) throw errors.noTradingAccount();
      return locked;
    },
    run: (trx, locked) => resetLocked(deps, trx, input, locked),
    keyAnswer: (reset) => ({ data: reset.response }),
    answer: (reset) => {
      announceReset(deps, input, reset);
      return reset.response;
    },
  });
}

/** What a reset did in its transaction, announced after the commit. */
interface Reset {
  now: number;
  account: TradingAccountRow;
  fills: FilledExecution[];
  cancelled: repo.OrderRow[];
  balanceMinor: number;
  amountMinor: number;
  response: ResetAccountResult;
}

/** The reset itself, in the write transaction under the account's lock. */
async function resetLocked(
  deps: ResetDeps,
  trx: Kysely<Database>,
  input: ResetAccountInput,
  locked: TradingAccountRow,
): Promise<Reset> {
  const now = deps.clock.now();
  const accountId = Number(locked.id);
  // The period the closes below are recorded in exists before them (an account that never traded has none yet).
  const period = await ensurePeriod(trx, {
    id: accountId,
    created_at: Number(locked.created_at),
    balance_minor: Number(locked.balance_minor),
  });

  let account: TradingAccountRow = locked;
  let positions = await repo.openPositions(trx, accountId);
  const fills: FilledExecution[] = [];
  for (const target of [...positions]) {
    const pair = deps.pairs.get(target.symbol);
    if (!pair) throw errors.unavailable(`Currency pair ${target.symbol} is missing from the catalogue`);
    const quantity = Number(target.quantity_centilots);
    const execution = await execute(deps, trx, {
      account,
      pair,
      side: quantity > 0 ? 'SELL' : 'BUY',
      quantityCentilots: Math.abs(quantity),
      reason: 'reset',
      positions,
      target,
      // A reset starts the trader over whatever the account's state.
      ignoreAccountStatus: true,
    });
    // Thrown inside the transaction: the REJECTED order and every earlier close roll back with it.
    if (execution.kind === 'rejected') throw errors.unavailable(`${execution.message}: the account was not reset`);
    fills.push(execution);
    account = { ...account, balance_minor: execution.balanceMinor };
    positions = positions.filter((p) => Number(p.id) !== Number(target.id));
  }

  const cancelled: repo.OrderRow[] = [];
  for (const row of await repo.pendingOrders(trx, accountId)) {
    const settlement = {
      status: transition(row.status, 'CANCEL'),
      filled_quantity_centilots: Number(row.filled_quantity_centilots),
      average_fill_price_e10: row.average_fill_price_e10,
      rejection_reason: row.rejection_reason,
      position_id: row.position_id,
      updated_at: now,
    };
    // Under the account's lock nothing else settles it; a trigger of another node waits for the lock and then finds it gone.
    if (await repo.settlePendingOrder(trx, Number(row.id), settlement)) cancelled.push({ ...row, ...settlement });
  }

  const amountMinor = input.startingBalanceMinor - Number(account.balance_minor);
  const balanceMinor = await postLedgerEntry(trx, {
    accountId,
    kind: 'reset',
    amountMinor,
    reference: `reset:${input.actorUserId}`,
    now,
  });

  await input.alongside?.(trx, balanceMinor);

  // docs/performance.md#the-period: the current period ends, the next starts at the reset's balance.
  await performanceRepo.endPeriod(trx, Number(period.id), now);
  const next = await performanceRepo.insertPeriod(trx, {
    accountId,
    startedAt: now,
    startBalanceMinor: balanceMinor,
    tally: EMPTY_PERFORMANCE_TALLY,
  });
  // The new curve starts at the restored balance (no position is open: equity = balance).
  await insertPoint(trx, {
    account_id: accountId,
    period_id: Number(next.id),
    time: now,
    equity_minor: balanceMinor,
    balance_minor: balanceMinor,
  });
  await performanceRepo.updateDrawdown(
    trx,
    Number(next.id),
    tallyEquityPoint(performanceRepo.drawdownFromRow(next), Dec.scaled(balanceMinor, 2)),
  );

  const response: ResetAccountResult = {
    // No position is left open: the account's figures are its balance.
    account: accountAnswer(
      deps.pricing,
      { id: accountId, balance_minor: balanceMinor, leverage: Number(account.leverage), currency: account.currency },
      [],
    ).account,
    period_start: iso(now),
    closed_positions: fills.map((f) => Number(f.position.id)),
    cancelled_orders: cancelled.map((o) => Number(o.id)),
  };
  return { now, account, fills, cancelled, balanceMinor, amountMinor, response };
}

/** After the commit, the live books, the sockets and the trigger engine hear of every change. */
function announceReset(deps: ResetDeps, input: ResetAccountInput, reset: Reset): void {
  const { account, fills, cancelled } = reset;
  const accountId = Number(account.id);
  const leverage = Number(account.leverage);
  for (const fill of fills) {
    const pair = deps.pairs.get(fill.order.symbol)!;
    const answer = filledAnswer(deps.pricing, fill, leverage, pair);
    publishExecutionEffects(deps, input.userId, accountId, fill, executionEvent(fill, answer, leverage, pair));
  }
  for (const order of cancelled) {
    const dto: OrderDto = orderDto(order, deps.pairs.get(order.symbol));
    publishOrderUpdate(deps, { userId: input.userId, accountId, order: dto });
    publishEngineChanges(deps, [{ kind: 'order_gone', orderId: Number(order.id), symbol: order.symbol }]);
  }
  publishAccountReset(
    deps,
    { userId: input.userId, accountId, balance_minor: reset.balanceMinor, amount_minor: reset.amountMinor },
    input.actorUserId,
  );
}
