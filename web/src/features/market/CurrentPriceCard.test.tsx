import { act, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { CurrentPriceCard, newestQuote, spreadText } from './CurrentPriceCard';
import { PriceStream } from './priceStream';
import { EURUSD, FakeSocket, makePrice, serveMarket, USDJPY } from './testMarket';

describe('spread in pips', () => {
  it('is (ask − bid) ÷ pip size with one decimal', () => {
    expect(spreadText({ bid: 1.08412, ask: 1.08424 }, EURUSD)).toBe('1.2');
    expect(spreadText({ bid: 1.0841, ask: 1.0842 }, EURUSD)).toBe('1.0');
    expect(spreadText({ bid: 151.234, ask: 151.251 }, USDJPY)).toBe('1.7');
    expect(spreadText({ bid: 0.85912, ask: 0.85937 }, EURUSD)).toBe('2.5');
  });

  it('is taken between the prices as shown, so it agrees with the figures beside it', () => {
    // Shown as 151.234 and 151.252: 1.8 pips, not the 1.72 of the unrounded prices.
    expect(spreadText({ bid: 151.2344, ask: 151.2516 }, USDJPY)).toBe('1.8');
  });
});

describe('newestQuote', () => {
  it('picks the quote with the latest timestamp, skipping missing ones', () => {
    const older = makePrice(1.1, 1.2, '2026-03-12T10:00:00.000Z');
    const newer = makePrice(1.3, 1.4, '2026-03-12T10:00:05.000Z');
    expect(newestQuote(null, older, undefined, newer)).toBe(newer);
    expect(newestQuote(newer, older)).toBe(newer);
    expect(newestQuote(null, undefined)).toBeNull();
  });
});

describe('Current Price card (docs/screens.md#pair-page)', () => {
  let server: FakeAuthServer;

  beforeEach(() => {
    FakeSocket.install();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    server = new FakeAuthServer().install();
    server.signedInBefore();
  });

  it('shows EURUSD with 5 decimals: bid in red, ask in green, spread in pips', () => {
    serveMarket(server, { pairs: [EURUSD] });
    renderWithProviders(
      <CurrentPriceCard pair={EURUSD} stream={null} initialPrice={makePrice(1.084123, 1.0842404, '2026-03-12T10:00:00Z')} />,
    );
    const card = within(screen.getByRole('region', { name: 'Current Price' }));
    expect(card.getByRole('heading', { name: 'Current Price' })).toBeVisible();
    expect(card.getByTestId('bid')).toHaveTextContent('1.08412');
    expect(card.getByTestId('bid')).toHaveClass('num--bid');
    expect(card.getByTestId('ask')).toHaveTextContent('1.08424');
    expect(card.getByTestId('ask')).toHaveClass('num--ask');
    expect(card.getByText('Spread')).toBeVisible();
    expect(card.getByTestId('spread')).toHaveTextContent('1.2 pips');
  });

  it('shows USDJPY with 3 decimals and its spread in pips of 0.01', () => {
    serveMarket(server, { pairs: [USDJPY] });
    renderWithProviders(
      <CurrentPriceCard pair={USDJPY} stream={null} initialPrice={makePrice(151.2344, 151.2516, '2026-03-12T10:00:00Z')} />,
    );
    expect(screen.getByTestId('bid')).toHaveTextContent(/^151\.234$/);
    expect(screen.getByTestId('ask')).toHaveTextContent(/^151\.252$/);
    expect(screen.getByTestId('spread')).toHaveTextContent('1.8 pips');
  });

  it('follows the price socket live, and polls the price call while the socket is down', async () => {
    const polled = makePrice(1.08, 1.0801, '2020-01-01T00:00:00Z');
    serveMarket(server, { pairs: [EURUSD], prices: { EURUSD: polled } });
    const stream = new PriceStream('EURUSD');
    stream.start();
    renderWithProviders(<CurrentPriceCard pair={EURUSD} stream={stream} />);
    // Connecting: the card polls pair/{symbol}/price/.
    expect(await screen.findByText('Polling every 5s')).toBeVisible();
    expect(await screen.findByText('1.08000')).toBeVisible();
    expect(server.callsTo('/api/trading/pair/EURUSD/price/')).toHaveLength(1);

    const socket = FakeSocket.last;
    act(() => socket.open());
    expect(screen.getByText('Live feed')).toBeVisible();
    const tick = (bid: number, ask: number, second: number) =>
      act(() =>
        socket.receive({
          type: 'price_update',
          symbol: 'EURUSD',
          price: (bid + ask) / 2,
          bid,
          ask,
          timestamp: new Date(Date.UTC(2026, 2, 12, 10, 0, second)).toISOString(),
        }),
      );
    tick(1.08412, 1.08424, 1);
    expect(screen.getByTestId('bid')).toHaveTextContent('1.08412');
    expect(screen.getByTestId('ask')).toHaveTextContent('1.08424');
    tick(1.08415, 1.08431, 2);
    expect(screen.getByTestId('bid')).toHaveTextContent('1.08415');
    expect(screen.getByTestId('ask')).toHaveTextContent('1.08431');
    expect(screen.getByTestId('spread')).toHaveTextContent('1.6 pips');

    act(() => socket.receive({ type: 'external_feed_disconnected', source: 'external' }));
    expect(screen.getByText('Feed interrupted')).toBeVisible();
    act(() => socket.receive({ type: 'external_feed_connected', source: 'external' }));
    expect(screen.getByText('Live feed')).toBeVisible();
    stream.stop();
  });
});
