import { Alert, Badge } from '../../components';
import { useLiveConnected, useMarginCall } from './LiveTradingProvider';

/** The dashboard's badge (spec §2): Live Updates, or Polling Mode (5s) while the trading socket is down. */
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

/** The pair page's positions indicator (spec §2): Live or Connecting... */
export function LiveIndicator() {
  const live = useLiveConnected();
  return (
    <span role="status" aria-label="Positions feed">
      {live ? (
        <Badge tone="profit" dot pulse>
          Live
        </Badge>
      ) : (
        <Badge tone="warning" dot>
          Connecting...
        </Badge>
      )}
    </span>
  );
}

/** A margin call from the server (DESIGN §5), until dismissed. */
export function MarginCallBanner() {
  const { notice, dismiss } = useMarginCall();
  if (!notice) return null;
  return (
    <Alert key={notice.serial} tone="warning" title="Margin call" dismissible onDismiss={dismiss}>
      {notice.message}
    </Alert>
  );
}
