import { Dec } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import type { TradingAccountRow } from '../accounts/index.js';
import { FakeMarket } from '../test/factories.js';
import { decideFill, type ExecutionRequest } from './fill-decision.js';
import { Pricing, priceToE10 } from './math.js';
import type { OrderRow, PositionRow } from './rows.js';

// The decision alone (docs/trading-rules.md): no database, only its inputs and the prices in memory.
const NOW = Date.UTC(2026, 0, 5, 12);

function setup() {
  const market = new FakeMarket();
  market.set('EURUSD', 1.1, 1.1002);
  const pricing = new Pricing(market.pairs, market.prices);
  const account: TradingAccountRow = {
    id: 7,
    user_id: 3,
    profile_id: 5,
    kind: 'primary',
    name: 'Primary',
    currency: 'USD',
    balance_minor: 1_000_000,
    leverage: 100,
    status: 'ACTIVE',
    created_at: NOW - 1000,
    updated_at: NOW - 1000,
  };
  const pair = market.pairs.get('EURUSD')!;
  const request = (over: Partial<ExecutionRequest> = {}): ExecutionRequest => ({
    account,
    pair,
    side: 'BUY',
    quantityCentilots: 100,
    reason: 'client',
    positions: [],
    ...over,
  });
  return { market, pricing, account, pair, request };
}

function longPosition(accountId: number, pairId: number): PositionRow {
  return {
    id: 11,
    account_id: accountId,
    pair_id: pairId,
    symbol: 'EURUSD',
    quantity_centilots: 100,
    average_entry_price_e10: priceToE10(Dec.from('1.0900')),
    realized_pnl_minor: 0,
    status: 'OPEN',
    created_at: NOW - 500,
    updated_at: NOW - 500,
    closed_at: null,
    stop_loss_e10: null,
    take_profit_e10: null,
    trailing_stop_pips: null,
    protection_version: 2,
  };
}

describe('the fill decision', () => {
  it('opens a position at the ask: a new position, a FILLED market order and its trade, no P&L', () => {
    const { pricing, request } = setup();
    const plan = decideFill(request(), NOW, pricing);
    if (plan.kind !== 'filled') throw new Error(plan.message);
    expect(plan.price.toString()).toBe('1.1002');
    expect(plan.write.position).toMatchObject({ kind: 'insert', row: { quantity_centilots: 100, status: 'OPEN' } });
    expect(plan.write.order).toMatchObject({
      kind: 'market',
      row: { status: 'FILLED', order_type: 'MARKET', filled_quantity_centilots: 100 },
    });
    expect(plan.write.trade).toMatchObject({ side: 'BUY', quantity_centilots: 100, realized_pnl_minor: 0, executed_at: NOW });
    expect(plan.write.realizedPnl).toBeUndefined();
    expect(plan.position.id).toBe(0);
    // The statistics see the position under the id its write gives it, at the balance after the fill.
    const statistics = plan.write.statistics(1_000_000, 42);
    expect(statistics).toMatchObject({ kind: 'open', realizedMinor: 0, balanceMinor: 1_000_000, executedAt: NOW });
  });

  it('closes a position at the bid and realizes its P&L', () => {
    const { pricing, request, account, pair } = setup();
    const position = longPosition(account.id, pair.id);
    const plan = decideFill(request({ side: 'SELL', positions: [position] }), NOW, pricing);
    if (plan.kind !== 'filled') throw new Error(plan.message);
    // 1 lot from 1.0900 to 1.1000: 100,000 × 0.0100 = 1,000.00 USD.
    expect(plan.realizedMinor).toBe(100_000);
    expect(plan.write.realizedPnl).toEqual({ account_id: account.id, amount_minor: 100_000, created_at: NOW });
    expect(plan.write.position).toMatchObject({
      kind: 'update',
      id: 11,
      changes: { status: 'CLOSED', quantity_centilots: 0, protection_version: 3 },
    });
    expect(plan.before?.id).toBe(11);
  });

  it('fills a stored PENDING order by settling it, not by inserting an order', () => {
    const { pricing, request } = setup();
    const pending = { id: 99, status: 'PENDING' } as OrderRow;
    const plan = decideFill(request({ pending }), NOW, pricing);
    if (plan.kind !== 'filled') throw new Error(plan.message);
    expect(plan.write.order).toMatchObject({ kind: 'pending', pending, settlement: { status: 'FILLED', updated_at: NOW } });
  });

  it('rejects without a price, on an inactive account and beyond free margin, and writes only the REJECTED order', () => {
    const { market, pricing, request, account } = setup();
    const inactive = decideFill(request({ account: { ...account, status: 'SUSPENDED' } }), NOW, pricing);
    expect(inactive).toMatchObject({
      kind: 'rejected',
      code: 'ACCOUNT_NOT_ACTIVE',
      write: { kind: 'market', row: { status: 'REJECTED' } },
    });
    const tooBig = decideFill(request({ quantityCentilots: 100_000 }), NOW, pricing);
    expect(tooBig).toMatchObject({ kind: 'rejected', code: 'INSUFFICIENT_MARGIN' });
    market.clear('EURUSD');
    expect(decideFill(request(), NOW, pricing)).toMatchObject({ kind: 'rejected', code: 'NO_PRICE' });
  });
});

describe('no fill on a stale quote (docs/trading-rules.md#no-fill-on-a-stale-quote)', () => {
  const LIMIT = 10_000;
  function staleSetup() {
    const s = setup();
    return { ...s, pricing: new Pricing(s.market.pairs, s.market.prices, LIMIT) };
  }

  it('fills on a quote exactly as old as the limit, and rejects NO_PRICE one millisecond later', () => {
    const { market, pricing, request } = staleSetup();
    market.arrivedAt('EURUSD', NOW - LIMIT);
    expect(decideFill(request(), NOW, pricing).kind).toBe('filled');
    const plan = decideFill(request(), NOW + 1, pricing);
    if (plan.kind !== 'rejected') throw new Error('filled on a stale quote');
    // The spec's reason, word for word as when there is no quote at all.
    expect(plan).toMatchObject({ code: 'NO_PRICE', message: 'No price available for EURUSD' });
    expect(plan.write).toMatchObject({
      kind: 'market',
      row: { status: 'REJECTED', rejection_reason: 'No price available for EURUSD' },
    });
  });

  it('judges a close and a trigger the same way: a close of a position, a pending order at its tick', () => {
    const { market, pricing, request, account, pair } = staleSetup();
    market.arrivedAt('EURUSD', NOW - LIMIT - 1);
    const close = decideFill(
      request({ side: 'SELL', target: longPosition(account.id, pair.id), reason: 'client' }),
      NOW,
      pricing,
    );
    expect(close).toMatchObject({ kind: 'rejected', code: 'NO_PRICE' });
    // A trigger carries the tick it fired on and when that tick arrived: a fresh book does not make an old tick fresh.
    market.arrivedAt('EURUSD', NOW);
    const pending = { id: 99, status: 'PENDING' } as OrderRow;
    const tick = { bid: Dec.from('1.1'), ask: Dec.from('1.1002'), mid: Dec.from('1.1001') };
    const late = decideFill(request({ pending, quote: tick, quoteReceivedAt: NOW - LIMIT - 1 }), NOW, pricing);
    expect(late).toMatchObject({
      kind: 'rejected',
      code: 'NO_PRICE',
      write: { kind: 'pending', settlement: { status: 'REJECTED' } },
    });
    expect(decideFill(request({ pending, quote: tick, quoteReceivedAt: NOW - LIMIT }), NOW, pricing).kind).toBe('filled');
  });

  it('a pricing without a stale limit (valuation) never calls a quote stale', () => {
    const { market, pricing, request } = setup();
    market.arrivedAt('EURUSD', NOW - 3_600_000);
    expect(decideFill(request(), NOW, pricing).kind).toBe('filled');
  });
});
