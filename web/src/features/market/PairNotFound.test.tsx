import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderApp } from '../../test/render';
import { EURUSD, FakeSocket, serveMarket } from './testMarket';

describe('pair page of an unknown pair (docs/screens.md#pair-page)', () => {
  beforeEach(() => {
    FakeSocket.install();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });

  it('says "Currency pair not found" with a way back, and opens no price socket', async () => {
    const server = new FakeAuthServer().install();
    server.signedInBefore();
    serveMarket(server, { pairs: [EURUSD] });
    renderApp('/pair/xxxyyy');
    expect(await screen.findByRole('heading', { level: 1, name: 'Currency pair not found' })).toBeVisible();
    expect(screen.getByText('Currency pair XXXYYY not found')).toBeVisible();
    expect(screen.getByRole('link', { name: /Back to Platform/ })).toHaveAttribute('href', '/');
    expect(server.callsTo('/api/trading/pair/XXXYYY/')).toHaveLength(1);
    expect(FakeSocket.opened.filter((s) => s.url.endsWith('/ws/prices/'))).toEqual([]);
  });
});
