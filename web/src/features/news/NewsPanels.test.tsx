import type { Article } from '@pipdesk/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { PairNewsPanel, TradingNewsPanel } from './index';
import { makeArticle, queriesTo } from './testArticles';

const TRADING = '/api/news/trading/';
let server: FakeAuthServer;

function serveTrading(combined: Article[], byPair: Record<string, Article[]> = {}) {
  server.on(TRADING, () => ({ status: 200, body: { combined, by_pair: byPair } }));
}

const titled = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => makeArticle({ title: `${prefix} ${i + 1}` }));

describe('dashboard Trading News panel (docs/screens.md#dashboard)', () => {
  beforeEach(() => {
    server = new FakeAuthServer().install();
    server.signedInBefore();
  });

  it('asks for 5 articles about the first 3 pairs and lists them', async () => {
    serveTrading(titled('Combined', 5));
    renderWithProviders(<TradingNewsPanel pairs={['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF']} />);
    const panel = screen.getByRole('region', { name: 'Trading News' });
    expect(await within(panel).findByText('Combined 1')).toBeVisible();
    expect(within(panel).getAllByRole('listitem')).toHaveLength(5);
    const query = queriesTo(server, TRADING)[0];
    expect(query?.get('pairs')).toBe('EURUSD,GBPUSD,USDJPY');
    expect(query?.get('limit')).toBe('5');
    expect(query?.get('refresh')).toBeNull();
    const link = within(panel).getByRole('link', { name: /Combined 1/ });
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  });

  it('never shows more than 5, even if the server sends more', async () => {
    serveTrading(titled('Many', 8));
    renderWithProviders(<TradingNewsPanel pairs={['EURUSD']} />);
    await screen.findByText('Many 1');
    expect(screen.getAllByRole('listitem')).toHaveLength(5);
    expect(screen.queryByText('Many 6')).toBeNull();
  });

  it('View All News opens /news', async () => {
    const user = userEvent.setup();
    serveTrading(titled('Item', 2));
    renderWithProviders(
      <Routes>
        <Route path="/" element={<TradingNewsPanel pairs={['EURUSD']} />} />
        <Route path="/news" element={<h1>News screen</h1>} />
      </Routes>,
    );
    await user.click(await screen.findByRole('link', { name: 'View All News' }));
    expect(await screen.findByRole('heading', { name: 'News screen' })).toBeVisible();
  });

  it('the refresh button fetches again with refresh=true', async () => {
    const user = userEvent.setup();
    serveTrading([makeArticle({ title: 'Old' })]);
    renderWithProviders(<TradingNewsPanel pairs={['EURUSD', 'GBPUSD']} />);
    await screen.findByText('Old');
    serveTrading([makeArticle({ title: 'Fresh' })]);
    await user.click(screen.getByRole('button', { name: 'Refresh news' }));
    expect(await screen.findByText('Fresh')).toBeVisible();
    const last = queriesTo(server, TRADING).at(-1);
    expect(last?.get('refresh')).toBe('true');
    expect(last?.get('pairs')).toBe('EURUSD,GBPUSD');
  });

  it('says so when the news cannot be loaded', async () => {
    server.on(TRADING, () => ({
      status: 400,
      body: { success: false, error: 'pairs: unknown pair XXXYYY', code: 'VALIDATION' },
    }));
    renderWithProviders(<TradingNewsPanel pairs={['EURUSD']} />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load news articles. Please try again.');
  });

  it('without pairs yet, lets the server pick the first three', async () => {
    serveTrading([]);
    renderWithProviders(<TradingNewsPanel pairs={[]} />);
    expect(await screen.findByText('No trading news right now.')).toBeVisible();
    expect(queriesTo(server, TRADING)[0]?.has('pairs')).toBe(false);
  });
});

describe('pair page News panel (docs/screens.md#news)', () => {
  beforeEach(() => {
    server = new FakeAuthServer().install();
    server.signedInBefore();
  });

  it("asks for 5 articles about the pair and shows that pair's own list", async () => {
    serveTrading(titled('Combined', 5), { GBPJPY: titled('Pair', 3) });
    renderWithProviders(<PairNewsPanel symbol="gbpjpy" />);
    const panel = screen.getByRole('region', { name: 'News' });
    expect(await within(panel).findByText('Pair 1')).toBeVisible();
    expect(within(panel).getAllByRole('listitem')).toHaveLength(3);
    expect(within(panel).queryByText('Combined 1')).toBeNull();
    const query = queriesTo(server, TRADING)[0];
    expect(query?.get('pairs')).toBe('GBPJPY');
    expect(query?.get('limit')).toBe('5');
  });

  it('shows an empty state when the pair has no news', async () => {
    serveTrading([], { EURCHF: [] });
    renderWithProviders(<PairNewsPanel symbol="EURCHF" />);
    expect(await screen.findByText('No news about this pair right now.')).toBeVisible();
  });
});
