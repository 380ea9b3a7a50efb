import {
  Dec,
  type FxPair,
  type OrderSide,
  type OrderType,
  type PositionDto,
  type QuoteLookup,
  type TradingAccountDto,
} from '@pipdesk/contract';
import { useState } from 'react';
import { defaultDigits } from '../format';
import { useLivePrices } from '../LiveTradingProvider';
import { parseLots } from '../lotRules';
import { usePlatformData } from '../queries';
import type { DistanceUnit } from './ticketFigures';
import {
  EMPTY_TICKET,
  evaluateTicket,
  isPending,
  localDateTimeText,
  PREFILL_EXPIRY_MS,
  prefilledPrices,
  type TicketEvaluation,
  type TicketState,
} from './ticketModel';

export interface OrderTicketInput {
  /** The pair the order is for; none yet on the dashboard until one is chosen. */
  pair: FxPair | undefined;
  side: OrderSide;
  lotsText: string;
  /** The catalogue, for conversions to USD (docs/trading-rules.md#conversion-to-usd). */
  pairs: readonly FxPair[];
  /** The account the order is for; by default the one platform-data answered. */
  account?: TradingAccountDto | null;
}

export interface OrderTicket {
  state: TicketState;
  evaluation: TicketEvaluation;
  pair: FxPair | undefined;
  quote: { bid: number; ask: number } | undefined;
  /** The lots typed, when they are a number above 0. */
  lots: number | null;
  setOrderType(type: OrderType): void;
  set(change: Partial<TicketState>): void;
  /** Switches a stop loss or take profit between a price and pips, keeping what it means. */
  setUnit(field: 'stopLoss' | 'takeProfit', unit: DistanceUnit): void;
  /** Back to the spec's market order with nothing set (after a successful order). */
  reset(): void;
}

/**
 * The order ticket's state beside a form's side and lot size (docs/screens.md#order-ticket):
 * the live prices, the account and its open positions (platform-data, already loaded by both
 * screens), and pending prices pre-filled near the market whenever the type, the side or the
 * pair changes.
 */
export function useOrderTicket({ pair, side, lotsText, pairs, account }: OrderTicketInput): OrderTicket {
  const prices = useLivePrices();
  const platform = usePlatformData();
  const [state, setState] = useState<TicketState>(EMPTY_TICKET);
  // Read as the server reads a tick: bid and ask at the pair's digits (docs/trading-rules.md), so the figures are the server's.
  const quoteLookup: QuoteLookup = (symbol) => {
    const p = prices[symbol];
    if (!p) return undefined;
    const digits = pairs.find((x) => x.symbol === symbol)?.digits ?? defaultDigits(symbol);
    return { bid: Dec.from(p.bid).round(digits), ask: Dec.from(p.ask).round(digits) };
  };
  const exact = pair ? quoteLookup(pair.symbol) : undefined;
  const quote = exact ? { bid: Dec.from(exact.bid).toNumber(), ask: Dec.from(exact.ask).toNumber() } : undefined;

  // Pre-fill once per type, side and pair (and when the first price arrives), never over what the trader typed since.
  const prefillKey = `${state.orderType}|${side}|${pair?.symbol ?? ''}|${quote ? 'priced' : ''}`;
  const [prefilledFor, setPrefilledFor] = useState('');
  if (prefilledFor !== prefillKey) {
    setPrefilledFor(prefillKey);
    if (pair && isPending(state.orderType)) setState((s) => ({ ...s, ...prefilledPrices(s.orderType, side, quote, pair) }));
  }

  const lots = parseLots(lotsText);
  const theAccount = account === undefined ? (platform.data?.trading_account ?? null) : account;
  const evaluation = evaluateTicket(state, {
    pair,
    side,
    lots: lots !== null && lots > 0 ? lots : null,
    pairs,
    quote: quoteLookup,
    account: theAccount,
    positions: (platform.data?.open_positions ?? []) as readonly PositionDto[],
    now: Date.now(),
  });

  return {
    state,
    evaluation,
    pair,
    quote,
    lots: lots !== null && lots > 0 ? lots : null,
    setOrderType: (orderType) => setState((s) => ({ ...s, orderType })),
    set: (change) =>
      setState((s) => {
        const next = { ...s, ...change };
        // A GTD order starts a day ahead, so the field is never empty.
        if (change.timeInForce === 'GTD' && next.expiresText === '')
          next.expiresText = localDateTimeText(Date.now() + PREFILL_EXPIRY_MS);
        return next;
      }),
    setUnit: (field, unit) => {
      const figure = evaluation[field];
      const textKey = field === 'stopLoss' ? 'stopLossText' : 'takeProfitText';
      const unitKey = field === 'stopLoss' ? 'stopLossUnit' : 'takeProfitUnit';
      setState((s) => {
        const text = figure && pair ? (unit === 'pips' ? figure.pips.toFixed(1) : figure.price.toFixed(pair.digits)) : s[textKey];
        return { ...s, [unitKey]: unit, [textKey]: text };
      });
    },
    reset: () => {
      setState(EMPTY_TICKET);
      setPrefilledFor('');
    },
  };
}
