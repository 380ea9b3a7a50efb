import { openAccount } from '../accounts/index.js';
import { insertSession } from '../auth/repo.js';
import { createTokens, newTokenId } from '../auth/tokens.js';
import type { AppContext } from '../core/context.js';
import { writeTransaction } from '../db/transaction.js';
import { seededPairs } from '../market/catalogue.js';
import type { Pair, PairCatalog, PriceBook, Quote } from '../market/index.js';

let counter = 0;

export interface InsertedTrader {
  userId: number;
  email: string;
  fullName: string;
  accountId: number | null;
}

/**
 * A trader straight in the database (no password hashing): a user row and, unless
 * `withAccount` is false, the profile and an account funded by a deposit. For service tests
 * that do not sign in; API tests use test/traders.ts.
 */
export async function insertTrader(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  options: { balanceMinor?: number; leverage?: number; withAccount?: boolean; status?: 'ACTIVE' | 'SUSPENDED' } = {},
): Promise<InsertedTrader> {
  counter += 1;
  const email = `factory${counter}.${process.pid}.${Date.now()}@example.com`;
  const fullName = `Factory Trader ${counter}`;
  const now = ctx.clock.now();
  return writeTransaction(ctx.db, async (trx) => {
    const user = await trx
      .insertInto('users')
      .values({ email, password_hash: 'not-a-hash', full_name: fullName, is_active: 1, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const userId = Number(user.id);
    if (options.withAccount === false) return { userId, email, fullName, accountId: null };
    const { accountId } = await openAccount(trx, {
      userId,
      balanceMinor: options.balanceMinor ?? 1_000_000,
      leverage: options.leverage ?? 100,
      now,
    });
    if (options.status && options.status !== 'ACTIVE') {
      await trx.updateTable('trading_accounts').set({ status: options.status }).where('id', '=', accountId).execute();
    }
    return { userId, email, fullName, accountId };
  });
}

/**
 * A trader with a live session, signed in without hashing a password (scrypt costs about a
 * second per sign-in): the session row and an access token as auth issues them. For API
 * tests that need many traders; tests of sign-in itself use test/traders.ts.
 */
export async function insertSignedInTrader(
  t: { ctx: AppContext },
  options: Parameters<typeof insertTrader>[1] = {},
): Promise<InsertedTrader & { token: string; headers: { authorization: string } }> {
  const trader = await insertTrader(t.ctx, options);
  const sessionId = newTokenId();
  await writeTransaction(t.ctx.db, (trx) => insertSession(trx, { id: sessionId, userId: trader.userId, now: t.ctx.clock.now() }));
  const { token } = await createTokens(t.ctx.config, t.ctx.clock).sign('access', trader.userId, sessionId);
  return { ...trader, token, headers: { authorization: `Bearer ${token}` } };
}

/** The seeded catalogue as Pair objects with ids 1..12 (service tests without the market module). */
export { seededPairs };

/** A market whose prices tests set by hand: the catalogue and price book the trading service reads. */
export class FakeMarket {
  readonly pairs: PairCatalog;
  readonly prices: PriceBook;
  private readonly quotes = new Map<string, Quote>();
  private readonly arrivals = new Map<string, number>();
  private readonly listeners = new Set<(q: Quote) => void>();

  constructor(pairs: Pair[] = seededPairs()) {
    const bySymbol = new Map(pairs.map((p) => [p.symbol, p]));
    this.pairs = { list: () => [...pairs], get: (s) => bySymbol.get(s.toUpperCase()) };
    this.prices = {
      latest: (s) => this.quotes.get(s.toUpperCase()),
      all: () => [...this.quotes.values()],
      // A fake's quote is fresh whenever it is read, unless a test says when it arrived.
      receivedAt: (s) =>
        this.quotes.has(s.toUpperCase()) ? (this.arrivals.get(s.toUpperCase()) ?? Number.POSITIVE_INFINITY) : undefined,
      onTick: (l) => {
        this.listeners.add(l);
        return () => this.listeners.delete(l);
      },
    };
  }

  /** Sets the current quote (timestamp fixed: tests do not depend on it). */
  set(symbol: string, bid: number, ask: number = bid): Quote {
    const quote: Quote = { symbol, bid, ask, mid: (bid + ask) / 2, timestamp: Date.UTC(2026, 0, 5, 12) };
    this.quotes.set(symbol, quote);
    for (const l of this.listeners) l(quote);
    return quote;
  }

  clear(symbol: string): void {
    this.quotes.delete(symbol);
  }

  /** Says when the symbol's current quote arrived (epoch ms), so its age counts (stale-quote tests). */
  arrivedAt(symbol: string, at: number): void {
    this.arrivals.set(symbol.toUpperCase(), at);
  }
}

/** Plausible prices for every seeded pair (one-pip spread). */
export const TYPICAL_PRICES: Record<string, number> = {
  EURUSD: 1.085,
  GBPUSD: 1.27,
  USDJPY: 150,
  USDCHF: 0.88,
  AUDUSD: 0.66,
  USDCAD: 1.36,
  NZDUSD: 0.61,
  EURGBP: 0.855,
  EURJPY: 162.75,
  GBPJPY: 190.5,
  EURCHF: 0.955,
  AUDJPY: 99,
};
