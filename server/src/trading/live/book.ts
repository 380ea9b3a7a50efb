import { accountFiguresFromTotals, type ConversionStep, conversionRoute, Dec, rateAlong, UsdRate } from '@pipdesk/contract';
import type { Pair, Quote } from '../../market/index.js';
import { type ExactQuote, exactQuote, positionMargin, positionUnrealized } from '../math.js';
import type { OpenBookAccount, PositionState } from '../types.js';
import type { Figures, LiveAccount, LivePosition } from './book-types.js';
import type { EquityWatch } from './equity-watch.js';
import { SLICE_POSITIONS, TickQueue, type TickWork } from './tick-queue.js';

export type { Figures, LiveAccount, LivePosition } from './book-types.js';
export { MAX_WAITING_TICKS, SLICE_POSITIONS } from './tick-queue.js';

interface PriceState {
  exact: ExactQuote;
  /** Bid and ask as the numbers sent to clients. */
  bidNumber: number;
  askNumber: number;
}

const HUNDRED = Dec.from(100);

/** A tick being applied: its quote, its dedupe epoch and where the walk of its positions stands. */
interface TickRun extends TickWork {
  quote: Quote;
  epoch: number;
  positions: IterableIterator<LivePosition>;
}

/**
 * The in-memory open book of every account (connected or not): positions valued at the
 * latest prices, accounts' running sums, and indexes from a symbol to the positions whose
 * valuation a tick of that symbol changes (its own pair, and pairs used to convert its quote
 * and base currencies to USD). A tick costs O(affected positions); no database access.
 */
export class LiveBook {
  private readonly accounts = new Map<number, LiveAccount>();
  private readonly positions = new Map<number, LivePosition>();
  private readonly dependents = new Map<string, Set<LivePosition>>();
  private readonly prices = new Map<string, PriceState>();
  /** USD value of one unit of each currency at current mids; undefined while a price is missing. */
  private readonly rates = new Map<string, UsdRate | undefined>();
  private readonly routes = new Map<string, ConversionStep[] | undefined>();
  /** Symbol → currencies whose USD rate it is part of. */
  private readonly rateSymbols = new Map<string, string[]>();
  private readonly pairs = new Map<string, Pair>();
  private readonly touched: LiveAccount[] = [];
  private epoch = 0;
  /** The ticks in order, applied in slices (`onTick`). */
  private readonly ticks: TickQueue<TickRun>;
  /** The tick whose listeners are being notified (null otherwise): lets the streams time a fan-out from its tick. */
  currentTick: Quote | null = null;

  constructor(
    catalogue: readonly Pair[],
    /** Called after a tick or an execution changed an account's figures. */
    private readonly onAccountChanged: (account: LiveAccount) => void,
    /** Equity watches by account (equity-watch.ts): one set before its account is here is found by ensureAccount. */
    private readonly watches: Map<number, EquityWatch> = new Map(),
    /** Positions revalued per turn of the event loop (`onTick`); tests set it small to see slices. */
    slicePositions = SLICE_POSITIONS,
  ) {
    this.ticks = new TickQueue<TickRun>(
      { start: (quote) => this.startTick(quote), slice: (run, budget) => this.revalueSlice(run, budget) },
      slicePositions,
    );
    const terms = catalogue.map((p) => ({ symbol: p.symbol, base_currency: p.baseCurrency, quote_currency: p.quoteCurrency }));
    for (const pair of catalogue) {
      this.pairs.set(pair.symbol, pair);
      for (const currency of [pair.baseCurrency, pair.quoteCurrency]) {
        if (this.routes.has(currency)) continue;
        const route = conversionRoute(currency, terms);
        this.routes.set(currency, route);
        this.rates.set(currency, currency === 'USD' ? UsdRate.ONE : undefined);
        for (const step of route ?? []) {
          const list = this.rateSymbols.get(step.symbol) ?? [];
          list.push(currency);
          this.rateSymbols.set(step.symbol, list);
        }
      }
    }
  }

  /**
   * What the book holds (docs/operations.md#memory): accounts seen (one per account that held a
   * position or executed here), open positions, and their entries in the per-symbol indexes.
   */
  counts(): { accounts: number; positions: number; dependents: number } {
    let dependents = 0;
    for (const set of this.dependents.values()) dependents += set.size;
    return { accounts: this.accounts.size, positions: this.positions.size, dependents };
  }

  // ------------------------------------------------------------------ loading and events

  /** Replaces an account's state with what the database holds (start-up). */
  loadAccount(entry: OpenBookAccount): LiveAccount {
    const account = this.ensureAccount(Number(entry.accountId), entry.userId, entry.balanceMinor, entry.leverage);
    for (const state of entry.positions) this.upsertPosition(account, state);
    return account;
  }

  /**
   * Replaces an account's balance, leverage and open positions with what the database holds,
   * dropping positions it no longer has open (a resync after a bus outage,
   * docs/operations.md#redis-outages-and-leadership). Notifies listeners.
   */
  replaceAccount(entry: OpenBookAccount): LiveAccount {
    const account = this.ensureAccount(Number(entry.accountId), entry.userId, entry.balanceMinor, entry.leverage);
    account.balanceMinor = entry.balanceMinor;
    account.leverage = entry.leverage;
    for (const position of [...account.positions.values()]) this.detach(position);
    for (const state of entry.positions) this.upsertPosition(account, state);
    this.onAccountChanged(account);
    return account;
  }

  /** Every account this node holds state for. */
  accountIds(): number[] {
    return [...this.accounts.keys()];
  }

  /** Sets (null: drops) the watch on an account's equity, now and whenever the account comes into the book. */
  watch(accountId: number, watch: EquityWatch | null): void {
    if (watch) this.watches.set(accountId, watch);
    else this.watches.delete(accountId);
    const account = this.accounts.get(accountId);
    if (account) account.watch = watch;
  }

  /** The account, created empty (no positions) if this node has not seen it yet. */
  ensureAccount(accountId: number, userId: number, balanceMinor: number, leverage: number): LiveAccount {
    let account = this.accounts.get(accountId);
    if (!account) {
      account = {
        accountId,
        userId,
        balanceMinor,
        leverage,
        positions: new Map(),
        unrealizedSum: Dec.ZERO,
        marginSum: Dec.ZERO,
        unvalued: 0,
        touchedEpoch: 0,
        ownPriceMoved: false,
        risk: { marginCallArmed: true, stopOutRunning: false, retryAt: 0 },
        watch: this.watches.get(accountId) ?? null,
      };
      this.accounts.set(accountId, account);
    }
    return account;
  }

  /**
   * Applies a committed execution: the account's balance and leverage, and the position's
   * state (an OPEN position is added or replaced, a CLOSED one removed). Notifies listeners.
   */
  applyExecution(
    accountId: number,
    userId: number,
    account: { balance_minor: number; leverage: number },
    state: PositionState | null,
  ): LiveAccount {
    const live = this.ensureAccount(accountId, userId, account.balance_minor, account.leverage);
    live.balanceMinor = account.balance_minor;
    if (live.leverage !== account.leverage) {
      live.leverage = account.leverage;
      for (const position of live.positions.values()) this.revalue(position);
    }
    if (state) this.upsertPosition(live, state);
    this.onAccountChanged(live);
    return live;
  }

  /** A balance change outside an execution (negative balance protection). */
  setBalance(accountId: number, balanceMinor: number): void {
    const account = this.accounts.get(accountId);
    if (!account || account.balanceMinor === balanceMinor) return;
    account.balanceMinor = balanceMinor;
    this.onAccountChanged(account);
  }

  /** Drops a position this node learned is closed (e.g. a stop-out's close answered before its event arrived). */
  removePosition(positionId: number): void {
    const position = this.positions.get(positionId);
    if (position) this.detach(position);
  }

  private upsertPosition(account: LiveAccount, state: PositionState): void {
    const id = Number(state.id);
    const existing = this.positions.get(id);
    // Events of one account arrive in commit order on a node; an older state (a late
    // delivery across nodes) never overwrites a newer one.
    if (existing && state.updatedAt < existing.state.updatedAt) return;
    if (existing) this.detach(existing);
    if (state.status !== 'OPEN' || state.quantityCentilots === 0) return;
    const pair = this.pairs.get(state.symbol);
    if (!pair) return; // not in the catalogue: nothing can value it
    const signedUnits = Dec.scaled(state.quantityCentilots, 2).times(pair.contractSize);
    const dependsOn = [pair.symbol];
    for (const currency of [pair.quoteCurrency, pair.baseCurrency]) {
      for (const step of this.routes.get(currency) ?? []) if (!dependsOn.includes(step.symbol)) dependsOn.push(step.symbol);
    }
    const position: LivePosition = {
      state,
      account,
      pair,
      signedUnits,
      entry: Dec.from(state.averageEntryPrice),
      long: state.quantityCentilots > 0,
      unrealized: Dec.ZERO,
      margin: Dec.ZERO,
      currentPrice: null,
      currentPriceNumber: 0,
      inputs: { price: null, quoteRate: null, baseRate: null, leverage: 0 },
      pnlUsd: Dec.ZERO,
      marginUsd: Dec.ZERO,
      valued: false,
      dependsOn,
    };
    account.unvalued++;
    account.positions.set(id, position);
    this.positions.set(id, position);
    for (const symbol of dependsOn) {
      let set = this.dependents.get(symbol);
      if (!set) {
        set = new Set();
        this.dependents.set(symbol, set);
      }
      set.add(position);
    }
    this.revalue(position);
  }

  private detach(position: LivePosition): void {
    const account = position.account;
    account.unrealizedSum = account.unrealizedSum.minus(position.unrealized);
    account.marginSum = account.marginSum.minus(position.margin);
    if (!position.valued) account.unvalued--;
    account.positions.delete(Number(position.state.id));
    this.positions.delete(Number(position.state.id));
    for (const symbol of position.dependsOn) this.dependents.get(symbol)?.delete(position);
  }

  // ------------------------------------------------------------------ ticks

  /** Seeds prices (start-up) without notifying: the caller evaluates everything afterwards. */
  seedPrice(quote: Quote): void {
    this.setPrice(quote);
  }

  /**
   * A tick: revalues the accounts it affects and notifies each touched account once. A tick
   * that moves more than `slicePositions` positions is worked through in slices, each its own
   * turn of the event loop, so requests and socket messages are served between them instead of
   * waiting behind the whole book (docs/operations.md#ticks-in-slices). A slice takes whole
   * accounts: every position of an account is revalued in the same slice, so an account's
   * figures are always those of one tick. Ticks that arrive meanwhile wait, in order, and each
   * is applied in full, unless the node falls `MAX_WAITING_TICKS` behind (tick-queue.ts).
   */
  onTick(quote: Quote): void {
    this.ticks.push(quote);
  }

  /** Ticks received and not yet applied in full: the one under way and those waiting behind it. */
  ticksPending(): number {
    return this.ticks.pending();
  }

  /** Drops the tick under way and those waiting (the node stops). */
  stop(): void {
    this.ticks.stop();
  }

  /** Applies a tick's price; the walk of the positions it moves, or null when it moves none. */
  private startTick(quote: Quote): TickRun | null {
    this.setPrice(quote);
    const affected = this.dependents.get(quote.symbol);
    if (!affected || affected.size === 0) return null;
    return { quote, epoch: ++this.epoch, positions: affected.values(), done: false };
  }

  /**
   * Revalues whole accounts of `run` until about `budget` positions are done, then notifies them;
   * the budget left (`run.done` once the walk is over).
   */
  private revalueSlice(run: TickRun, budget: number): number {
    const { quote, epoch } = run;
    const symbol = quote.symbol;
    const touched = this.touched;
    while (budget > 0) {
      const next = run.positions.next();
      if (next.done) {
        run.done = true;
        break;
      }
      const account = next.value.account;
      if (account.touchedEpoch === epoch) continue;
      account.touchedEpoch = epoch;
      account.ownPriceMoved = false;
      touched.push(account);
      for (const position of account.positions.values()) {
        if (!position.dependsOn.includes(symbol)) continue;
        const wasValued = position.valued;
        this.revalue(position);
        if (position.pair.symbol === symbol || position.valued !== wasValued) account.ownPriceMoved = true;
        budget--;
      }
    }
    // Listeners may close positions (stop-out) and so change the set being walked: they run
    // after the walk of this slice (a Set's iterator then skips a position removed meanwhile).
    this.currentTick = quote;
    try {
      for (let i = 0; i < touched.length; i++) this.onAccountChanged(touched[i]!);
    } finally {
      this.currentTick = null;
      touched.length = 0;
    }
    return budget;
  }

  private setPrice(quote: Quote): void {
    const exact = exactQuote(quote.bid, quote.ask, this.pairs.get(quote.symbol)?.digits ?? 5);
    this.prices.set(quote.symbol, { exact, bidNumber: exact.bid.toNumber(), askNumber: exact.ask.toNumber() });
    const currencies = this.rateSymbols.get(quote.symbol);
    if (!currencies) return;
    for (const currency of currencies) this.rates.set(currency, rateAlong(this.routes.get(currency) ?? [], this.midOf));
  }

  private readonly midOf = (symbol: string): Dec | undefined => this.prices.get(symbol)?.exact.mid;

  /**
   * Values one position at current prices (the order path's valuation, `trading/math.ts`, a figure
   * at a time) and applies the change to its account's sums. A figure is worked out again only
   * when one of its inputs moved: the margin with the base currency's rate or the leverage, the
   * P&L with the pair's price or the quote currency's rate. A tick of a pair that only converts a
   * position's currency so costs one of the two, and a USD-based pair's margin none. Until every
   * price it needs is there, its P&L and margin count as 0, so risk never decides on a partly
   * valued account.
   */
  private revalue(position: LivePosition): void {
    const account = position.account;
    const price = this.prices.get(position.pair.symbol);
    const quoteRate = this.rates.get(position.pair.quoteCurrency);
    const baseRate = this.rates.get(position.pair.baseCurrency);
    const inputs = position.inputs;
    if (baseRate !== inputs.baseRate || account.leverage !== inputs.leverage) {
      position.marginUsd = positionMargin(position.signedUnits, account.leverage, baseRate);
      inputs.baseRate = baseRate;
      inputs.leverage = account.leverage;
    }
    if (price !== inputs.price || quoteRate !== inputs.quoteRate) {
      if (price) {
        const currentPrice = position.long ? price.exact.bid : price.exact.ask;
        position.currentPrice = currentPrice;
        position.currentPriceNumber = position.long ? price.bidNumber : price.askNumber;
        position.pnlUsd = positionUnrealized(position.signedUnits, position.entry, currentPrice, quoteRate);
      } else position.pnlUsd = Dec.ZERO;
      inputs.price = price;
      inputs.quoteRate = quoteRate;
    }
    const valued = price !== undefined && quoteRate !== undefined && baseRate !== undefined;
    const unrealized = valued ? position.pnlUsd : Dec.ZERO;
    const margin = valued ? position.marginUsd : Dec.ZERO;
    if (unrealized !== position.unrealized)
      account.unrealizedSum = account.unrealizedSum.plus(unrealized).minus(position.unrealized);
    if (margin !== position.margin) account.marginSum = account.marginSum.plus(margin).minus(position.margin);
    if (valued !== position.valued) account.unvalued += valued ? -1 : 1;
    position.unrealized = unrealized;
    position.margin = margin;
    position.valued = valued;
  }

  // ------------------------------------------------------------------ reading

  account(accountId: number): LiveAccount | undefined {
    return this.accounts.get(accountId);
  }

  /** Every account holding open positions (risk checks at start-up). */
  *accountsWithPositions(): IterableIterator<LiveAccount> {
    for (const account of this.accounts.values()) if (account.positions.size > 0) yield account;
  }

  /**
   * Whether the margin level is at or below `levelRaw` percent (a Dec's raw value): exact,
   * without a division, since the risk engine asks it for every touched account on every tick.
   * False with no margin used.
   */
  levelAtOrBelow(account: LiveAccount, levelRaw: bigint): boolean {
    const margin = account.marginSum.raw;
    if (margin <= 0n) return false;
    const equity = Dec.scaled(account.balanceMinor, 2).raw + account.unrealizedSum.raw;
    return equity * HUNDRED.raw <= margin * levelRaw;
  }

  figures(account: LiveAccount): Figures {
    const balance = Dec.scaled(account.balanceMinor, 2);
    return {
      balance,
      ...accountFiguresFromTotals(balance, account.unrealizedSum, account.marginSum),
      leverage: account.leverage,
    };
  }

  /** The open position with the largest loss: the most negative unrealized P&L (the smallest gain if none loses). */
  largestLoser(account: LiveAccount): LivePosition | undefined {
    let worst: LivePosition | undefined;
    for (const position of account.positions.values()) {
      if (!worst || position.unrealized.lt(worst.unrealized)) worst = position;
    }
    return worst;
  }
}
