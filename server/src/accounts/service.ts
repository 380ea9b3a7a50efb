import { newPasswordSchema } from '@pipdesk/contract';
import { z } from 'zod';
import { hashPassword } from '../auth/passwords.js';
import * as users from '../auth/repo.js';
import { normalizeEmail } from '../auth/service.js';
import type { AppContext } from '../core/context.js';
import { parseInput } from '../core/validate.js';
import { writeTransaction } from '../db/transaction.js';
import { errors } from '../errors.js';
import type { NewTrader } from './index.js';
import { postLedgerEntry } from './ledger.js';
import { lockAccountByUser, openAccount, recordAccountChange } from './repo.js';

/** Leverage a trading account may have (1:1 to 1:1000, the range retail FX brokers offer). */
export const LEVERAGE_MIN = 1;
export const LEVERAGE_MAX = 1000;
export const DEFAULT_BALANCE_MINOR = 1_000_000;
export const DEFAULT_LEVERAGE = 100;

const newTraderSchema = z.strictObject({
  email: z.string().trim().max(254).email('must be an e-mail address'),
  fullName: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  password: newPasswordSchema,
  balanceMinor: z
    .number()
    .int('must be whole cents')
    .min(0, 'must not be negative')
    .max(Number.MAX_SAFE_INTEGER)
    .default(DEFAULT_BALANCE_MINOR),
  leverage: z
    .number()
    .int('must be a whole number')
    .min(LEVERAGE_MIN, `must be ${LEVERAGE_MIN} to ${LEVERAGE_MAX}`)
    .max(LEVERAGE_MAX, `must be ${LEVERAGE_MIN} to ${LEVERAGE_MAX}`)
    .default(DEFAULT_LEVERAGE),
  withAccount: z.boolean().default(true),
});

export interface CreatedTrader {
  userId: number;
  email: string;
  fullName: string;
  /** Absent with `withAccount: false`. */
  account?: { accountId: number; balanceMinor: number; leverage: number };
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Creates a trader: the user and, unless `withAccount` is false, the trader profile and a USD
 * account funded by a deposit ledger entry, all in one transaction. 400 on bad input (the
 * password policy of docs/operations.md#passwords), 409 when the e-mail is taken (case-insensitive).
 */
export async function createTrader(deps: Pick<AppContext, 'db' | 'clock'>, input: NewTrader): Promise<CreatedTrader> {
  const trader = parseInput(newTraderSchema, input);
  const email = normalizeEmail(trader.email);
  // Hash before the transaction: scrypt takes a few hundred ms and must not hold the write lock.
  const passwordHash = await hashPassword(trader.password);
  const now = deps.clock.now();
  try {
    return await writeTransaction(deps.db, async (trx) => {
      const userId = await users.insertUser(trx, { email, passwordHash, fullName: trader.fullName, now });
      if (!trader.withAccount) return { userId, email, fullName: trader.fullName };
      const { accountId } = await openAccount(trx, {
        userId,
        balanceMinor: trader.balanceMinor,
        leverage: trader.leverage,
        now,
      });
      return {
        userId,
        email,
        fullName: trader.fullName,
        account: { accountId, balanceMinor: trader.balanceMinor, leverage: trader.leverage },
      };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.traderExists(email);
    throw err;
  }
}

export interface TraderSummary {
  userId: number;
  email: string;
  fullName: string;
  active: boolean;
  createdAt: number;
  account: { accountId: number; balanceMinor: number; leverage: number; currency: string; status: string } | null;
}

/** Every trader with their account, oldest first (the CLI's `list`). */
export async function listTraders(deps: Pick<AppContext, 'db'>): Promise<TraderSummary[]> {
  const rows = await deps.db.kysely
    .selectFrom('users')
    .leftJoin('trading_accounts', (join) =>
      join.onRef('trading_accounts.user_id', '=', 'users.id').on('trading_accounts.kind', '=', 'primary'),
    )
    .select([
      'users.id',
      'users.email',
      'users.full_name',
      'users.is_active',
      'users.created_at',
      'trading_accounts.id as account_id',
      'trading_accounts.balance_minor',
      'trading_accounts.leverage',
      'trading_accounts.currency',
      'trading_accounts.status',
    ])
    .orderBy('users.id')
    .execute();
  return rows.map((r) => ({
    userId: Number(r.id),
    email: r.email,
    fullName: r.full_name,
    active: r.is_active === 1,
    createdAt: Number(r.created_at),
    account:
      r.account_id === null
        ? null
        : {
            accountId: Number(r.account_id),
            balanceMinor: Number(r.balance_minor),
            leverage: Number(r.leverage),
            currency: r.currency ?? 'USD',
            status: r.status ?? 'ACTIVE',
          },
  }));
}

/** One deposit at most 1,000,000,000.00 USD (the academy's largest starting balance): more is a typo. */
export const DEPOSIT_MAX_MINOR = 100_000_000_000;
/** The note's length limit (the column's). */
export const DEPOSIT_NOTE_MAX_LENGTH = 500;

const depositSchema = z.strictObject({
  email: z.string().trim().max(254).email('must be an e-mail address'),
  amountMinor: z
    .number()
    .int('must be whole cents')
    .positive('must be more than 0')
    .max(DEPOSIT_MAX_MINOR, `must be at most ${DEPOSIT_MAX_MINOR / 100} USD`),
  note: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(DEPOSIT_NOTE_MAX_LENGTH, `must be at most ${DEPOSIT_NOTE_MAX_LENGTH} characters`),
});

export interface Deposit {
  email: string;
  userId: number;
  accountId: number;
  /** The ledger entry's amount and the balance right after it, in cents. */
  amountMinor: number;
  balanceMinor: number;
}

/**
 * Deposits money into a trader's account (`npm run trader -- deposit`, docs/operations.md#deposits):
 * one `deposit` ledger entry with the operator's note and the balance update, under the
 * account's lock, in one transaction with an `account_changes` row from which every running
 * server reloads the account's balance. 400 on bad input, 404 for an unknown e-mail, 409
 * NO_TRADING_ACCOUNT for a user without an account.
 */
export async function depositToAccount(
  deps: Pick<AppContext, 'db' | 'clock'>,
  input: { email: string; amountMinor: number; note: string },
): Promise<Deposit> {
  const deposit = parseInput(depositSchema, input);
  const email = normalizeEmail(deposit.email);
  const now = deps.clock.now();
  return writeTransaction(deps.db, async (trx) => {
    const user = await users.findUserByEmail(trx, email);
    if (!user) throw errors.traderNotFound(email);
    // The same lock every execution takes first (docs/trading-rules.md#concurrency).
    const account = await lockAccountByUser(trx, Number(user.id));
    if (!account) throw errors.noTradingAccount();
    const accountId = Number(account.id);
    if (Number(account.balance_minor) + deposit.amountMinor > Number.MAX_SAFE_INTEGER) {
      throw errors.badRequest('The balance would exceed what the ledger can hold exactly');
    }
    const balanceMinor = await postLedgerEntry(trx, {
      accountId,
      kind: 'deposit',
      amountMinor: deposit.amountMinor,
      reference: null,
      note: deposit.note,
      now,
    });
    await recordAccountChange(trx, deps.db.kind, accountId, now);
    return { email: user.email, userId: Number(user.id), accountId, amountMinor: deposit.amountMinor, balanceMinor };
  });
}
