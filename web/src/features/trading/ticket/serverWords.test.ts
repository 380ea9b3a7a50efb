import { describe, expect, it } from 'vitest';
import { checkOrderChange, orderDraftOf } from '../pending/pendingRules';
import { checkProtection, protectionDraftOf } from '../protection/protectionRules';
import { EURUSD, makeOrder, makePosition } from '../testSupport';
import { EMPTY_TICKET, evaluateTicket, localDateTimeText, type TicketState } from './ticketModel';

// The same bad orders as server/src/trading/order-rules.words.test.ts sends through the routes:
// the ticket, the Modify form and the protection editor say the server's words (after the
// field's label) before sending, because both ends word the contract's problems in one place
// (docs/orders.md#validation). Prices: EURUSD 1.08512 / 1.08532.

const NOW = Date.UTC(2026, 0, 5, 12, 0, 0);
const quote = { bid: 1.08512, ask: 1.08532 };

/** The server's 400 texts for these orders, `field: words`, as its test expects them. */
const SERVER = {
  marketStopLoss: 'stop_loss: must be below the bid (1.08512) for a long position',
  marketTakeProfit: 'take_profit: must be below the ask (1.08532) for a short position',
  decimals: 'price: must have at most 5 decimals',
  buyLimitSide: 'price: a BUY LIMIT must be below the ask (1.08532)',
  sellStopSide: 'price: a SELL STOP must be below the bid (1.08512)',
  pendingStopLoss: 'stop_loss: must be below the entry price (1.05001) for a long position',
  expiryPast: 'expires_at: must be in the future',
} as const;

/** The words after the field's name: what the web shows after its label. */
const words = (serverText: string) => serverText.slice(serverText.indexOf(': ') + 2);

const ticket = (side: 'BUY' | 'SELL', state: Partial<TicketState>) =>
  evaluateTicket(
    { ...EMPTY_TICKET, ...state },
    { pair: EURUSD, side, lots: 0.1, pairs: [EURUSD], quote: () => quote, account: null, positions: [], now: NOW },
  ).errors;

describe('a bad order reads the same on both ends', () => {
  it('the order ticket', () => {
    expect(ticket('BUY', { stopLossText: '1.0852' }).stopLoss).toBe(`Stop Loss ${words(SERVER.marketStopLoss)}`);
    expect(ticket('SELL', { takeProfitText: '1.0854' }).takeProfit).toBe(`Take Profit ${words(SERVER.marketTakeProfit)}`);
    expect(ticket('BUY', { orderType: 'LIMIT', priceText: '1.050001' }).price).toBe(`Limit Price ${words(SERVER.decimals)}`);
    expect(ticket('BUY', { orderType: 'LIMIT', priceText: '1.0854' }).price).toBe(`Limit Price of ${words(SERVER.buyLimitSide)}`);
    expect(ticket('SELL', { orderType: 'STOP', priceText: '1.0852' }).price).toBe(`Stop Price of ${words(SERVER.sellStopSide)}`);
    expect(ticket('BUY', { orderType: 'LIMIT', priceText: '1.05001', stopLossText: '1.06' }).stopLoss).toBe(
      `Stop Loss ${words(SERVER.pendingStopLoss)}`,
    );
    const past = {
      orderType: 'LIMIT',
      priceText: '1.05',
      timeInForce: 'GTD',
      expiresText: localDateTimeText(NOW - 3_600_000),
    } as const;
    expect(ticket('BUY', past).expiresAt).toBe(`Expiry ${words(SERVER.expiryPast)}`);
  });

  it('the Modify form of a pending order', () => {
    const order = makeOrder({ id: 5, order_type: 'LIMIT', side: 'BUY', price: 1.05001, status: 'PENDING', position_id: null });
    const ctx = { digits: 5, quote, now: NOW };
    const change = (edit: Partial<ReturnType<typeof orderDraftOf>>) =>
      checkOrderChange(order, { ...orderDraftOf(order, 5), ...edit }, ctx).problems;
    expect(change({ price: '1.050001' }).price).toBe(words(SERVER.decimals));
    expect(change({ price: '1.0854' }).price).toBe(words(SERVER.buyLimitSide));
    expect(change({ stopLoss: '1.06' }).stopLoss).toBe(words(SERVER.pendingStopLoss));
  });

  it("a position's protection editor", () => {
    const long = makePosition({ id: 1, quantity: 0.1, side: 'LONG', stop_loss: null, take_profit: null });
    const draft = { ...protectionDraftOf(long, 5), stopLoss: '1.0852' };
    expect(checkProtection(long, draft, 5, quote.bid).problems.stopLoss).toBe(words(SERVER.marketStopLoss));
  });
});
