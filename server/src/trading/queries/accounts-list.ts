import { type AccountSummaryDto, Dec } from '@pipdesk/contract';
import { accountsOfUser } from '../../accounts/index.js';
import type { AccountMarkets } from '../account-markets.js';
import type { TradingDeps } from '../deps.js';
import type { LiveTrading } from '../live/index.js';
import type { AccountValue } from '../math.js';
import type { UserId } from '../types.js';

/** Each challenge account's evaluation attempt, by account id. */
export interface AccountAttempts {
  ofAccounts(userId: number): Promise<Map<number, { attempt_id: number; status: 'active' | 'passed' | 'failed' }>>;
}

/** Each practice account's replay session, by account id. */
export interface AccountReplays {
  ofAccounts(userId: number): Promise<Map<number, { id: number; status: string }>>;
}

const money = (amount: Dec) => amount.round(2).toNumber(2);
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * GET trading/accounts/ (docs/accounts.md#the-accounts-call): the trader's accounts, the primary one
 * first, each valued as its dashboard values it. The live book holds every account with an open
 * position, so an account it does not hold has nothing open: its equity is its balance.
 */
export async function listAccounts(
  deps: Pick<TradingDeps, 'db'> & {
    live: Pick<LiveTrading, 'accountFigures'>;
    /** The evaluations module's attempts of the trader's challenge accounts, by account id (handed in by the app). */
    attempts?: AccountAttempts;
    /** The replay module's sessions of the trader's practice accounts, by account id (handed in by the app). */
    replays?: AccountReplays;
    /** A practice account's figures at its session's prices (account-markets.ts). */
    markets?: Pick<AccountMarkets, 'figures'>;
  },
  userId: UserId,
): Promise<AccountSummaryDto[]> {
  const rows = await accountsOfUser(deps.db.kysely, userId);
  // Only a trader holding a challenge account has attempts to look up.
  const attemptOf =
    rows.some((r) => r.kind === 'challenge') && deps.attempts ? await deps.attempts.ofAccounts(userId) : new Map();
  const replayOf = rows.some((r) => r.kind === 'practice') && deps.replays ? await deps.replays.ofAccounts(userId) : new Map();
  // A practice account is valued on its session's market, never by the live book (docs/replay.md#the-accounts-market).
  const own = new Map<number, AccountValue>();
  for (const row of rows) {
    if (row.kind !== 'practice' || !deps.markets) continue;
    const figures = await deps.markets.figures(Number(row.id), Number(row.balance_minor), Number(row.leverage));
    if (figures) own.set(Number(row.id), figures);
  }
  return rows.map((row) => {
    const live = own.get(Number(row.id)) ?? deps.live.accountFigures(Number(row.id));
    const balance = live?.balance ?? Dec.scaled(Number(row.balance_minor), 2);
    const equity = live?.equity ?? balance;
    const marginUsed = live?.marginUsed ?? Dec.ZERO;
    return {
      id: Number(row.id),
      kind: row.kind,
      name: row.name,
      currency: row.currency,
      balance: money(balance),
      equity: money(equity),
      margin_used: money(marginUsed),
      free_margin: money(equity.minus(marginUsed)),
      leverage: Number(row.leverage),
      status: row.status,
      created_at: iso(Number(row.created_at)),
      // The evaluation attempt that owns a challenge account (docs/evaluations.md), the replay session a practice one (docs/replay.md).
      challenge: attemptOf.get(Number(row.id)) ?? null,
      replay: replayOf.get(Number(row.id)) ?? null,
    };
  });
}
