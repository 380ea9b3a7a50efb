import {
  type OrderDto,
  type OrderReason,
  orderRejectedSchema,
  type PositionDto,
  type TradingServerMessage,
} from '@pipdesk/contract';
import { ApiError, errorMessage } from '../../api';
import type { NoticeInput } from '../../notices/NoticeProvider';
import { alertNotice } from '../alerts/alertText';
import { formatLots, formatQuote } from './format';

// docs/screens.md#notices: what each order event and margin call says, wherever the trader is.

/** The orders the server closes a position with, by their `reason`: the trader did not place them. */
const SERVER_CLOSES: Readonly<Partial<Record<OrderReason, { title: string; tone: NoticeInput['tone'] }>>> = {
  stop_out: { title: 'Stop-out', tone: 'warning' },
  stop_loss: { title: 'Stop loss triggered', tone: 'warning' },
  take_profit: { title: 'Take profit triggered', tone: 'success' },
  trailing_stop: { title: 'Trailing stop triggered', tone: 'warning' },
  challenge_breach: { title: 'Evaluation ended', tone: 'warning' },
};

/**
 * The event an order's notice reports: one per order and status, whichever message brings it
 * (a STOP_LIMIT whose stop triggered stays PENDING: its trigger is an event of its own).
 */
export function orderNoticeKey(order: Pick<OrderDto, 'id' | 'status' | 'triggered_at'>): string {
  return `order:${order.id}:${order.status === 'PENDING' && order.triggered_at ? 'TRIGGERED' : order.status}`;
}

/** The stored REJECTED order of a refused order or close (the 422 answer), if the error carries one. */
export function rejectedOrderOf(err: unknown): OrderDto | null {
  if (!(err instanceof ApiError)) return null;
  const parsed = orderRejectedSchema.safeParse(err.body);
  return parsed.success ? parsed.data.data.order : null;
}

/** "BUY 0.10 EURUSD", "SELL LIMIT 0.10 EURUSD". */
function describe(order: OrderDto, lots: number): string {
  const type = order.order_type === 'MARKET' ? '' : ` ${order.order_type.replace('_', ' ')}`;
  return `${order.side}${type} ${formatLots(lots)} ${order.fx_pair_symbol}`;
}

/**
 * A change of a pending order (price, expiry, protection): keyed by the change's time, so each
 * change shows once, whether this tab's answer or the socket reports it first.
 */
export function orderModifiedNotice(order: OrderDto, digits: (symbol: string) => number): NoticeInput {
  return {
    key: `order:${order.id}:MODIFIED:${order.updated_at}`,
    tone: 'info',
    title: 'Order modified',
    text: `${describe(order, order.quantity)} at ${formatQuote(order.price, digits(order.fx_pair_symbol))}`,
  };
}

/**
 * The notice of an order's current status, or null when that status says nothing new. A
 * pending order whose `updated_at` moved past its `created_at` was modified (its own notice).
 * `position` (the close's answer or its order_confirmation) tells a partial close from a whole
 * one. What the trader did not do at that moment (a trigger, a stop-out, a pending order's
 * fill) stays on screen until dismissed.
 */
export function orderNotice(
  order: OrderDto,
  digits: (symbol: string) => number,
  position?: Pick<PositionDto, 'status' | 'quantity'> | null,
): NoticeInput | null {
  const key = orderNoticeKey(order);
  const at = (price: number | null) => formatQuote(price, digits(order.fx_pair_symbol));
  switch (order.status) {
    case 'FILLED':
    case 'PARTIALLY_FILLED': {
      const text = `${describe(order, order.filled_quantity)} filled at ${at(order.average_fill_price)}`;
      const trigger = SERVER_CLOSES[order.reason];
      if (trigger) return { key, tone: trigger.tone, title: trigger.title, text, sticky: true };
      if (order.reason === 'close') {
        const partly = position?.status === 'OPEN' && position.quantity !== 0;
        return { key, tone: 'success', title: partly ? 'Position partly closed' : 'Position closed', text };
      }
      if (order.order_type !== 'MARKET') return { key, tone: 'success', title: 'Pending order filled', text, sticky: true };
      return { key, tone: 'success', title: 'Order filled', text };
    }
    case 'REJECTED': {
      const what = describe(order, order.quantity);
      return {
        key,
        tone: 'error',
        title: 'Order rejected',
        text: order.rejection_reason ? `${what}: ${order.rejection_reason}` : what,
      };
    }
    case 'PENDING':
      if (order.triggered_at) {
        const text = `${describe(order, order.quantity)} now rests as a limit at ${at(order.limit_price)}`;
        return { key, tone: 'info', title: 'Stop triggered', text, sticky: true };
      }
      if (order.updated_at !== order.created_at) return orderModifiedNotice(order, digits);
      return {
        key,
        tone: 'info',
        title: 'Pending order placed',
        text: `${describe(order, order.quantity)} at ${at(order.price)}`,
      };
    case 'CANCELLED':
      return { key, tone: 'info', title: 'Order cancelled', text: `${describe(order, order.quantity)} at ${at(order.price)}` };
    case 'EXPIRED':
      return { key, tone: 'warning', title: 'Order expired', text: `${describe(order, order.quantity)} at ${at(order.price)}` };
    default:
      return null;
  }
}

/**
 * The notice a trading socket message brings (docs/api.md#trading-socket), or null. A new
 * order event on the socket is one more `case` handing its order to `orderNotice`.
 */
export function tradingMessageNotice(message: TradingServerMessage, digits: (symbol: string) => number): NoticeInput | null {
  switch (message.type) {
    case 'order_confirmation':
      return orderNotice(message.data.order, digits, message.data.position);
    case 'order_update':
      return orderNotice(message.data.order, digits);
    case 'margin_call':
      return { tone: 'warning', title: 'Margin call', text: message.data.message };
    case 'alert_update':
      return alertNotice(message.data.alert, digits);
    default:
      return null;
  }
}

/**
 * docs/screens.md#error-texts: the pair page's texts for order and close failures (shown in a notice,
 * docs/screens.md#notices). "Error:" prefixes
 * the server's own refusal; "Error placing order:" / "Error closing position:" an exception
 * (no answer at all).
 */
export function alertText(
  err: unknown,
  action: 'placing order' | 'closing position',
  failed: string,
  unexpected: string,
): string {
  const message = errorMessage(err, failed, unexpected);
  return err instanceof ApiError ? `Error: ${message}` : `Error ${action}: ${message}`;
}

/**
 * A failed order or close on the pair page (and a close on the dashboard), in the words of
 * docs/screens.md#error-texts. Kept here, not in the pair page's form, so the dashboard's close
 * does not bring that form (and the tools it imports) into the first load. A
 * rejection's notice from the socket gives way to it (same key): that page words it "Error: ...".
 */
export function failureNotice(
  err: unknown,
  action: 'placing order' | 'closing position',
  failed: string,
  unexpected: string,
): NoticeInput {
  const rejected = rejectedOrderOf(err);
  return {
    ...(rejected ? { key: orderNoticeKey(rejected) } : {}),
    tone: 'error',
    text: alertText(err, action, failed, unexpected),
  };
}
