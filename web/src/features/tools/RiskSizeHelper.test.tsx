import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { FakeAuthServer } from '../../test/fakeAuthServer';
import { MarketOrderForm } from '../trading/MarketOrderForm';
import { PairOrderForm } from '../trading/PairOrderForm';
import {
  allowSlowScreens,
  CATALOGUE,
  EURUSD,
  makeAccount,
  makePlatformData,
  ok,
  renderTrading,
  startTradingServer,
} from '../trading/testSupport';

// The Risk % helper beside Lot Size (docs/screens.md#risk-helper): additional, the spec's form unchanged.

allowSlowScreens();

const SIZE = '/api/trading/position-size/';
let server: FakeAuthServer;

beforeEach(() => {
  server = startTradingServer(() => makePlatformData());
  server.on(SIZE, () => ok({ lots: 0.5, risk_amount: 100, pip_value_per_lot: 10, stop_pips: 20 }));
});

/** The query of each position-size call. */
function sizeQueries(): Record<string, string>[] {
  return server.fetch.mock.calls
    .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
    .filter((url) => url.pathname === SIZE)
    .map((url) => Object.fromEntries(url.searchParams));
}

const lotSize = () => screen.getByLabelText('Lot Size') as HTMLInputElement;

function renderPairForm() {
  const mids: Record<string, number> = { EURUSD: 1.2, USDJPY: 150, EURJPY: 180 };
  return renderTrading(<PairOrderForm pair={EURUSD} account={makeAccount()} pairs={CATALOGUE} mid={(s) => mids[s]} />);
}

describe('Risk % on the pair page form', () => {
  it("keeps the spec's texts and defaults, and Use puts the server's size for the risk and stop in Lot Size", async () => {
    const user = userEvent.setup();
    renderPairForm();
    const form = await screen.findByRole('form', { name: 'Place Order' });
    // The spec's form, as before the helper (docs/screens.md#order-forms).
    expect(within(form).getByRole('radio', { name: 'BUY' })).toBeChecked();
    expect(within(form).getByRole('radio', { name: 'SELL' })).not.toBeChecked();
    expect(lotSize()).toHaveValue(0.01);
    expect(lotSize()).toHaveAttribute('step', '0.01');
    expect(within(form).getByText(/^Minimum: 0\.01, Maximum: /)).toBeInTheDocument();
    expect(within(form).getByText('Estimated Margin Required')).toBeInTheDocument();
    expect(within(form).getByRole('button', { name: 'Buy EURUSD' })).toBeInTheDocument();

    expect(screen.getByLabelText('Risk %')).toHaveValue(1);
    expect(screen.getByRole('button', { name: 'Use' })).toBeDisabled();
    await user.type(screen.getByLabelText('Stop (pips)'), '20');
    await user.click(screen.getByRole('button', { name: 'Use' }));
    await waitFor(() => expect(lotSize()).toHaveValue(0.5));
    expect(sizeQueries()).toEqual([{ symbol: 'EURUSD', risk_pct: '1', stop_pips: '20', side: 'BUY' }]);
    expect(screen.getByText('0.50 lots risk $100.00 at a 20.0-pip stop')).toBeInTheDocument();
  });

  it("measures the stop from the ticket's Stop Loss when one is set, and says when even the minimum risks more", async () => {
    const user = userEvent.setup();
    server.on(SIZE, () => ok({ lots: 0, risk_amount: 1, pip_value_per_lot: 10, stop_pips: 21.2 }));
    renderPairForm();
    await screen.findByRole('form', { name: 'Place Order' });
    await waitFor(() => expect(server.callsTo('/api/trading/current-prices/').length).toBeGreaterThan(0));
    // A BUY fills at the ask (1.20006): a stop at 1.19794 is 21.2 pips from it.
    await user.type(screen.getByLabelText('Stop Loss'), '1.19794');
    await waitFor(() => expect(screen.getByLabelText('Stop (pips)')).toHaveValue(21.2));
    expect(screen.getByLabelText('Stop (pips)')).toHaveAttribute('readonly');
    await user.clear(screen.getByLabelText('Risk %'));
    await user.type(screen.getByLabelText('Risk %'), '0.01');
    await user.click(screen.getByRole('button', { name: 'Use' }));
    expect(await screen.findByText('Even the minimum lot size risks more than that')).toBeInTheDocument();
    expect(sizeQueries()).toEqual([{ symbol: 'EURUSD', risk_pct: '0.01', stop_pips: '21.2', side: 'BUY' }]);
    expect(lotSize()).toHaveValue(0.01);
  });
});

describe('Risk % on the dashboard form', () => {
  it("waits for a pair, then fills Lot Size; the spec's texts stay", async () => {
    const user = userEvent.setup();
    renderTrading(<MarketOrderForm pairs={CATALOGUE} onError={() => {}} />);
    const form = await screen.findByRole('form', { name: 'Place Market Order' });
    expect(lotSize()).toHaveValue(0.01);
    expect(within(form).getByText('Minimum: 0.01, Maximum: 100.00')).toBeInTheDocument();
    expect(within(form).getByRole('button', { name: 'Place Order' })).toBeDisabled();
    await user.type(screen.getByLabelText('Stop (pips)'), '20');
    expect(screen.getByRole('button', { name: 'Use' })).toBeDisabled();
    await user.selectOptions(screen.getByLabelText('Currency Pair'), String(EURUSD.id));
    await user.click(screen.getByRole('button', { name: 'Use' }));
    await waitFor(() => expect(lotSize()).toHaveValue(0.5));
    expect(within(form).getByRole('button', { name: 'Place Order' })).toBeEnabled();
  });
});
