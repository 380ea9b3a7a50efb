import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useParams } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { PairsGrid } from './PairsGrid';
import { EURUSD, makePair, makePrice, serveMarket, USDJPY } from './testMarket';

function PairRoute() {
  return <p>Pair page of {useParams().symbol}</p>;
}

describe('Available Currency Pairs (docs/screens.md#dashboard)', () => {
  let server: FakeAuthServer;

  beforeEach(() => {
    server = new FakeAuthServer().install();
    server.signedInBefore();
  });

  it('lists each active pair with both flags, symbol, name and bid/ask at its digits, and opens its page', async () => {
    const user = userEvent.setup();
    const inactive = makePair('EURCHF', { is_active: false });
    serveMarket(server, {
      pairs: [EURUSD, USDJPY, inactive],
      prices: { EURUSD: makePrice(1.084123, 1.084244), USDJPY: makePrice(151.2344, 151.2516) },
    });
    renderWithProviders(
      <Routes>
        <Route path="/" element={<PairsGrid pairs={[EURUSD, USDJPY, inactive]} />} />
        <Route path="/pair/:symbol" element={<PairRoute />} />
      </Routes>,
    );
    const grid = within(screen.getByRole('region', { name: 'Available Currency Pairs' }));
    const links = grid.getAllByRole('link');
    expect(links.map((l) => l.getAttribute('href'))).toEqual(['/pair/EURUSD', '/pair/USDJPY']);

    const eurusd = within(links[0] as HTMLElement);
    expect(eurusd.getByText('EURUSD')).toBeVisible();
    expect(eurusd.getByText('Euro / US Dollar')).toBeVisible();
    expect(links[0]?.querySelectorAll('.flag')).toHaveLength(2);
    expect(await eurusd.findByText('1.08412')).toHaveClass('num--bid');
    expect(eurusd.getByText('1.08424')).toHaveClass('num--ask');
    const usdjpy = within(links[1] as HTMLElement);
    expect(usdjpy.getByText('151.234')).toHaveClass('num--bid');
    expect(usdjpy.getByText('151.252')).toHaveClass('num--ask');

    await user.click(links[1] as HTMLElement);
    expect(screen.getByText('Pair page of USDJPY')).toBeVisible();
  });

  it('shows the live prices it is given instead of polling', () => {
    serveMarket(server, { pairs: [EURUSD] });
    renderWithProviders(<PairsGrid pairs={[EURUSD]} prices={{ EURUSD: { bid: 1.1, ask: 1.10012 } }} />);
    expect(screen.getByText('1.10000')).toBeVisible();
    expect(screen.getByText('1.10012')).toBeVisible();
    expect(server.callsTo('/api/trading/current-prices/')).toHaveLength(0);
  });
});
