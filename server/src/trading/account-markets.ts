import { Dec } from '@pipdesk/contract';
import { findAccountById } from '../accounts/index.js';
import type { Clock } from '../core/clock.js';
import type { PriceBook, Quote } from '../market/index.js';
import type { Bus, BusEvents } from '../realtime/bus.js';
import { stopOutOnOwnMarket } from './account-stop-out.js';
import { createTriggerExecutor } from './commands/triggers.js';
import type { TradingDeps } from './deps.js';
import { ENGINE_TOPIC, type EngineChange } from './engine/ports.js';
import { applyEngineChange, executeStep, type StepDeps } from './engine/steps.js';
import { type BookQuote, TriggerBook } from './engine/trigger-book.js';
import { SAMPLE_EVERY_MS, samplePracticeAccount } from './equity-curve/sampler.js';
import {
  BALANCE_ADJUSTED_TOPIC,
  ORDER_UPDATE_TOPIC,
  POSITION_PROTECTION_TOPIC,
  type PositionProtectionPayload,
} from './events.js';
import { type AccountValue, exactTickPrice, Pricing, valueAccount } from './math.js';
import * as repo from './repo.js';
import type { PositionState } from './types.js';

// An account's own market (docs/replay.md#the-accounts-market): a practice account bound to a
// replay session values and fills at the session's quotes and clock, and its pending orders,
// stops, targets and trailing stops are triggered by the session's ticks, never by the live
// market. Trading keeps the live path as it was: a call that names no account, or an account
// no other market claims, uses the one live Pricing, clock and trigger engine.

/** What another market hands trading for one account. */
export interface AccountMarketSource {
  /** Its prices: the last quote of each pair it plays, and conversion rates at its clock. */
  readonly prices: PriceBook;
  /** The account's "now" for every price, fill, expiry and timestamp. */
  readonly clock: Clock;
  /** The pairs the account may trade (an order on another is refused). */
  readonly symbols: readonly string[];
}

/** An account bound to its own market: what that market's driver feeds. */
export interface BoundAccountMarket {
  readonly accountId: number;
  readonly symbols: readonly string[];
  /** The market's last quote of a pair (its own pairs' ticks, any other pair's conversion quote). */
  quote(symbol: string): Quote | undefined;
  /**
   * Plays one tick (already the source's latest quote, the clock at its time): GTD orders due by
   * then expire, then every trigger it crosses runs in the engine's order, each awaited, so the
   * next tick sees what this one did (docs/order-engine.md#ordering).
   */
  tick(quote: Quote): Promise<void>;
  /** Writes the trailing stops moved since the last call (after every advance). */
  flush(): Promise<void>;
}

/**
 * Finds the market of an account this node has not bound yet (a replay session stored in the
 * database): binds it and resolves, or resolves without binding when the account is live.
 */
export type AccountMarketLoader = (accountId: number) => Promise<void>;

/** The driver of the bound accounts' markets, kept true across nodes (docs/replay.md#many-nodes). */
export interface AccountMarketRefresher {
  /**
   * Before a call uses a bound account's market: checks it against where its driver stored it and
   * binds it again (`rebind`) when another node moved it or changed the account.
   */
  refresh(accountId: number): Promise<void>;
  /** The account's orders, positions or balance changed on this node (committed): other nodes' copies are behind. */
  changed(accountId: number): void;
}

/**
 * Who follows what happens on the bound accounts (the trading socket's books of practice
 * accounts, trading/live/practice.ts): their executions never go on the bus, so this is the only
 * way they leave the account's market. Called synchronously, in the order things happen.
 */
export interface AccountMarketObserver {
  /** An account was bound (again, after `rebind`: its new market replaces the old), with its state as loaded (balance, leverage, open positions). */
  bound(
    market: BoundAccountMarket,
    account: { userId: number; balanceMinor: number; leverage: number; positions: PositionState[] },
  ): void;
  /** A tick of its market, before the triggers it crosses run (so their fills are valued at it). */
  tick(accountId: number, quote: Quote): void;
  /** A committed execution of the account (what the bus's 'execution' carries for a live account). */
  execution(event: BusEvents['execution']): void;
  /** Its balance changed outside an execution (negative balance protection). */
  balance(accountId: number, balanceMinor: number): void;
  /** The trader changed a position's protection. */
  protection(change: PositionProtectionPayload): void;
  /** The market's clock moved (after every advance): the conversion rates of the pairs it does not play moved with it. */
  moved(market: BoundAccountMarket): void;
  /** Whether a trading socket of this node serves the account now (a replay session plays only then). */
  watched(accountId: number): boolean;
}

/** Accounts known to be on the live market, kept at most (oldest forgotten first): ids are never reused. */
const MAX_KNOWN_LIVE = 50_000;

interface Bound extends BoundAccountMarket {
  readonly deps: TradingDeps;
}

/**
 * The accounts of this node bound to a market of their own, and the trading dependencies each
 * one's commands run with. The named entry point other modules use (trading/index.ts).
 */
export class AccountMarkets {
  private readonly bound = new Map<number, Bound>();
  private readonly binding = new Map<number, Promise<Bound>>();
  private readonly knownLive = new Set<number>();
  private loader: AccountMarketLoader | undefined;
  private refresher: AccountMarketRefresher | undefined;
  private observer: AccountMarketObserver | undefined;
  private readonly movedListeners = new Set<(market: BoundAccountMarket) => void>();

  constructor(
    private readonly live: TradingDeps,
    /** Percent (docs/trading-rules.md#margin-call-and-stop-out): a bound account is stopped out on its own market's ticks. */
    private readonly stopOutLevel: number,
  ) {}

  /** Who binds an account this node has not seen (the replay module, at start). */
  setLoader(loader: AccountMarketLoader): void {
    this.loader = loader;
  }

  /** Who checks a bound account's market before each call that names it (the replay module, at start). */
  setRefresher(refresher: AccountMarketRefresher): void {
    this.refresher = refresher;
  }

  /** Who follows the bound accounts (live trading, at creation: before any account is bound). */
  observe(observer: AccountMarketObserver): void {
    this.observer = observer;
  }

  /**
   * Called after every advance of a bound account's market (its clock moved; its quotes may have):
   * the price socket of a practice account follows its session this way
   * (docs/replay.md#the-price-socket-of-a-practice-account). Returns the unsubscribe.
   */
  onMoved(listener: (market: BoundAccountMarket) => void): () => void {
    this.movedListeners.add(listener);
    return () => this.movedListeners.delete(listener);
  }

  /**
   * Whether a trading socket of this node serves the bound account now: a replay session's play
   * loop moves it only then (docs/replay.md#playing).
   */
  watched(accountId: number): boolean {
    return this.observer?.watched(accountId) ?? false;
  }

  /** Binds `accountId` to `source`: loads its armed orders and protection into a trigger book of its own. */
  bind(accountId: number, source: AccountMarketSource): Promise<BoundAccountMarket> {
    const bound = this.bound.get(accountId);
    if (bound) return Promise.resolve(bound);
    const existing = this.binding.get(accountId);
    if (existing) return existing;
    this.knownLive.delete(accountId);
    const binding = this.create(accountId, source).finally(() => this.binding.delete(accountId));
    this.binding.set(accountId, binding);
    return binding;
  }

  /**
   * Binds `accountId` again to a new `source`, its trigger book and state loaded again from the
   * database: its market was moved elsewhere (another node) and this node's copy is behind
   * (docs/replay.md#many-nodes). The observer's book of the account is replaced, its sockets kept.
   */
  async rebind(accountId: number, source: AccountMarketSource): Promise<BoundAccountMarket> {
    await this.binding.get(accountId)?.catch(() => undefined);
    this.bound.delete(accountId);
    return this.bind(accountId, source);
  }

  /**
   * Tells the followers of `onMoved` that the account's market moved other than by an advance (after
   * `rebind`, once its driver answers from the new market): its price sockets catch up.
   */
  notifyMoved(bound: BoundAccountMarket): void {
    for (const listener of this.movedListeners) {
      try {
        listener(bound);
      } catch (err) {
        this.live.log.error({ err, accountId: bound.accountId }, 'a listener of an account market failed');
      }
    }
  }

  /**
   * The dependencies a call on `accountId` runs with: the live ones, or its own market's. An
   * account this node has not seen is asked of the loader once.
   */
  async depsFor(accountId: number | undefined): Promise<TradingDeps> {
    if (accountId === undefined) return this.live;
    return (await this.marketOf(accountId))?.deps ?? this.live;
  }

  /** The bound market of `accountId`, binding it through the loader when it has one; undefined on the live market. */
  async marketOf(accountId: number): Promise<Bound | undefined> {
    const bound = this.bound.get(accountId);
    if (bound) {
      if (!this.refresher) return bound;
      // Only an account on a market of its own pays this (one read): the live path never gets here.
      await this.refresher.refresh(accountId);
      return this.bound.get(accountId) ?? (await this.binding.get(accountId));
    }
    if (this.knownLive.has(accountId)) return undefined;
    const binding = this.binding.get(accountId);
    if (binding) return binding;
    if (this.loader) await this.loader(accountId);
    const found = this.bound.get(accountId) ?? (await this.binding.get(accountId));
    if (found) return found;
    if (this.knownLive.size >= MAX_KNOWN_LIVE) {
      const oldest = this.knownLive.values().next().value;
      if (oldest !== undefined) this.knownLive.delete(oldest);
    }
    this.knownLive.add(accountId);
    return undefined;
  }

  /**
   * The figures of an account bound to its own market, at that market's prices (the accounts call;
   * the live book never holds such an account); undefined for an account on the live market.
   */
  async figures(accountId: number, balanceMinor: number, leverage: number): Promise<AccountValue | undefined> {
    const market = await this.marketOf(accountId);
    if (!market) return undefined;
    const positions = (await repo.openPositions(this.live.db.kysely, accountId)).map(repo.positionStateFromRow);
    return valueAccount(balanceMinor, leverage, positions, market.deps.pricing);
  }

  private async create(accountId: number, source: AccountMarketSource): Promise<Bound> {
    const { live } = this;
    const book = new TriggerBook(live.pairs.list());
    // No stale limit: a session's quote is as fresh as its clock says (docs/replay.md).
    const pricing = new Pricing(live.pairs, source.prices);
    const row = await findAccountById(live.db.kysely, accountId);
    if (!row) throw new Error(`account ${accountId} to bind does not exist`);
    // What a stop-out on this market needs, kept by the account's own executions (its bus).
    const account = {
      userId: Number(row.user_id),
      balanceMinor: Number(row.balance_minor),
      leverage: Number(row.leverage),
      open: new Map<number, PositionState>(),
    };
    for (const p of await repo.openPositions(live.db.kysely, accountId)) {
      const state = repo.positionStateFromRow(p);
      account.open.set(state.id, state);
    }
    const deps: TradingDeps = {
      ...live,
      pricing,
      // Only "now" of the market moves with the session: `keyClock` stays real time (docs/trading-rules.md#idempotency).
      clock: source.clock,
      bus: accountBus(live.bus, {
        changed: () => this.refresher?.changed(accountId),
        onEngineChange: (change) => applyEngineChange(book, change, live.log),
        onExecution: (event) => {
          const { balance_minor: balanceMinor } = event.payload.account;
          const state = event.payload.position_state;
          account.balanceMinor = balanceMinor;
          this.observer?.execution(event);
          if (!state) return;
          if (state.status === 'OPEN') account.open.set(state.id, state);
          else {
            account.open.delete(state.id);
            pricing.forgetValuation(state.id);
          }
        },
        onBalance: (balanceMinor) => {
          account.balanceMinor = balanceMinor;
          this.observer?.balance(accountId, balanceMinor);
        },
        onProtection: (change) => this.observer?.protection(change),
      }),
    };
    const stopOutLevel = Dec.from(this.stopOutLevel);
    // `account` itself, not a copy: its balance follows the closes' executions between rounds.
    const stopOutIfDue = () => stopOutOnOwnMarket(deps, accountId, account, stopOutLevel);
    const executor = createTriggerExecutor(deps, { accountId });
    const armed = await executor.loadArmed();
    book.load(armed.orders, armed.protections);
    const retries: Array<() => void> = [];
    let sampledBucket = Math.floor(source.clock.now() / SAMPLE_EVERY_MS);
    const steps: StepDeps = {
      executor,
      book,
      log: live.log,
      clock: source.clock,
      market: { pairs: live.pairs },
      // A failed execution is tried again from the next tick on, as the live engine does a second later.
      retryLater: (rearm) => retries.push(rearm),
    };
    const bound: Bound = {
      accountId,
      symbols: source.symbols,
      quote: (symbol) => source.prices.latest(symbol),
      deps,
      tick: async (quote) => {
        this.observer?.tick(accountId, quote);
        for (const rearm of retries.splice(0)) rearm();
        const due = book.nextExpiry();
        if (due !== undefined && due <= quote.timestamp) {
          for (const order of book.expireDue(quote.timestamp)) await executeStep(steps, { expire: order });
        }
        const pair = live.pairs.get(quote.symbol);
        if (!pair) return;
        // As the live engine reads a tick (engine.ts), without an arrival time: never stale.
        const bookQuote: BookQuote = {
          symbol: pair.symbol,
          bid: exactTickPrice(quote.bid, pair.digits),
          ask: exactTickPrice(quote.ask, pair.digits),
          timestamp: quote.timestamp,
        };
        for (const trigger of book.onTick(bookQuote).triggers) await executeStep(steps, { trigger, quote: bookQuote });
        if (account.open.size > 0) {
          try {
            await stopOutIfDue();
          } catch (err) {
            // Decided again on the next tick, as the live risk engine retries.
            live.log.error({ err, accountId }, 'stop-out on an account market failed; retrying on a later tick');
          }
        }
        // The equity curve's point every 15 minutes of the market's own time while positions are open.
        const sampleBucket = Math.floor(quote.timestamp / SAMPLE_EVERY_MS);
        if (sampleBucket > sampledBucket) {
          sampledBucket = sampleBucket;
          if (account.open.size > 0) {
            try {
              await samplePracticeAccount(deps, accountId);
            } catch (err) {
              live.log.warn({ err, accountId }, 'equity curve: sampling an account market failed');
            }
          }
        }
      },
      flush: async () => {
        this.observer?.moved(bound);
        // A listener that throws must not stop the trailing stops' write below.
        this.notifyMoved(bound);
        const moves = book.takeTrailingMoves();
        if (moves.length === 0) return;
        try {
          await executor.saveTrailingStops(moves);
        } catch (err) {
          book.restoreTrailingMoves(moves);
          throw err;
        }
      },
    };
    this.bound.set(accountId, bound);
    this.observer?.bound(bound, {
      userId: account.userId,
      balanceMinor: account.balanceMinor,
      leverage: account.leverage,
      positions: [...account.open.values()],
    });
    return bound;
  }
}

/**
 * The bus an account on its own market publishes to: its engine changes go to its own trigger
 * book (never to the live engine), its executions stay off the live books (the live market never
 * values a practice account) and go to the observer (the practice account's own book on the
 * trading socket), and only its order updates reach the trader's sockets through the bus.
 */
function accountBus(
  live: Bus,
  to: {
    /** Anything of the account changed (an engine change, an execution, its balance, a protection). */
    changed: () => void;
    onEngineChange: (change: EngineChange) => void;
    onExecution: (event: BusEvents['execution']) => void;
    onBalance: (balanceMinor: number) => void;
    onProtection: (change: PositionProtectionPayload) => void;
  },
): Bus {
  return {
    name: live.name,
    publish(topic, payload) {
      if (topic === 'message') {
        const message = payload as BusEvents['message'];
        if (message.topic === ENGINE_TOPIC) {
          to.changed();
          to.onEngineChange(message.payload as EngineChange);
        } else if (message.topic === ORDER_UPDATE_TOPIC) live.publish(topic, payload);
        else if (message.topic === BALANCE_ADJUSTED_TOPIC) {
          to.changed();
          to.onBalance(message.payload.balance_minor);
        } else if (message.topic === POSITION_PROTECTION_TOPIC) {
          to.changed();
          to.onProtection(message.payload);
        }
        return;
      }
      if (topic === 'execution') {
        to.changed();
        to.onExecution(payload as BusEvents['execution']);
      }
    },
    subscribe: (topic, handler) => live.subscribe(topic, handler),
    healthy: () => live.healthy(),
    onHealthChange: (listener) => live.onHealthChange(listener),
    close: async () => {},
  };
}
