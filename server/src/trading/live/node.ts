import type { AppContext } from '../../core/context.js';
import type { MarketModule } from '../../market/index.js';
import type { BusPayload } from '../../realtime/bus.js';
import {
  BALANCE_ADJUSTED_TOPIC,
  ORDER_UPDATE_TOPIC,
  POSITION_PROTECTION_TOPIC,
  type PositionProtectionPayload,
} from '../events.js';
import type { TradingService } from '../service.js';
import { type Figures, type LiveAccount, LiveBook } from './book.js';
import { checkEquityWatch, type EquityWatch } from './equity-watch.js';
import { HeldEvents } from './held-events.js';
import type { Pacing } from './pacer.js';
import { BookResync } from './resync.js';
import { RiskEngine } from './risk.js';
import type { TradingSocketServer } from './socket.js';
import { PnlStreams, PriceFanout } from './streams.js';
import { applyProtection, executionFrames, marginCallFrame, orderUpdateFrame, type SendToAccount } from './trader-messages.js';

/** What the live part needs from the trading service. */
export type LiveTradingService = Pick<TradingService, 'closePosition' | 'loadOpenBook' | 'protectNegativeBalance'>;

export interface LiveNodeDeps {
  ctx: Pick<AppContext, 'bus' | 'clock' | 'config' | 'db' | 'log'>;
  market: Pick<MarketModule, 'pairs' | 'isLeader'>;
  service: LiveTradingService;
  sockets: Pick<TradingSocketServer, 'authenticated'>;
  pacing: Pacing;
  send: SendToAccount;
  /** Other modules' watches on accounts' equity (equity-watch.ts), checked after the risk engine. */
  watches?: Map<number, EquityWatch>;
}

/**
 * This node's live trading state, built once when live trading starts, each part with one
 * owner: the open book valued on every tick, the paced P&L streams, the price fan-out, the
 * risk engine (docs/trading-rules.md#margin-call-and-stop-out), the bus events held while the
 * book loads and the reload after a bus outage. It applies the bus's trading events to the book
 * and tells the traders concerned.
 */
export class LiveNode {
  readonly book: LiveBook;
  readonly streams: PnlStreams;
  readonly prices: PriceFanout;
  readonly risk: RiskEngine;
  readonly held = new HeldEvents();
  readonly resync: BookResync;

  constructor(private readonly deps: LiveNodeDeps) {
    const { ctx, market, service, pacing } = deps;
    // The book calls back only on ticks and events, after every part below exists.
    this.book = new LiveBook(market.pairs.list(), (account) => this.accountChanged(account), deps.watches);
    this.streams = new PnlStreams(this.book, pacing, ctx.log);
    this.prices = new PriceFanout(deps.sockets.authenticated, (symbol) => market.pairs.get(symbol), pacing, ctx.log, true);
    this.risk = new RiskEngine({
      book: this.book,
      service,
      marginCallLevel: ctx.config.marginCallLevel,
      stopOutLevel: ctx.config.stopOutLevel,
      // docs/operations.md#one-process-or-many: in a multi-node deployment only the price-source leader closes positions.
      runsStopOuts: () => market.isLeader(),
      onMarginCall: (account, figures) => deps.send(account.userId, account.accountId, () => [this.marginCallFrame(figures)]),
      clock: ctx.clock,
      log: ctx.log,
    });
    this.resync = new BookResync({ db: ctx.db, log: ctx.log, service, book: this.book, held: this.held, send: deps.send });
  }

  marginCallFrame(figures: Figures): Buffer {
    return marginCallFrame(figures, this.deps.ctx.config.stopOutLevel);
  }

  /**
   * Follows the bus's trading events: executions, order changes, protection and balance changes
   * (docs/ARCHITECTURE.md#many-processes). Those that change the book wait while it loads.
   */
  followTradingEvents(): Array<() => void> {
    const { bus } = this.deps.ctx;
    return [
      bus.subscribe('execution', (event) => this.held.apply(() => this.onExecution(event))),
      bus.subscribe('message', ({ topic, payload }) => {
        if (topic === ORDER_UPDATE_TOPIC)
          return this.deps.send(payload.userId, payload.accountId, () => [orderUpdateFrame(payload.order)]);
        if (topic === POSITION_PROTECTION_TOPIC) return this.held.apply(() => this.onPositionProtection(payload));
        if (topic === BALANCE_ADJUSTED_TOPIC)
          this.held.apply(() => this.book.setBalance(payload.accountId, payload.balance_minor));
      }),
    ];
  }

  private accountChanged(account: LiveAccount): void {
    this.risk.evaluate(account);
    checkEquityWatch(account);
    this.streams.accountChanged(account);
  }

  private onExecution({ userId, accountId, payload }: BusPayload<'execution'>): void {
    const account = this.book.applyExecution(accountId, userId, payload.account, payload.position_state);
    this.deps.send(userId, accountId, () => executionFrames(payload, account));
  }

  /** The trader changed a position's protection: the live book keeps it, the trader's sockets see the positions again. */
  private onPositionProtection(change: PositionProtectionPayload): void {
    applyProtection(this.book.account(change.accountId), change, this.deps.send);
  }
}
