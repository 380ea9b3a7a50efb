import { Dec } from '@pipdesk/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProtectionState, RestingOrderState } from './ports.js';
import { type BookQuote, type Trigger, TriggerBook } from './trigger-book.js';

// The trigger book alone (docs/order-engine.md#the-trigger-table): what each tick triggers,
// trailing, ordering, holding and re-arming, expiry; then a property test against a naive scan.

const PAIRS = [
  { symbol: 'EURUSD', pipSize: 0.0001 },
  { symbol: 'USDJPY', pipSize: 0.01 },
];

let nextId = 1;

function tick(bid: string, ask: string, symbol = 'EURUSD'): BookQuote {
  return { symbol, bid: Dec.from(bid), ask: Dec.from(ask), timestamp: 0 };
}

function order(fields: Partial<RestingOrderState> & Pick<RestingOrderState, 'side' | 'orderType' | 'price'>): RestingOrderState {
  const id = nextId++;
  return {
    orderId: id,
    accountId: 1,
    userId: 1,
    symbol: 'EURUSD',
    limitPrice: null,
    triggeredAt: null,
    expiresAt: null,
    createdAt: id,
    ...fields,
  };
}

function protection(fields: Partial<ProtectionState> & Pick<ProtectionState, 'long'>): ProtectionState {
  const id = nextId++;
  return {
    positionId: id,
    accountId: 1,
    userId: 1,
    symbol: 'EURUSD',
    stopLoss: null,
    takeProfit: null,
    trailingStopPips: null,
    openedAt: id,
    ...fields,
  };
}

/** A readable summary of what a tick triggered. */
function fired(triggers: Trigger[]): string[] {
  return triggers.map((t) =>
    t.kind === 'close' ? `close ${t.protection.positionId} ${t.reason}` : `${t.kind} ${t.order.orderId}`,
  );
}

describe('the trigger table', () => {
  // One row per line of docs/order-engine.md#the-trigger-table: [the order, ticks that must not
  // trigger it, the tick at its price (triggers), a gap beyond it (triggers)].
  const rows: Array<{ name: string; order: () => RestingOrderState; quiet: BookQuote[]; at: BookQuote; gap: BookQuote }> = [
    {
      name: 'BUY LIMIT: ask ≤ price',
      order: () => order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' }),
      // The bid at the price is not enough: a buy compares the ask.
      quiet: [tick('1.0999', '1.1001'), tick('1.1000', '1.10002')],
      at: tick('1.0998', '1.1000'),
      gap: tick('1.0950', '1.0952'),
    },
    {
      name: 'SELL LIMIT: bid ≥ price',
      order: () => order({ side: 'SELL', orderType: 'LIMIT', price: '1.1000' }),
      quiet: [tick('1.0999', '1.1001'), tick('1.09999', '1.1002')],
      at: tick('1.1000', '1.1002'),
      gap: tick('1.1050', '1.1052'),
    },
    {
      name: 'BUY STOP: ask ≥ price',
      order: () => order({ side: 'BUY', orderType: 'STOP', price: '1.1000' }),
      quiet: [tick('1.0997', '1.0999'), tick('1.0999', '1.09999')],
      at: tick('1.0998', '1.1000'),
      gap: tick('1.1050', '1.1052'),
    },
    {
      name: 'SELL STOP: bid ≤ price',
      order: () => order({ side: 'SELL', orderType: 'STOP', price: '1.1000' }),
      quiet: [tick('1.1001', '1.1003'), tick('1.10001', '1.1000')],
      at: tick('1.1000', '1.1002'),
      gap: tick('1.0950', '1.0952'),
    },
  ];

  for (const row of rows) {
    it(`${row.name}, at the price and through a gap`, () => {
      for (const trigger of [row.at, row.gap]) {
        const book = new TriggerBook(PAIRS);
        const o = row.order();
        book.upsertOrder(o);
        for (const quiet of row.quiet) expect(fired(book.onTick(quiet).triggers)).toEqual([]);
        expect(fired(book.onTick(trigger).triggers)).toEqual([`fill ${o.orderId}`]);
        // Taken out: the next crossing tick does not trigger it again.
        expect(fired(book.onTick(trigger).triggers)).toEqual([]);
      }
    });
  }

  const protectionRows: Array<{
    name: string;
    protection: () => ProtectionState;
    quiet: BookQuote[];
    at: BookQuote;
    gap: BookQuote;
    reason: string;
  }> = [
    {
      name: 'stop loss of a LONG: bid ≤ SL',
      protection: () => protection({ long: true, stopLoss: '1.0950' }),
      quiet: [tick('1.0951', '1.0949'), tick('1.09501', '1.0952')],
      at: tick('1.0950', '1.0952'),
      gap: tick('1.0900', '1.0902'),
      reason: 'stop_loss',
    },
    {
      name: 'take profit of a LONG: bid ≥ TP',
      protection: () => protection({ long: true, takeProfit: '1.1050' }),
      quiet: [tick('1.1049', '1.1051'), tick('1.10499', '1.1052')],
      at: tick('1.1050', '1.1052'),
      gap: tick('1.1100', '1.1102'),
      reason: 'take_profit',
    },
    {
      name: 'stop loss of a SHORT: ask ≥ SL',
      protection: () => protection({ long: false, stopLoss: '1.1050' }),
      quiet: [tick('1.1050', '1.1049'), tick('1.1047', '1.10499')],
      at: tick('1.1048', '1.1050'),
      gap: tick('1.1100', '1.1102'),
      reason: 'stop_loss',
    },
    {
      name: 'take profit of a SHORT: ask ≤ TP',
      protection: () => protection({ long: false, takeProfit: '1.0950' }),
      quiet: [tick('1.0949', '1.0951'), tick('1.0948', '1.09501')],
      at: tick('1.0948', '1.0950'),
      gap: tick('1.0900', '1.0902'),
      reason: 'take_profit',
    },
  ];

  for (const row of protectionRows) {
    it(`${row.name}, at the price and through a gap`, () => {
      for (const trigger of [row.at, row.gap]) {
        const book = new TriggerBook(PAIRS);
        const p = row.protection();
        book.upsertProtection(p);
        for (const quiet of row.quiet) expect(fired(book.onTick(quiet).triggers)).toEqual([]);
        expect(fired(book.onTick(trigger).triggers)).toEqual([`close ${p.positionId} ${row.reason}`]);
        expect(fired(book.onTick(trigger).triggers)).toEqual([]);
      }
    });
  }

  it('a stop loss set with a trailing distance closes as a trailing stop', () => {
    const book = new TriggerBook(PAIRS);
    const p = protection({ long: true, stopLoss: '1.0950', trailingStopPips: 100 });
    book.upsertProtection(p);
    expect(fired(book.onTick(tick('1.0950', '1.0952')).triggers)).toEqual([`close ${p.positionId} trailing_stop`]);
  });

  it('looks only at the tick’s pair', () => {
    const book = new TriggerBook(PAIRS);
    const eur = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' });
    const jpy = order({ side: 'BUY', orderType: 'LIMIT', price: '150.000', symbol: 'USDJPY' });
    book.upsertOrder(eur);
    book.upsertOrder(jpy);
    expect(fired(book.onTick(tick('149.000', '149.002', 'USDJPY')).triggers)).toEqual([`fill ${jpy.orderId}`]);
    expect(fired(book.onTick(tick('1.0990', '1.0992')).triggers)).toEqual([`fill ${eur.orderId}`]);
    expect(book.onTick(tick('1', '1', 'GBPUSD'))).toEqual({ triggers: [], moves: [] });
  });

  it('compares exactly: a tenth of a point past the price is past it', () => {
    const book = new TriggerBook(PAIRS);
    const o = order({ side: 'SELL', orderType: 'STOP', price: '1.09999' });
    book.upsertOrder(o);
    expect(fired(book.onTick(tick('1.1000', '1.1002')).triggers)).toEqual([]);
    expect(fired(book.onTick(tick('1.09999', '1.10001')).triggers)).toEqual([`fill ${o.orderId}`]);
  });
});

describe('STOP_LIMIT', () => {
  it('a BUY triggers as a stop and fills on the same tick when that tick is within its limit', () => {
    const book = new TriggerBook(PAIRS);
    const o = order({ side: 'BUY', orderType: 'STOP_LIMIT', price: '1.1000', limitPrice: '1.1005' });
    book.upsertOrder(o);
    expect(fired(book.onTick(tick('1.0997', '1.0999')).triggers)).toEqual([]);
    const at = tick('1.1001', '1.1003');
    expect(fired(book.onTick(at).triggers)).toEqual([`stop_limit ${o.orderId}`]);
    expect(book.restStopLimit(o.orderId, 123)).toBe(at);
    expect(book.order(o.orderId)?.triggeredAt).toBe(123);
  });

  it('a BUY whose limit is below the trigger rests as a LIMIT until the ask comes down to it', () => {
    const book = new TriggerBook(PAIRS);
    const o = order({ side: 'BUY', orderType: 'STOP_LIMIT', price: '1.1000', limitPrice: '1.0995' });
    book.upsertOrder(o);
    expect(fired(book.onTick(tick('1.1001', '1.1003')).triggers)).toEqual([`stop_limit ${o.orderId}`]);
    expect(book.restStopLimit(o.orderId, 5)).toBeUndefined();
    // Now a BUY LIMIT at 1.0995: the stop price means nothing any more.
    expect(fired(book.onTick(tick('1.1010', '1.1012')).triggers)).toEqual([]);
    expect(fired(book.onTick(tick('1.0994', '1.0996')).triggers)).toEqual([]);
    expect(fired(book.onTick(tick('1.0993', '1.0995')).triggers)).toEqual([`fill ${o.orderId}`]);
  });

  it('a SELL triggers when the bid falls to its stop and fills at or above its limit', () => {
    const book = new TriggerBook(PAIRS);
    const now = order({ side: 'SELL', orderType: 'STOP_LIMIT', price: '1.1000', limitPrice: '1.0990' });
    const later = order({ side: 'SELL', orderType: 'STOP_LIMIT', price: '1.1000', limitPrice: '1.1005' });
    book.upsertOrder(now);
    book.upsertOrder(later);
    const at = tick('1.0998', '1.1000');
    expect(fired(book.onTick(at).triggers)).toEqual([`stop_limit ${now.orderId}`, `stop_limit ${later.orderId}`]);
    expect(book.restStopLimit(now.orderId, 1)).toBe(at);
    expect(book.restStopLimit(later.orderId, 1)).toBeUndefined();
    expect(fired(book.onTick(tick('1.1004', '1.1006')).triggers)).toEqual([]);
    expect(fired(book.onTick(tick('1.1005', '1.1007')).triggers)).toEqual([`fill ${later.orderId}`]);
  });

  it('one loaded with its stop already triggered rests as a LIMIT', () => {
    const book = new TriggerBook(PAIRS);
    const o = order({ side: 'SELL', orderType: 'STOP_LIMIT', price: '1.1000', limitPrice: '1.1005', triggeredAt: 9 });
    book.load([o], []);
    expect(fired(book.onTick(tick('1.0990', '1.0992')).triggers)).toEqual([]);
    expect(fired(book.onTick(tick('1.1006', '1.1008')).triggers)).toEqual([`fill ${o.orderId}`]);
  });
});

describe('trailing stops', () => {
  it('a LONG’s stop follows the bid up by its distance, never down, and closes as a trailing stop', () => {
    const book = new TriggerBook(PAIRS);
    const p = protection({ long: true, trailingStopPips: 20 });
    book.upsertProtection(p);
    // No stop loss yet: it starts at bid − 20 pips.
    expect(book.onTick(tick('1.1000', '1.1002')).moves).toEqual([{ positionId: p.positionId, stopLoss: '1.098' }]);
    expect(book.onTick(tick('1.1010', '1.1012')).moves).toEqual([{ positionId: p.positionId, stopLoss: '1.099' }]);
    expect(book.onTick(tick('1.1010', '1.1012')).moves).toEqual([]);
    expect(book.onTick(tick('1.1000', '1.1002'))).toEqual({ triggers: [], moves: [] });
    expect(book.protection(p.positionId)?.stopLoss).toBe('1.099');
    expect(book.onTick(tick('1.10105', '1.1012')).moves).toEqual([{ positionId: p.positionId, stopLoss: '1.09905' }]);
    const { triggers, moves } = book.onTick(tick('1.0990', '1.0992'));
    expect(moves).toEqual([]);
    expect(fired(triggers)).toEqual([`close ${p.positionId} trailing_stop`]);
  });

  it('a SHORT’s stop follows the ask down by its distance, never up', () => {
    const book = new TriggerBook(PAIRS);
    const p = protection({ long: false, stopLoss: '1.1050', trailingStopPips: 30 });
    book.upsertProtection(p);
    // ask + 30 pips = 1.1032 + 0.0030 = 1.1062 is not lower than 1.1050: no move.
    expect(book.onTick(tick('1.1030', '1.1032')).moves).toEqual([]);
    expect(book.onTick(tick('1.1018', '1.1020')).moves).toEqual([]); // exactly 1.1050: not lower
    expect(book.onTick(tick('1.1000', '1.1002')).moves).toEqual([{ positionId: p.positionId, stopLoss: '1.1032' }]);
    expect(book.onTick(tick('1.1010', '1.1012')).moves).toEqual([]);
    expect(fired(book.onTick(tick('1.1030', '1.1032')).triggers)).toEqual([`close ${p.positionId} trailing_stop`]);
  });

  it('measures the distance in the pair’s pips (0.01 for a JPY quote)', () => {
    const book = new TriggerBook(PAIRS);
    const p = protection({ long: true, symbol: 'USDJPY', trailingStopPips: 15 });
    book.upsertProtection(p);
    expect(book.onTick(tick('150.250', '150.262', 'USDJPY')).moves).toEqual([{ positionId: p.positionId, stopLoss: '150.1' }]);
  });

  it('a position that trails and has a take profit closes at the take profit through a gap', () => {
    const book = new TriggerBook(PAIRS);
    const p = protection({ long: true, stopLoss: '1.0950', takeProfit: '1.1050', trailingStopPips: 20 });
    book.upsertProtection(p);
    const { triggers, moves } = book.onTick(tick('1.1100', '1.1102'));
    expect(moves).toEqual([{ positionId: p.positionId, stopLoss: '1.108' }]);
    expect(fired(triggers)).toEqual([`close ${p.positionId} take_profit`]);
  });

  it('hands each moved stop to be written once, its latest value, and again after a failed write', () => {
    const book = new TriggerBook(PAIRS);
    const p = protection({ long: true, trailingStopPips: 10 });
    book.upsertProtection(p);
    book.onTick(tick('1.1000', '1.1002'));
    book.onTick(tick('1.1005', '1.1007'));
    const moves = book.takeTrailingMoves();
    expect(moves).toEqual([{ positionId: p.positionId, stopLoss: '1.0995' }]);
    expect(book.takeTrailingMoves()).toEqual([]);
    book.onTick(tick('1.1006', '1.1008'));
    book.restoreTrailingMoves(moves);
    expect(book.takeTrailingMoves()).toEqual([{ positionId: p.positionId, stopLoss: '1.0996' }]);
    // A closed position has nothing to write.
    book.onTick(tick('1.1010', '1.1012'));
    book.removeProtection(p.positionId, true);
    expect(book.takeTrailingMoves()).toEqual([]);
  });

  it('keeps its own further stop when the bus echoes one it wrote, and takes a trader’s change', () => {
    const book = new TriggerBook(PAIRS);
    const p = protection({ long: true, stopLoss: '1.0900', takeProfit: '1.2000', trailingStopPips: 10 });
    book.upsertProtection(p);
    book.onTick(tick('1.1000', '1.1002'));
    expect(book.takeTrailingMoves()).toEqual([{ positionId: p.positionId, stopLoss: '1.099' }]);
    book.onTick(tick('1.1010', '1.1012'));
    // The write of 1.099 comes back after the stop moved on to 1.1000.
    book.upsertProtection({ ...p, stopLoss: '1.0990' });
    expect(book.protection(p.positionId)?.stopLoss).toBe('1.1');
    // The trader moves it by hand: that wins.
    book.upsertProtection({ ...p, stopLoss: '1.0950' });
    expect(book.protection(p.positionId)?.stopLoss).toBe('1.0950');
    expect(fired(book.onTick(tick('1.0995', '1.0997')).triggers)).toEqual([]);
  });
});

describe('one tick, several triggers', () => {
  it('orders each account’s triggers: protection before orders, older first', () => {
    const book = new TriggerBook(PAIRS);
    const olderOrder = order({ side: 'SELL', orderType: 'STOP', price: '1.0990', createdAt: 10 });
    const newerOrder = order({ side: 'BUY', orderType: 'LIMIT', price: '1.0990', createdAt: 20 });
    const newerPosition = protection({ long: true, stopLoss: '1.0995', openedAt: 15 });
    const olderPosition = protection({ long: false, takeProfit: '1.0990', openedAt: 5 });
    const otherAccount = order({ side: 'SELL', orderType: 'STOP', price: '1.0999', createdAt: 1, accountId: 2 });
    for (const o of [newerOrder, olderOrder, otherAccount]) book.upsertOrder(o);
    for (const p of [newerPosition, olderPosition]) book.upsertProtection(p);
    expect(fired(book.onTick(tick('1.0980', '1.0982')).triggers)).toEqual([
      `close ${olderPosition.positionId} take_profit`,
      `close ${newerPosition.positionId} stop_loss`,
      `fill ${olderOrder.orderId}`,
      `fill ${newerOrder.orderId}`,
      `fill ${otherAccount.orderId}`,
    ]);
  });

  it('a position closes once per tick even when both its stops cross (stop loss first)', () => {
    const book = new TriggerBook(PAIRS);
    // Not reachable through validation; the book still closes the position once.
    const p = protection({ long: true, stopLoss: '1.1000', takeProfit: '1.0990' });
    book.upsertProtection(p);
    expect(fired(book.onTick(tick('1.0995', '1.0997')).triggers)).toEqual([`close ${p.positionId} stop_loss`]);
  });
});

describe('holding, settling and re-arming', () => {
  it('a re-armed order triggers again on a later crossing tick; a settled one never', () => {
    const book = new TriggerBook(PAIRS);
    const o = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' });
    book.upsertOrder(o);
    expect(fired(book.onTick(tick('1.0995', '1.0997')).triggers)).toEqual([`fill ${o.orderId}`]);
    expect(book.counts()).toMatchObject({ orders: 1, held: 1 });
    book.rearmOrder(o.orderId);
    expect(fired(book.onTick(tick('1.0995', '1.0997')).triggers)).toEqual([`fill ${o.orderId}`]);
    book.settleOrder(o.orderId);
    book.upsertOrder(o); // a late bus message about it
    expect(book.counts()).toMatchObject({ orders: 0, held: 0 });
    expect(fired(book.onTick(tick('1.0995', '1.0997')).triggers)).toEqual([]);
  });

  it('a change that arrives while an order executes is what a re-arm puts back', () => {
    const book = new TriggerBook(PAIRS);
    const o = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' });
    book.upsertOrder(o);
    book.onTick(tick('1.0995', '1.0997'));
    book.upsertOrder({ ...o, price: '1.0900' });
    expect(book.onTick(tick('1.0995', '1.0997')).triggers).toEqual([]);
    book.rearmOrder(o.orderId);
    expect(fired(book.onTick(tick('1.0995', '1.0997')).triggers)).toEqual([]);
    expect(fired(book.onTick(tick('1.0898', '1.0900')).triggers)).toEqual([`fill ${o.orderId}`]);
  });

  it('a stale order is forgotten, unless it was modified meanwhile: then it rests at its new price', () => {
    const book = new TriggerBook(PAIRS);
    const modified = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' });
    const gone = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' });
    book.upsertOrder(modified);
    book.upsertOrder(gone);
    book.onTick(tick('1.0995', '1.0997'));
    book.upsertOrder({ ...modified, price: '1.0900' }); // the modification won the race
    book.dropStaleOrder(modified.orderId);
    book.dropStaleOrder(gone.orderId);
    expect(book.order(gone.orderId)).toBeUndefined();
    expect(book.order(modified.orderId)?.price).toBe('1.0900');
    expect(fired(book.onTick(tick('1.0898', '1.0900')).triggers)).toEqual([`fill ${modified.orderId}`]);
    // Not a tombstone: the bus may still bring a stale order back while it is PENDING.
    book.upsertOrder(gone);
    expect(book.order(gone.orderId)).toBeDefined();
  });

  it('an order cancelled while it executes is not re-armed', () => {
    const book = new TriggerBook(PAIRS);
    const o = order({ side: 'SELL', orderType: 'LIMIT', price: '1.1000' });
    book.upsertOrder(o);
    book.onTick(tick('1.1000', '1.1002'));
    book.removeOrder(o.orderId);
    book.rearmOrder(o.orderId);
    expect(book.onTick(tick('1.1000', '1.1002')).triggers).toEqual([]);
    expect(book.counts().orders).toBe(0);
  });

  it('a protection closed by the engine is gone for good; one found stale can come back over the bus', () => {
    const book = new TriggerBook(PAIRS);
    const closed = protection({ long: true, stopLoss: '1.0950' });
    const stale = protection({ long: true, stopLoss: '1.0960' });
    book.upsertProtection(closed);
    book.upsertProtection(stale);
    book.onTick(tick('1.0900', '1.0902'));
    book.settleClosed(closed.positionId);
    book.dropStaleProtection(stale.positionId);
    book.upsertProtection(closed);
    book.upsertProtection({ ...stale, stopLoss: '1.0850' });
    expect(book.protection(closed.positionId)).toBeUndefined();
    expect(book.protection(stale.positionId)?.stopLoss).toBe('1.0850');
  });

  it('a position whose side flipped is watched from the other side', () => {
    const book = new TriggerBook(PAIRS);
    const p = protection({ long: true, stopLoss: '1.0950' });
    book.upsertProtection(p);
    book.upsertProtection({ ...p, long: false, stopLoss: '1.1050' });
    expect(book.onTick(tick('1.0940', '1.0942')).triggers).toEqual([]);
    expect(fired(book.onTick(tick('1.1048', '1.1050')).triggers)).toEqual([`close ${p.positionId} stop_loss`]);
  });

  it('clearing every protection of a position takes it out', () => {
    const book = new TriggerBook(PAIRS);
    const p = protection({ long: true, stopLoss: '1.0950', trailingStopPips: 10 });
    book.upsertProtection(p);
    book.upsertProtection({ ...p, stopLoss: null, trailingStopPips: null });
    expect(book.counts().protections).toBe(0);
    expect(book.onTick(tick('1.0900', '1.0902'))).toEqual({ triggers: [], moves: [] });
  });

  it('a load replaces everything the book held', () => {
    const book = new TriggerBook(PAIRS);
    book.upsertOrder(order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' }));
    const kept = order({ side: 'SELL', orderType: 'LIMIT', price: '1.1000' });
    book.load([kept], [protection({ long: false, takeProfit: '1.0900' })]);
    expect(book.counts()).toMatchObject({ orders: 1, protections: 1, held: 0 });
    expect(fired(book.onTick(tick('1.0990', '1.0992')).triggers)).toEqual([]);
    expect(fired(book.onTick(tick('1.1000', '1.1002')).triggers)).toEqual([`fill ${kept.orderId}`]);
  });
});

describe('expiry', () => {
  it('hands over GTD orders at their expiry, older first, once', () => {
    const book = new TriggerBook(PAIRS);
    const late = order({ side: 'BUY', orderType: 'LIMIT', price: '1.0900', expiresAt: 2_000, createdAt: 1 });
    const soon = order({ side: 'SELL', orderType: 'STOP', price: '1.0900', expiresAt: 1_000, createdAt: 3 });
    const same = order({ side: 'SELL', orderType: 'STOP', price: '1.0900', expiresAt: 1_000, createdAt: 2 });
    const cancelled = order({ side: 'SELL', orderType: 'STOP', price: '1.0900', expiresAt: 500 });
    const gtc = order({ side: 'BUY', orderType: 'LIMIT', price: '1.0900' });
    for (const o of [late, soon, same, cancelled, gtc]) book.upsertOrder(o);
    book.removeOrder(cancelled.orderId);
    expect(book.nextExpiry()).toBe(1_000);
    expect(book.expireDue(999)).toEqual([]);
    expect(book.expireDue(1_000).map((o) => o.orderId)).toEqual([same.orderId, soon.orderId]);
    expect(book.expireDue(1_500)).toEqual([]);
    // An expiring order is out of the ladders: a tick cannot fill it meanwhile.
    expect(fired(book.onTick(tick('1.0880', '1.0882')).triggers)).toEqual([`fill ${late.orderId}`, `fill ${gtc.orderId}`]);
    expect(book.expireDue(5_000)).toEqual([]);
  });

  it('a modified expiry moves; a triggered order does not expire while it executes', () => {
    const book = new TriggerBook(PAIRS);
    const o = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000', expiresAt: 1_000 });
    book.upsertOrder(o);
    book.upsertOrder({ ...o, expiresAt: 3_000 });
    expect(book.expireDue(2_000)).toEqual([]);
    book.onTick(tick('1.0990', '1.0992'));
    expect(book.expireDue(4_000)).toEqual([]);
    book.rearmOrder(o.orderId);
    expect(book.expireDue(4_000).map((x) => x.orderId)).toEqual([o.orderId]);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: the sorted book decides exactly what a naive scan over every order decides.

interface ModelOrder {
  state: RestingOrderState;
  held: boolean;
  /** A change arrived while held. */
  changed: boolean;
}
interface ModelProtection {
  state: ProtectionState;
  held: boolean;
  changed: boolean;
}

/** docs/order-engine.md#the-trigger-table, read literally, over every entry on every tick. */
class NaiveBook {
  orders = new Map<number, ModelOrder>();
  protections = new Map<number, ModelProtection>();
  goneOrders = new Set<number>();
  closed = new Set<number>();
  last = new Map<string, BookQuote>();

  constructor(private readonly pips: Map<string, Dec>) {}

  upsertOrder(state: RestingOrderState) {
    if (this.goneOrders.has(state.orderId)) return;
    const existing = this.orders.get(state.orderId);
    this.orders.set(state.orderId, {
      state,
      held: existing?.held ?? false,
      changed: existing?.held === true || (existing?.changed ?? false),
    });
  }
  removeOrder(id: number) {
    this.goneOrders.add(id);
    this.orders.delete(id);
  }
  upsertProtection(state: ProtectionState) {
    if (this.closed.has(state.positionId)) return;
    if (state.stopLoss === null && state.takeProfit === null && state.trailingStopPips === null) {
      this.protections.delete(state.positionId);
      return;
    }
    const existing = this.protections.get(state.positionId);
    this.protections.set(state.positionId, {
      state,
      held: existing?.held ?? false,
      changed: existing?.held === true || (existing?.changed ?? false),
    });
  }

  onTick(q: BookQuote): { triggers: string[]; moves: string[] } {
    this.last.set(q.symbol, q);
    const moves: string[] = [];
    for (const p of this.protections.values()) {
      const s = p.state;
      if (p.held || s.symbol !== q.symbol || s.trailingStopPips === null) continue;
      const distance = this.pips.get(s.symbol)!.times(s.trailingStopPips);
      const candidate = s.long ? q.bid.minus(distance) : q.ask.plus(distance);
      const sl = s.stopLoss === null ? null : Dec.from(s.stopLoss);
      if (sl === null || (s.long ? candidate.gt(sl) : candidate.lt(sl))) {
        p.state = { ...s, stopLoss: candidate.toString() };
        moves.push(`${s.positionId}:${candidate.toString()}`);
      }
    }
    const closes: Array<{ s: ProtectionState; text: string }> = [];
    for (const p of this.protections.values()) {
      const s = p.state;
      if (p.held || s.symbol !== q.symbol) continue;
      const price = s.long ? q.bid : q.ask;
      const sl = s.stopLoss === null ? null : Dec.from(s.stopLoss);
      const tp = s.takeProfit === null ? null : Dec.from(s.takeProfit);
      let reason: string | null = null;
      if (sl && (s.long ? price.lte(sl) : price.gte(sl))) reason = s.trailingStopPips !== null ? 'trailing_stop' : 'stop_loss';
      else if (tp && (s.long ? price.gte(tp) : price.lte(tp))) reason = 'take_profit';
      if (reason) {
        p.held = true;
        p.changed = false;
        closes.push({ s, text: `close ${s.positionId} ${reason}` });
      }
    }
    const fills: Array<{ s: RestingOrderState; text: string }> = [];
    for (const o of this.orders.values()) {
      const s = o.state;
      if (o.held || s.symbol !== q.symbol) continue;
      const asLimit = s.orderType === 'LIMIT' || (s.orderType === 'STOP_LIMIT' && s.triggeredAt !== null);
      const price = Dec.from(s.orderType === 'STOP_LIMIT' && asLimit ? s.limitPrice! : s.price);
      const hit =
        s.side === 'BUY' ? (asLimit ? q.ask.lte(price) : q.ask.gte(price)) : asLimit ? q.bid.gte(price) : q.bid.lte(price);
      if (hit) {
        o.held = true;
        o.changed = false;
        fills.push({ s, text: `${s.orderType === 'STOP_LIMIT' && !asLimit ? 'stop_limit' : 'fill'} ${s.orderId}` });
      }
    }
    closes.sort((a, b) => a.s.accountId - b.s.accountId || a.s.openedAt - b.s.openedAt || a.s.positionId - b.s.positionId);
    fills.sort((a, b) => a.s.accountId - b.s.accountId || a.s.createdAt - b.s.createdAt || a.s.orderId - b.s.orderId);
    const accounts = [...new Set([...closes.map((c) => c.s.accountId), ...fills.map((f) => f.s.accountId)])].sort(
      (a, b) => a - b,
    );
    const triggers = accounts.flatMap((account) => [
      ...closes.filter((c) => c.s.accountId === account).map((c) => c.text),
      ...fills.filter((f) => f.s.accountId === account).map((f) => f.text),
    ]);
    return { triggers, moves: moves.sort() };
  }

  expireDue(now: number): number[] {
    const due = [...this.orders.values()]
      .filter((o) => !o.held && o.state.expiresAt !== null && o.state.expiresAt <= now)
      .map((o) => o.state)
      .sort((a, b) => a.accountId - b.accountId || a.createdAt - b.createdAt || a.orderId - b.orderId);
    for (const s of due) Object.assign(this.orders.get(s.orderId)!, { held: true, changed: false });
    return due.map((s) => s.orderId);
  }

  /** Stale: re-armed when a change arrived meanwhile, else forgotten (no tombstone). */
  dropStale(map: Map<number, ModelOrder | ModelProtection>, id: number) {
    const e = map.get(id);
    if (!e?.held) return;
    if (e.changed) e.held = false;
    else map.delete(id);
  }

  restStopLimit(id: number, at: number): boolean {
    const o = this.orders.get(id);
    if (!o?.held) return false;
    o.state = { ...o.state, triggeredAt: at };
    const q = this.last.get(o.state.symbol);
    const limit = Dec.from(o.state.limitPrice!);
    if (q && (o.state.side === 'BUY' ? q.ask.lte(limit) : q.bid.gte(limit))) {
      o.changed = false;
      return true;
    }
    o.held = false;
    return false;
  }
}

describe('the sorted book against a naive scan (property)', () => {
  it('triggers and moves exactly what the table says, tick after tick', () => {
    const seed = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31;
    console.log(`trigger book property seed ${seed} (replay with PROPERTY_SEED=${seed})`);
    const symbols = ['EURUSD', 'USDJPY'] as const;
    // Prices on a grid of half-pips around a centre, so triggers, ties and gaps are frequent.
    const priceOf = (symbol: string, step: number) =>
      symbol === 'EURUSD'
        ? Dec.from('1.1000').plus(Dec.from('0.00005').times(step))
        : Dec.from('150.000').plus(Dec.from('0.005').times(step));
    const step = fc.integer({ min: -40, max: 40 });
    const symbol = fc.constantFrom(...symbols);
    const idOf = fc.integer({ min: 1, max: 25 });
    const op = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          op: fc.constant('order' as const),
          id: idOf,
          symbol,
          account: fc.integer({ min: 1, max: 3 }),
          side: fc.constantFrom('BUY' as const, 'SELL' as const),
          type: fc.constantFrom('LIMIT' as const, 'STOP' as const, 'STOP_LIMIT' as const),
          price: step,
          limit: step,
          expiresAt: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
          createdAt: fc.integer({ min: 0, max: 5 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('cancel' as const), id: idOf }) },
      {
        weight: 3,
        arbitrary: fc.record({
          op: fc.constant('protect' as const),
          id: idOf,
          symbol,
          account: fc.integer({ min: 1, max: 3 }),
          long: fc.boolean(),
          sl: fc.option(step, { nil: null }),
          tp: fc.option(step, { nil: null }),
          trail: fc.option(fc.integer({ min: 5, max: 30 }), { nil: null }),
          openedAt: fc.integer({ min: 0, max: 5 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('unprotect' as const), id: idOf }) },
      {
        weight: 8,
        arbitrary: fc.record({
          op: fc.constant('tick' as const),
          symbol,
          bid: step,
          spread: fc.integer({ min: 0, max: 4 }),
          // How each trigger of this tick comes out: 0 settled, 1 re-armed, 2 stale, 3 rested (a stop-limit; others stale).
          outcomes: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('expire' as const), now: fc.integer({ min: 0, max: 60 }) }) },
    );

    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 120 }), (ops) => {
        const book = new TriggerBook(PAIRS);
        const model = new NaiveBook(new Map(PAIRS.map((p) => [p.symbol, Dec.from(p.pipSize)])));
        let time = 0;
        for (const o of ops) {
          switch (o.op) {
            case 'order': {
              const state: RestingOrderState = {
                orderId: o.id,
                accountId: o.account,
                userId: o.account,
                symbol: o.symbol,
                side: o.side,
                orderType: o.type,
                price: priceOf(o.symbol, o.price).toString(),
                limitPrice: o.type === 'STOP_LIMIT' ? priceOf(o.symbol, o.limit).toString() : null,
                triggeredAt: null,
                expiresAt: o.expiresAt,
                createdAt: o.createdAt,
              };
              // An id keeps its pair (a modification cannot move an order to another pair).
              const known = model.orders.get(o.id)?.state ?? book.order(o.id);
              if (known && known.symbol !== state.symbol) break;
              if (known?.triggeredAt != null) state.triggeredAt = known.triggeredAt;
              book.upsertOrder(state);
              model.upsertOrder(state);
              break;
            }
            case 'cancel':
              book.removeOrder(o.id);
              model.removeOrder(o.id);
              break;
            case 'protect': {
              const state: ProtectionState = {
                positionId: 100 + o.id,
                accountId: o.account,
                userId: o.account,
                symbol: o.symbol,
                long: o.long,
                stopLoss: o.sl === null ? null : priceOf(o.symbol, o.sl).toString(),
                takeProfit: o.tp === null ? null : priceOf(o.symbol, o.tp).toString(),
                trailingStopPips: o.trail,
                openedAt: o.openedAt,
              };
              const known = model.protections.get(state.positionId)?.state ?? book.protection(state.positionId);
              if (known && known.symbol !== state.symbol) break;
              book.upsertProtection(state);
              model.upsertProtection(state);
              break;
            }
            case 'unprotect':
              book.removeProtection(100 + o.id);
              model.protections.delete(100 + o.id);
              break;
            case 'tick': {
              const bid = priceOf(o.symbol, o.bid);
              const ask = priceOf(o.symbol, o.bid + o.spread);
              const q: BookQuote = { symbol: o.symbol, bid, ask, timestamp: ++time };
              const got = book.onTick(q);
              const want = model.onTick(q);
              expect(fired(got.triggers)).toEqual(want.triggers);
              expect(got.moves.map((m) => `${m.positionId}:${m.stopLoss}`).sort()).toEqual(want.moves);
              got.triggers.forEach((t, i) => {
                const outcome = o.outcomes[i % o.outcomes.length]!;
                if (t.kind === 'close') {
                  const id = t.protection.positionId;
                  if (outcome === 0) {
                    book.settleClosed(id);
                    model.protections.delete(id);
                    model.closed.add(id);
                  } else if (outcome === 1) {
                    book.rearmProtection(id);
                    model.protections.get(id)!.held = false;
                  } else {
                    book.dropStaleProtection(id);
                    model.dropStale(model.protections, id);
                  }
                } else {
                  const id = t.order.orderId;
                  if (t.kind === 'stop_limit' && outcome === 3) {
                    expect(book.restStopLimit(id, time) !== undefined).toBe(model.restStopLimit(id, time));
                  } else if (outcome >= 2) {
                    book.dropStaleOrder(id);
                    model.dropStale(model.orders, id);
                  } else if (outcome === 0) {
                    book.settleOrder(id);
                    model.removeOrder(id);
                  } else {
                    book.rearmOrder(id);
                    model.orders.get(id)!.held = false;
                  }
                }
              });
              break;
            }
            case 'expire': {
              const due = book.expireDue(o.now).map((s) => s.orderId);
              expect(due).toEqual(model.expireDue(o.now));
              for (const id of due) {
                book.settleOrder(id);
                model.removeOrder(id);
              }
              break;
            }
          }
          expect(book.counts().orders).toBe(model.orders.size);
          expect(book.counts().protections).toBe(model.protections.size);
        }
      }),
      { seed, numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });
});
