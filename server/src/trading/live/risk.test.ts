import { Dec, pnlInQuote } from '@pipdesk/contract';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { errors } from '../../errors.js';
import type { Pair, Quote } from '../../market/index.js';
import type { ClosePositionResult } from '../service.js';
import { accountId, type PositionState, positionId } from '../types.js';
import { type Figures, type LiveAccount, LiveBook } from './book.js';
import { RiskEngine, type RiskService } from './risk.js';

const pair = (id: number, symbol: string): Pair => ({
  id,
  symbol,
  name: symbol,
  baseCurrency: symbol.slice(0, 3),
  quoteCurrency: symbol.slice(3),
  minLotSize: 0.01,
  maxLotSize: 100,
  contractSize: 100_000,
  spread: 0,
  pipSize: 0.0001,
  digits: 5,
  isActive: true,
});
const catalogue = [pair(1, 'EURUSD'), pair(2, 'GBPUSD')];
const at = (symbol: string, price: number): Quote => ({ symbol, bid: price, ask: price, mid: price, timestamp: 0 });

const silentLog = { info() {}, error() {}, warn() {}, debug() {} } as unknown as FastifyBaseLogger;

function position(id: number, symbol: string, centilots: number, entry: string): PositionState {
  return {
    id: positionId(id),
    accountId: accountId(1),
    pairId: symbol === 'EURUSD' ? 1 : 2,
    symbol,
    quantityCentilots: centilots,
    averageEntryPrice: entry,
    status: 'OPEN',
    realizedPnlMinor: 0,
    createdAt: 0,
    updatedAt: 0,
    closedAt: null,
  };
}

/**
 * A stand-in for the trading service with its observable behaviour: a close realizes P&L at
 * the current price into the balance and publishes the execution (applied to the book at once,
 * as the in-process bus does); negative balance protection credits a balance below 0 once
 * no position is left.
 */
function harness(options: { runsStopOuts?: boolean; balanceMinor?: number; closeGate?: () => Promise<void> } = {}) {
  const clock = new ManualClock();
  const prices = new Map<string, number>();
  const marginCalls: Figures[] = [];
  const closes: Array<{ positionId: number; reason: string; pnlMinor: number }> = [];
  const adjustments: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let engine: RiskEngine | undefined;
  const book = new LiveBook(catalogue, (account) => engine?.evaluate(account));
  const service: RiskService & { failNext?: 'conflict' } = {
    async closePosition(_userId, id, { reason }): Promise<ClosePositionResult> {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await options.closeGate?.();
        if (service.failNext === 'conflict') {
          service.failNext = undefined;
          throw errors.positionClosed();
        }
        const account = book.account(1)!;
        const live = account.positions.get(id);
        if (!live) throw errors.positionClosed();
        const price = prices.get(live.state.symbol)!;
        const pnlMinor = pnlInQuote(live.signedUnits, live.entry, price).toScaledNumber(2);
        closes.push({ positionId: id, reason, pnlMinor });
        book.applyExecution(
          1,
          7,
          { balance_minor: account.balanceMinor + pnlMinor, leverage: account.leverage },
          {
            ...live.state,
            status: 'CLOSED',
            quantityCentilots: 0,
            updatedAt: live.state.updatedAt + 1,
          },
        );
        return { profit_loss: pnlMinor / 100 } as ClosePositionResult;
      } finally {
        inFlight--;
      }
    },
    async protectNegativeBalance(id) {
      const account = book.account(id)!;
      if (account.balanceMinor >= 0 || account.positions.size > 0) return 0;
      const amount = -account.balanceMinor;
      adjustments.push(amount);
      book.setBalance(id, 0);
      return amount;
    },
  };
  engine = new RiskEngine({
    book,
    service,
    marginCallLevel: 100,
    stopOutLevel: 50,
    runsStopOuts: () => options.runsStopOuts ?? true,
    onMarginCall: (_account, figures) => marginCalls.push(figures),
    clock,
    log: silentLog,
  });
  const tick = (symbol: string, price: number) => {
    prices.set(symbol, price);
    book.onTick(at(symbol, price));
  };
  tick('EURUSD', 1.1);
  tick('GBPUSD', 1.3);
  // 1 lot EURUSD long at 1.10000 (margin 1,100.00) and 1 lot GBPUSD long at 1.30000 (1,300.00).
  const account: LiveAccount = book.loadAccount({
    accountId: accountId(1),
    userId: 7,
    balanceMinor: options.balanceMinor ?? 300_000,
    leverage: 100,
    status: 'ACTIVE',
    positions: [position(11, 'EURUSD', 100, '1.1'), position(12, 'GBPUSD', 100, '1.3')],
  });
  const level = () => book.figures(account).marginLevel?.toFixed(2) ?? null;
  return {
    book,
    engine,
    service,
    account,
    tick,
    level,
    marginCalls,
    closes,
    adjustments,
    maxInFlight: () => maxInFlight,
    idle: () => engine!.idle(),
  };
}

describe('RiskEngine', () => {
  it('sends one margin call per crossing of 100 % downwards, re-armed above it', async () => {
    const h = harness({ runsStopOuts: false });
    expect(h.level()).toBe('125.00');
    h.tick('EURUSD', 1.095); // equity 2,500.00 / margin 2,395.00
    expect(h.level()).toBe('104.38');
    h.tick('GBPUSD', 1.29); // 1,500.00 / 2,385.00
    expect(h.level()).toBe('62.89');
    h.tick('GBPUSD', 1.289);
    h.tick('GBPUSD', 1.288);
    expect(h.marginCalls).toHaveLength(1);
    expect(h.marginCalls[0]!.marginLevel!.toFixed(2)).toBe('62.89');
    h.tick('GBPUSD', 1.3); // back above 100 %
    h.tick('GBPUSD', 1.29);
    expect(h.marginCalls).toHaveLength(2);
    await h.idle();
    expect(h.closes).toEqual([]); // this node does not run stop-outs
  });

  it('stops out at 50 %: closes the largest loser first, recomputes, and repeats while still at or below', async () => {
    const h = harness();
    h.tick('EURUSD', 1.095);
    h.tick('GBPUSD', 1.28); // equity 500.00 / margin 2,375.00 = 21.05 %
    await h.idle();
    expect(h.closes).toEqual([
      { positionId: 12, reason: 'stop_out', pnlMinor: -200_000 },
      // After GBPUSD: balance 1,000.00, equity 500.00 / margin 1,095.00 = 45.66 %: still at or below.
      { positionId: 11, reason: 'stop_out', pnlMinor: -50_000 },
    ]);
    expect(h.account.positions.size).toBe(0);
    expect(h.account.balanceMinor).toBe(50_000);
    expect(h.adjustments).toEqual([]);
  });

  it('stops as soon as the level is back above 50 %', async () => {
    const h = harness({ balanceMinor: 400_000 });
    h.tick('EURUSD', 1.099); // EURUSD −100.00
    h.tick('GBPUSD', 1.272); // GBPUSD −2,800.00: equity 1,100.00 / margin 2,371.00 = 46.39 %
    expect(h.level()).toBe('46.39');
    await h.idle();
    // Closing GBPUSD leaves 1,100.00 / 1,099.00 = 100.09 %: EURUSD stays open.
    expect(h.closes.map((c) => c.positionId)).toEqual([12]);
    expect(h.level()).toBe('100.09');
  });

  it('brings a negative balance after a gap back to 0 with one adjustment', async () => {
    const h = harness();
    h.tick('EURUSD', 1.095);
    h.tick('GBPUSD', 1.25); // gap: GBPUSD −5,000.00, equity −2,500.00
    await h.idle();
    expect(h.closes.map((c) => c.positionId)).toEqual([12, 11]);
    expect(h.adjustments).toEqual([250_000]);
    expect(h.account.balanceMinor).toBe(0);
    expect(h.book.figures(h.account).equity.toFixed(2)).toBe('0.00');
  });

  it('never runs two stop-outs of one account at once', async () => {
    let release: () => void = () => {};
    const gate = () =>
      new Promise<void>((resolve) => {
        release = resolve;
      });
    const h = harness({ closeGate: gate });
    h.tick('EURUSD', 1.095);
    h.tick('GBPUSD', 1.28);
    // Ticks keep coming while the first close is in flight.
    for (let i = 0; i < 20; i++) h.tick('GBPUSD', 1.279 - i / 100_000);
    for (let i = 0; i < 5; i++) {
      release();
      await new Promise((r) => setImmediate(r));
    }
    await h.idle();
    expect(h.maxInFlight()).toBe(1);
    expect(h.closes.map((c) => c.positionId)).toEqual([12, 11]);
  });

  it('moves on when a position was closed meanwhile (409)', async () => {
    const h = harness();
    h.service.failNext = 'conflict';
    h.tick('EURUSD', 1.095);
    h.tick('GBPUSD', 1.28);
    await h.idle();
    // GBPUSD answered 409: dropped from the book as closed elsewhere. What remains (balance
    // 3,000.00, EURUSD −500.00, margin 1,095.00) is far above 50 %, so nothing else is closed.
    expect(h.closes.map((c) => c.positionId)).toEqual([]);
    expect(h.account.positions.has(12)).toBe(false);
    expect(Dec.from(h.level()!).gt(50)).toBe(true);
  });
});
