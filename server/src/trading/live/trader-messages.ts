import type { OrderDto, PositionDto } from '@pipdesk/contract';
import type { PositionProtectionPayload } from '../events.js';
import { positionDto } from '../presenter.js';
import type { ExecutionEvent } from '../types.js';
import type { Figures, LiveAccount, LivePosition } from './book.js';
import { encodeMessage } from './messages.js';
import type { TradingSocketServer } from './socket.js';

// What the live book tells a trader outside the paced streams (docs/api.md#trading-socket), and
// the one way it reaches them.

/** Sends frames to the sockets that serve one account of a trader (`sendToAccount` bound to this node's trading sockets). */
export type SendToAccount = (userId: number, accountId: number, frames: () => readonly Buffer[]) => void;

/**
 * Every authenticated socket of the trader on this node gets the same frames, in order: they are
 * built only when the trader has a socket here, and once for all of them
 * (docs/ARCHITECTURE.md#sockets); each socket's leave in one write at the end of the turn.
 */
export function sendToUser(sockets: Pick<TradingSocketServer, 'forUser'>, userId: number, frames: () => readonly Buffer[]): void {
  const conns = sockets.forUser(userId);
  if (!conns || conns.size === 0) return;
  const built = frames();
  for (const conn of conns) conn.sendBatch(built);
}

/**
 * The same for what happens on one account (its fills, orders, positions, margin calls): only the
 * trader's sockets that serve that account get it (docs/accounts.md), so a challenge account's fill
 * never shows on the primary account's screen.
 */
export function sendToAccount(
  sockets: Pick<TradingSocketServer, 'forUser'>,
  userId: number,
  accountId: number,
  frames: () => readonly Buffer[],
): void {
  const conns = sockets.forUser(userId);
  if (!conns || conns.size === 0) return;
  let built: readonly Buffer[] | undefined;
  for (const conn of conns) {
    if (conn.serves !== accountId) continue;
    built ??= frames();
    conn.sendBatch(built);
  }
}

/** The account's open positions, oldest first, as the REST calls list them. */
export function openPositionDtos(account: LiveAccount): PositionDto[] {
  return [...account.positions.values()].sort((a, b) => a.state.id - b.state.id).map(toPositionDto);
}

function toPositionDto(position: LivePosition): PositionDto {
  const value = { currentPrice: position.currentPrice, unrealizedPnl: position.unrealized, margin: position.margin };
  return positionDto(position.state, value, position.pair);
}

/** `positions_update`: the account's open positions valued at the book's prices. */
export function positionsFrame(account: LiveAccount): Buffer {
  return encodeMessage('positions_update', { data: openPositionDtos(account) });
}

/** `order_update`: a change of one of the trader's orders. */
export function orderUpdateFrame(order: OrderDto): Buffer {
  return encodeMessage('order_update', { data: { order } });
}

/** What an execution tells its trader: the confirmation, the order's change, the P&L it realized, the positions it moved. */
export function executionFrames(event: ExecutionEvent, account: LiveAccount): Buffer[] {
  const frames = [
    encodeMessage('order_confirmation', {
      data: { order: event.order, position: event.position, execution_details: event.execution_details },
    }),
    // docs/api.md#trading-socket: every change of an order, an execution's too (made here, not a second bus message).
    orderUpdateFrame(event.order),
  ];
  if (event.trades.length > 0) frames.push(encodeMessage('pnl_update', { trades: event.trades }));
  if (event.position_state) frames.push(positionsFrame(account));
  return frames;
}

/** `margin_call` (docs/trading-rules.md#margin-call-and-stop-out); `stopOutLevel` in percent. */
export function marginCallFrame(figures: Figures, stopOutLevel: number): Buffer {
  const level = figures.marginLevel!.toNumber(2);
  return encodeMessage('margin_call', {
    data: {
      margin_level: level,
      equity: figures.equity.toNumber(2),
      margin_used: figures.marginUsed.toNumber(2),
      message: `Margin call: your margin level is ${level.toFixed(2)}%. Positions are closed automatically from ${stopOutLevel}%, largest loss first.`,
    },
  });
}

/**
 * The trader changed a position's protection: the book's position keeps it, and the account's
 * sockets see the positions again (the live node's and a practice account's book alike).
 */
export function applyProtection(account: LiveAccount | undefined, change: PositionProtectionPayload, send: SendToAccount): void {
  const position = account?.positions.get(change.positionId);
  if (!account || !position) return;
  position.state = {
    ...position.state,
    stopLoss: change.stopLoss,
    takeProfit: change.takeProfit,
    trailingStopPips: change.trailingStopPips,
  };
  send(change.userId, change.accountId, () => [positionsFrame(account)]);
}
