import type { PlatformDataDto } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useNotices } from '../../notices/NoticeProvider';
import { digitsLookup } from '../trading/format';
import { tradingKeys } from '../trading/queries';
import { useAlerts } from './alertsApi';
import { alertNotice } from './alertText';
import { readSeenMark, unseenAlerts, writeSeenMark } from './seenAlerts';

/** Past this many, the alerts that fired while the trader was away are summed up in one notice. */
export const MISSED_ALERT_NOTICES = 3;

/**
 * The fired alerts this trader has not seen (docs/screens.md#alerts): at sign-in or app load,
 * and whenever the list of fired alerts reloads (an `alert_update` on the socket reloads it), each
 * unseen one gives its notice once (the socket's notice of the same alert has the same key, so
 * it never shows twice) and the newest becomes the seen mark of this browser. Renders nothing;
 * mount it once in the signed-in layout.
 */
export function AlertWatch({ userId }: { userId: number }) {
  const triggered = useAlerts('TRIGGERED');
  const notices = useNotices();
  const queryClient = useQueryClient();

  useEffect(() => {
    if (!triggered.data) return;
    const { unseen, next } = unseenAlerts(triggered.data, readSeenMark(userId));
    if (unseen.length === 0) return;
    // Platform data only when a screen loaded it already: this runs on every page, and a pair
    // without it gets its usual digits from the symbol.
    const digits = digitsLookup(queryClient.getQueryData<PlatformDataDto>(tradingKeys.platformData)?.fx_pairs);
    const shown = unseen.slice(-MISSED_ALERT_NOTICES);
    const more = unseen.length - shown.length;
    if (more > 0)
      notices.notify({
        tone: 'info',
        title: 'Alerts',
        text: `${more} more alert${more === 1 ? '' : 's'} fired while you were away: see Alerts`,
        sticky: true,
      });
    for (const alert of shown) {
      const notice = alertNotice(alert, digits);
      if (notice) notices.notify(notice);
    }
    if (next) writeSeenMark(userId, next);
  }, [triggered.data, userId, notices, queryClient]);

  return null;
}
