import type { Alert, AlertCondition, AlertStatus } from '@pipdesk/contract';
import type { NoticeInput } from '../../notices/NoticeProvider';
import { formatQuote } from '../trading/format';

// The words of price alerts (docs/screens.md#alerts), shared by the Alerts page, the chart's
// alert dialog and the notices.

/** "Bid above", as the condition select and the list say it. */
export const CONDITION_LABELS: Readonly<Record<AlertCondition, string>> = {
  bid_above: 'Bid above',
  bid_below: 'Bid below',
  ask_above: 'Ask above',
  ask_below: 'Ask below',
};

export const STATUS_LABELS: Readonly<Record<AlertStatus, string>> = {
  ACTIVE: 'Active',
  TRIGGERED: 'Triggered',
  EXPIRED: 'Expired',
};

/** Which side of the quote an alert watches, in lower case ("bid"). */
export function quoteSide(condition: AlertCondition): 'bid' | 'ask' {
  return condition.startsWith('bid') ? 'bid' : 'ask';
}

/** "EURUSD bid above 1.10000". */
export function describeAlert(alert: Pick<Alert, 'symbol' | 'condition' | 'price'>, digits: number): string {
  return `${alert.symbol} ${CONDITION_LABELS[alert.condition].toLowerCase()} ${formatQuote(alert.price, digits)}`;
}

/**
 * The condition an alert at `price` needs to fire when the market gets there: above the bid
 * when the price is at or over it, else below (the chart's alert, docs/charting.md#alerts).
 */
export function conditionFor(price: number, bid: number | undefined): AlertCondition {
  return bid === undefined || price >= bid ? 'bid_above' : 'bid_below';
}

/** One notice per alert and status, whether the socket or the next visit reports it first. */
export function alertNoticeKey(alert: Pick<Alert, 'id' | 'status'>): string {
  return `alert:${alert.id}:${alert.status}`;
}

/**
 * The notice of a fired or expired alert (docs/screens.md#notices): "Alert" / "EURUSD bid
 * reached 1.10000 (1.10003)" with the note after it. It happened without the trader, so it
 * stays until dismissed; null for an ACTIVE alert (nothing happened).
 */
export function alertNotice(alert: Alert, digits: (symbol: string) => number): NoticeInput | null {
  const d = digits(alert.symbol);
  const note = alert.note ? ` · ${alert.note}` : '';
  if (alert.status === 'TRIGGERED') {
    const at = alert.triggered_price === null ? '' : ` (${formatQuote(alert.triggered_price, d)})`;
    return {
      key: alertNoticeKey(alert),
      tone: 'info',
      title: 'Alert',
      text: `${alert.symbol} ${quoteSide(alert.condition)} reached ${formatQuote(alert.price, d)}${at}${note}`,
      sticky: true,
    };
  }
  if (alert.status === 'EXPIRED')
    return { key: alertNoticeKey(alert), tone: 'info', title: 'Alert expired', text: `${describeAlert(alert, d)}${note}` };
  return null;
}
