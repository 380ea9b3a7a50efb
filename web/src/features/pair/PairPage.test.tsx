import type { PlatformDataDto } from '@pipdesk/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeAuthServer } from '../../test/fakeAuthServer';
import { AccountSelectionProvider } from '../accounts';
import { FakeSocket as FakePriceSocket } from '../market/testMarket';
import { makePerformance } from '../performance/testPerformance';
import { makeReplay, PRACTICE_TRADER_ACCOUNTS } from '../replay/testReplay';
import {
  allowSlowScreens,
  EURUSD,
  makePairPage,
  makePlatformData,
  makePrices,
  ok,
  renderTrading,
  startTradingServer,
} from '../trading/testSupport';
import { PairPage } from './PairPage';

allowSlowScreens();

/** The session's EURUSD at its clock (April 2023), far from the live price (1.2). */
const SESSION = { bid: 1.09215, ask: 1.09225, mid: 1.0922, price: 1.0922, timestamp: '2023-04-10T09:00:00.000Z' };
const LIVE = { bid: 1.2, ask: 1.2002, mid: 1.2001, price: 1.2001, timestamp: '2026-11-28T10:00:00.000Z' };

let server: FakeAuthServer;
let platform: PlatformDataDto;

beforeEach(() => {
  FakePriceSocket.install();
  platform = makePlatformData();
  server = startTradingServer(
    () => platform,
    () => makePrices({ EURUSD: 1.2 }),
  );
  server.on('/api/trading/accounts/', () => ok(PRACTICE_TRADER_ACCOUNTS));
  server.on('/api/trading/replays/5/', () => ok({ replay: makeReplay(), performance: makePerformance() }));
  // The pair call answers the session's price for the practice account, the live one otherwise.
  server.on('/api/trading/pair/EURUSD/', (call) => ok(makePairPage(EURUSD, call.query.account === '12' ? SESSION : LIVE)));
  server.on('/api/trading/pair/EURUSD/price/', (call) => ok(call.query.account === '12' ? SESSION : LIVE));
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderPairPage(path: string) {
  return renderTrading(
    <AccountSelectionProvider>
      <Routes>
        <Route path="/pair/:symbol" element={<PairPage />} />
      </Routes>
    </AccountSelectionProvider>,
    { path },
  );
}

const card = () => screen.getByRole('region', { name: 'Current Price' });

describe('the pair page of a practice account (docs/replay.md#the-price-socket-of-a-practice-account)', () => {
  it("signs its price socket in as the session's account and shows the session's price, never a live one", async () => {
    renderPairPage('/pair/EURUSD?account=12');
    await waitFor(() => expect(FakePriceSocket.opened).toHaveLength(1));
    const socket = FakePriceSocket.last;
    act(() => socket.open());
    // Signed in naming the account before the subscription: the server then streams the session.
    expect(socket.sent).toEqual([
      { type: 'authenticate', token: localStorage.getItem('pipdesk.accessToken'), account: 12 },
      { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m', last_chart_time: null },
    ]);
    act(() => socket.receive({ type: 'price_update', symbol: 'EURUSD', ...SESSION, price: SESSION.mid }));
    await waitFor(() => expect(within(card()).getByTestId('bid')).toHaveTextContent('1.09215'));
    expect(within(card()).getByTestId('ask')).toHaveTextContent('1.09225');
    expect(within(card()).getByText('Replay feed')).toBeVisible();
    expect(within(card()).queryByText('Live feed')).toBeNull();
    // Nothing on the page asked for the live price.
    const priceCalls = [...server.callsTo('/api/trading/pair/EURUSD/'), ...server.callsTo('/api/trading/pair/EURUSD/price/')];
    expect(priceCalls.length).toBeGreaterThan(0);
    expect(priceCalls.every((c) => c.query.account === '12')).toBe(true);
    expect(screen.queryByText('1.20000')).toBeNull();
  });

  it('keeps the live socket of the primary account as it was: anonymous, live prices', async () => {
    renderPairPage('/pair/EURUSD');
    await waitFor(() => expect(FakePriceSocket.opened).toHaveLength(1));
    const socket = FakePriceSocket.last;
    act(() => socket.open());
    expect(socket.sent).toEqual([{ type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m', last_chart_time: null }]);
    act(() => socket.receive({ type: 'price_update', symbol: 'EURUSD', ...LIVE, price: LIVE.mid }));
    await waitFor(() => expect(within(card()).getByTestId('bid')).toHaveTextContent('1.20000'));
    expect(within(card()).getByText('Live feed')).toBeVisible();
  });
});
