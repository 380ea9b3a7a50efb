import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { FakeAuthServer } from '../../test/fakeAuthServer';
import {
  allowSlowScreens,
  establishSocket,
  findNotice,
  makePlatformData,
  notifications,
  ok,
  renderTrading,
  startTradingServer,
} from '../trading/testSupport';
import { AlertWatch } from './AlertWatch';
import { useAlerts } from './alertsApi';
import { makeAlert } from './alertTestSupport';
import { readSeenMark } from './seenAlerts';

// A fired alert reaches the trader on any page (docs/screens.md#alerts): from the trading socket
// at once, or on the next visit when it fired with the browser closed.

allowSlowScreens();

const LIST = '/api/trading/alerts/';
const fired = (id: number, at: string, overrides = {}) =>
  makeAlert({ id, status: 'TRIGGERED', triggered_at: at, triggered_price: 1.10003, ...overrides });

let server: FakeAuthServer;
let triggered = [fired(3, '2026-04-01T13:00:00.000Z')];

beforeEach(() => {
  triggered = [fired(3, '2026-04-01T13:00:00.000Z')];
  server = startTradingServer(() => makePlatformData());
  server.on(LIST, () => ok(triggered));
});

/** Any page with the alerts list on it, so its reload shows. */
function ActiveCount() {
  const alerts = useAlerts('ACTIVE');
  return <output data-testid="active">{alerts.data?.length ?? 'none'}</output>;
}

describe('alert notices', () => {
  it('shows an alert_update from the socket as a notice that stays, and reloads the alerts', async () => {
    renderTrading(<ActiveCount />);
    const ws = await establishSocket();
    await waitFor(() => expect(server.callsTo(LIST)).toHaveLength(1));
    const alert = fired(8, '2026-04-01T14:00:00.000Z', { note: 'breakout' });
    act(() => ws.receive({ type: 'alert_update', data: { alert } }));
    const notice = await findNotice('Alert');
    expect(notice).toHaveTextContent('EURUSD bid reached 1.10000 (1.10003) · breakout');
    // It happened without the trader: it stays until dismissed.
    expect(within(notice).getByRole('button', { name: 'Dismiss notification' })).toBeInTheDocument();
    await waitFor(() => expect(server.callsTo(LIST)).toHaveLength(2));
  });

  it('shows the alerts fired while the browser was closed once, then remembers them for this trader', async () => {
    localStorage.setItem('pipdesk.alerts.seen.1', JSON.stringify({ at: '2026-04-01T12:00:00.000Z', id: 1 }));
    triggered = [fired(4, '2026-04-01T15:00:00.000Z', { price: 1.2, triggered_price: 1.20001 }), ...triggered];
    const first = renderTrading(<AlertWatch userId={1} />);
    await findNotice('EURUSD bid reached 1.20000 (1.20001) · breakout');
    await findNotice('EURUSD bid reached 1.10000 (1.10003) · breakout');
    expect(readSeenMark(1)).toEqual({ at: '2026-04-01T15:00:00.000Z', id: 4 });
    first.unmount();

    // The next visit: nothing new, nothing shown; another trader in this browser has their own mark.
    renderTrading(<AlertWatch userId={1} />);
    await waitFor(() => expect(server.callsTo(LIST)).toHaveLength(2));
    expect(within(notifications()).queryByText(/reached/)).toBeNull();
    expect(readSeenMark(2)).toBeNull();
    expect(screen.queryByRole('listitem')).toBeNull();
  });
});
