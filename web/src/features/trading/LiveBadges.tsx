import { Alert, Badge } from '../../components';
import { useConnectionStatus } from '../../realtime/ConnectionStatus';
import { useLiveConnected, useMarginCall } from './LiveTradingProvider';

/** The dashboard's badge (docs/screens.md#dashboard): Live Updates, or Polling Mode (5s) while the trading socket is down. */
export function FeedModeBadge() {
  const live = useLiveConnected();
  return (
    <span role="status" aria-label="Data feed" className="feed-mode">
      {live ? (
        <Badge tone="profit" dot pulse>
          Live Updates
        </Badge>
      ) : (
        <Badge tone="warning" dot>
          Polling Mode (5s)
        </Badge>
      )}
    </span>
  );
}

/** The pair page's positions indicator (docs/screens.md#pair-page): Live or Connecting..., Offline once the socket gave up. */
export function LiveIndicator() {
  const state = useConnectionStatus();
  return (
    <span role="status" aria-label="Positions feed">
      {state === 'live' ? (
        <Badge tone="profit" dot pulse>
          Live
        </Badge>
      ) : state === 'offline' ? (
        <Badge tone="loss" dot>
          Offline
        </Badge>
      ) : (
        <Badge tone="warning" dot>
          Connecting...
        </Badge>
      )}
    </span>
  );
}

/** A margin call from the server (docs/api.md#trading-socket), until dismissed. */
export function MarginCallBanner() {
  const { notice, dismiss } = useMarginCall();
  if (!notice) return null;
  return (
    <Alert key={notice.serial} tone="warning" title="Margin call" dismissible onDismiss={dismiss}>
      {notice.message}
    </Alert>
  );
}
