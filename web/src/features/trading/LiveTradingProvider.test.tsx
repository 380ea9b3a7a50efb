import { act, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenStore } from '../../api';
import { ConnectionIndicator } from '../../realtime/ConnectionStatus';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { MarginCallBanner } from './LiveBadges';
import { useLivePrice } from './LiveTradingProvider';
import { FakeSocket, makePlatformData, makePrices, renderTrading, serveTrading } from './testSupport';

let server: FakeAuthServer;
let tokens: { access: string; refresh: string };

beforeEach(() => {
  FakeSocket.reset();
  server = new FakeAuthServer().install();
  tokens = server.signedInBefore();
  serveTrading(
    server,
    () => makePlatformData(),
    () => makePrices({ EURUSD: 1.0875 }),
  );
});

function EurUsdBid() {
  const price = useLivePrice('eurusd');
  return <output data-testid="bid">{price?.bid.toFixed(5) ?? 'none'}</output>;
}

async function connected() {
  await waitFor(() => expect(FakeSocket.last).toBeDefined());
  act(() => FakeSocket.last!.establish());
  return FakeSocket.last!;
}

describe('the live trading feed in the app (docs/screens.md#live-data-and-polling)', () => {
  it("drives the header's indicator: Connecting... until connection_established, then Live Updates", async () => {
    renderTrading(<ConnectionIndicator />);
    expect(screen.getByRole('status')).toHaveTextContent(/^Connecting\.\.\.$/);
    const ws = await connected();
    expect(ws.url).toBe(`ws://${window.location.host}/ws/trading/`);
    expect(ws.sent[0]).toEqual({ type: 'authenticate', token: tokens.access });
    expect(screen.getByRole('status')).toHaveTextContent(/^Live Updates$/);
    act(() => ws.serverClose(1006));
    expect(screen.getByRole('status')).toHaveTextContent(/^Connecting\.\.\.$/);
  });

  it('closes the socket normally (1000) when the signed-in screens go away', async () => {
    const view = renderTrading(<ConnectionIndicator />);
    const ws = await connected();
    view.unmount();
    expect(ws.closedWith).toBe(1000);
  });

  it('shows polled prices first, then the socket price_update', async () => {
    renderTrading(<EurUsdBid />);
    await waitFor(() =>
      expect(screen.getByTestId('bid')).toHaveTextContent(makePrices({ EURUSD: 1.0875 }).EURUSD!.bid.toFixed(5)),
    );
    const ws = await connected();
    act(() =>
      ws.receive({
        type: 'price_update',
        symbol: 'EURUSD',
        price: 1.09,
        bid: 1.08994,
        ask: 1.09006,
        timestamp: new Date().toISOString(),
      }),
    );
    expect(screen.getByTestId('bid')).toHaveTextContent('1.08994');
  });

  it('re-authenticates the open socket when the access token is renewed', async () => {
    renderTrading(<ConnectionIndicator />);
    const ws = await connected();
    act(() => tokenStore.save({ access: 'renewed-access-token', refresh: tokens.refresh }));
    expect(ws.sent.at(-1)).toEqual({ type: 'authenticate', token: 'renewed-access-token' });
  });

  it('after the 5 reconnects are spent shows Offline with Retry, keeps polling prices, and Retry connects again', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderTrading(<ConnectionIndicator />);
    const status = () => screen.getByRole('status');
    const ws = await connected();
    act(() => ws.serverClose(1006));
    for (let attempt = 1; attempt <= 5; attempt++) {
      await act(() => vi.advanceTimersByTimeAsync(3_000));
      expect(status()).toHaveTextContent(/^Connecting\.\.\.$/);
      expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
      act(() => FakeSocket.last!.serverClose(1006));
    }
    expect(FakeSocket.instances).toHaveLength(6);
    expect(status()).toHaveTextContent(/^Offline$/);
    const polls = server.callsTo('/api/trading/current-prices/').length;
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(server.callsTo('/api/trading/current-prices/').length).toBe(polls + 2);

    act(() => screen.getByRole('button', { name: 'Retry' }).click());
    expect(FakeSocket.instances).toHaveLength(7);
    expect(status()).toHaveTextContent(/^Connecting\.\.\.$/);
    act(() => FakeSocket.last!.establish());
    expect(status()).toHaveTextContent(/^Live Updates$/);
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('shows a margin call until it is dismissed', async () => {
    renderTrading(<MarginCallBanner />);
    const ws = await connected();
    act(() =>
      ws.receive({
        type: 'margin_call',
        data: { margin_level: 95.5, equity: 955, margin_used: 1000, message: 'Margin level 95.50% is at or below 100%' },
      }),
    );
    const banner = await screen.findByRole('status');
    expect(banner).toHaveTextContent('Margin call');
    expect(banner).toHaveTextContent('Margin level 95.50% is at or below 100%');
    act(() => screen.getByRole('button', { name: 'Dismiss' }).click());
    expect(screen.queryByText(/Margin level 95.50%/)).toBeNull();
  });
});
