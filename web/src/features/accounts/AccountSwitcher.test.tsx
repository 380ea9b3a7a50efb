import type { AccountSummaryDto } from '@pipdesk/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenStore } from '../../api';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderApp } from '../../test/render';
import { allowSlowScreens, FakeSocket, makeAccount, makePlatformData, ok, serveTrading } from '../trading/testSupport';

allowSlowScreens();

const T0 = '2026-04-01T12:00:00.000Z';

function summary(overrides: Partial<AccountSummaryDto> & Pick<AccountSummaryDto, 'id' | 'kind' | 'name'>): AccountSummaryDto {
  return {
    currency: 'USD',
    balance: 10_000,
    equity: 10_000,
    margin_used: 0,
    free_margin: 10_000,
    leverage: 100,
    status: 'ACTIVE',
    created_at: T0,
    challenge: null,
    replay: null,
    ...overrides,
  };
}

const PRIMARY = summary({ id: 1, kind: 'primary', name: 'Primary' });
const CHALLENGE = summary({
  id: 2,
  kind: 'challenge',
  name: 'Phase 1',
  balance: 5_000,
  equity: 5_050.5,
  challenge: { attempt_id: 7, status: 'ACTIVE' },
});

let server: FakeAuthServer;

/** A server whose trading figures are those of the account each call names (the primary one without `account`). */
function serveAccounts(accounts: AccountSummaryDto[]) {
  server.on('/api/trading/accounts/', () => ok(accounts));
  serveTrading(server, () => makePlatformData());
  server.on('/api/trading/platform-data/', (call) => {
    const account = accounts.find((a) => String(a.id) === call.query.account) ?? accounts[0]!;
    return ok(makePlatformData({ trading_account: makeAccount({ id: account.id, balance: account.balance }) }));
  });
}

const switcher = () => screen.getByRole('combobox', { name: 'Account' });
/** The switcher with its badge and equity beside it. */
const switcherBox = () => switcher().parentElement!;
const balance = () => screen.getByTestId('account-balance');
/** The `account` each call to `path` named (undefined: none). */
const accountsNamed = (path: string) => server.callsTo(path).map((c) => c.query.account);

async function renderSignedIn(path: string) {
  const view = renderApp(path);
  await screen.findByText('Demo Trader');
  return view;
}

beforeEach(() => {
  FakeSocket.reset();
  // The app's trading socket is the browser's WebSocket; here a FakeSocket the test plays the server of.
  vi.stubGlobal('WebSocket', FakeSocket);
  server = new FakeAuthServer().install();
  server.signedInBefore();
});

describe('account switcher (docs/screens.md#account-switcher)', () => {
  it('shows nothing new to a trader with one account', async () => {
    serveAccounts([PRIMARY]);
    await renderSignedIn('/');
    await waitFor(() => expect(balance()).toHaveTextContent('$10,000.00'));
    await waitFor(() => expect(server.callsTo('/api/trading/accounts/')).toHaveLength(1));
    await act(async () => {});
    expect(screen.queryByRole('combobox', { name: 'Account' })).not.toBeInTheDocument();
    expect(screen.queryByText('Primary')).not.toBeInTheDocument();
    expect(accountsNamed('/api/trading/platform-data/')).toEqual([undefined]);
  });

  it('lists every account with its kind and equity, the selected one first shown with its badge', async () => {
    serveAccounts([PRIMARY, CHALLENGE]);
    await renderSignedIn('/');
    const select = await screen.findByRole('combobox', { name: 'Account' });
    expect(
      within(select)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Primary · $10,000.00', 'Phase 1 · Challenge · $5,050.50']);
    expect(select).toHaveValue('1');
    expect(within(switcherBox()).getByText('Primary', { selector: '.badge' })).toBeInTheDocument();
  });

  it('switches: the address names the account, the screen and the next calls are its, the socket is a new one for it', async () => {
    const user = userEvent.setup();
    serveAccounts([PRIMARY, CHALLENGE]);
    await renderSignedIn('/');
    await waitFor(() => expect(balance()).toHaveTextContent('$10,000.00'));
    await waitFor(() => expect(FakeSocket.last).toBeDefined());
    const first = FakeSocket.last!;
    act(() => first.establish());
    expect(first.sent[0]).toEqual({ type: 'authenticate', token: tokenStore.read().access });

    await user.selectOptions(await screen.findByRole('combobox', { name: 'Account' }), 'Phase 1 · Challenge · $5,050.50');

    expect(window.location.search).toBe('?account=2');
    await waitFor(() => expect(balance()).toHaveTextContent('$5,000.00'));
    expect(accountsNamed('/api/trading/platform-data/').at(-1)).toBe('2');
    expect(switcher()).toHaveValue('2');
    expect(within(switcherBox()).getByText('Challenge', { selector: '.badge' })).toBeInTheDocument();
    expect(within(switcherBox()).getByText('$5,050.50')).toBeInTheDocument();
    // docs/accounts.md#the-trading-socket: the old socket closes normally, a new one serves account 2.
    expect(first.closedWith).toBe(1000);
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(2));
    const second = FakeSocket.last!;
    act(() => second.open());
    expect(second.sent[0]).toEqual({ type: 'authenticate', token: tokenStore.read().access, account: 2 });
  });

  it("leaves the account before's margin call behind", async () => {
    const user = userEvent.setup();
    serveAccounts([PRIMARY, CHALLENGE]);
    await renderSignedIn('/');
    await waitFor(() => expect(balance()).toHaveTextContent('$10,000.00'));
    await waitFor(() => expect(FakeSocket.last).toBeDefined());
    const first = FakeSocket.last!;
    act(() => first.establish());
    const marginCall = 'Margin level 95.50% is at or below 100%';
    act(() =>
      first.receive({ type: 'margin_call', data: { margin_level: 95.5, equity: 955, margin_used: 1000, message: marginCall } }),
    );
    expect(await screen.findByText(marginCall)).toBeInTheDocument();

    await user.selectOptions(switcher(), 'Phase 1 · Challenge · $5,050.50');
    await waitFor(() => expect(balance()).toHaveTextContent('$5,000.00'));
    expect(screen.queryByText(marginCall)).not.toBeInTheDocument();
  });

  it('keeps the account through the links, and Back returns to the account before', async () => {
    const user = userEvent.setup();
    serveAccounts([PRIMARY, CHALLENGE]);
    await renderSignedIn('/');
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Account' }), 'Phase 1 · Challenge · $5,050.50');
    await waitFor(() => expect(balance()).toHaveTextContent('$5,000.00'));

    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Orders' })).toHaveAttribute('href', '/orders?account=2');
    await user.click(within(nav).getByRole('link', { name: 'Orders' }));
    expect(window.location.pathname).toBe('/orders');
    expect(window.location.search).toBe('?account=2');
    await waitFor(() => expect(accountsNamed('/api/trading/orders/')).toContain('2'));
    expect(accountsNamed('/api/trading/orders/')).not.toContain(undefined);

    act(() => window.history.back());
    await waitFor(() => expect(window.location.pathname).toBe('/'));
    expect(window.location.search).toBe('?account=2');
    act(() => window.history.back());
    await waitFor(() => expect(window.location.search).toBe(''));
    await waitFor(() => expect(balance()).toHaveTextContent('$10,000.00'));
    expect(switcher()).toHaveValue('1');
    expect(within(nav).getByRole('link', { name: 'Orders' })).toHaveAttribute('href', '/orders');
  });

  it('choosing the primary account drops the parameter; Back returns to the other one', async () => {
    const user = userEvent.setup();
    serveAccounts([PRIMARY, CHALLENGE]);
    await renderSignedIn('/?account=2');
    await waitFor(() => expect(balance()).toHaveTextContent('$5,000.00'));
    await user.selectOptions(switcher(), 'Primary · $10,000.00');
    await waitFor(() => expect(window.location.search).toBe(''));
    await waitFor(() => expect(balance()).toHaveTextContent('$10,000.00'));
    expect(accountsNamed('/api/trading/platform-data/').at(-1)).toBeUndefined();
    act(() => window.history.back());
    await waitFor(() => expect(window.location.search).toBe('?account=2'));
    await waitFor(() => expect(balance()).toHaveTextContent('$5,000.00'));
  });

  it('opens on the account the address names (a reload, a shared link), and every call names it', async () => {
    serveAccounts([PRIMARY, CHALLENGE]);
    await renderSignedIn('/?account=2');
    await waitFor(() => expect(balance()).toHaveTextContent('$5,000.00'));
    expect(switcher()).toHaveValue('2');
    expect(accountsNamed('/api/trading/platform-data/')).toEqual(['2']);
  });

  it('puts the account back when a navigation leaves it out (a redirect)', async () => {
    serveAccounts([PRIMARY, CHALLENGE]);
    await renderSignedIn('/no/such/page?account=2');
    await waitFor(() => expect(window.location.pathname).toBe('/'));
    await waitFor(() => expect(window.location.search).toBe('?account=2'));
    await waitFor(() => expect(balance()).toHaveTextContent('$5,000.00'));
    expect(accountsNamed('/api/trading/platform-data/')).not.toContain(undefined);
  });

  it("falls back to the primary account for an id not the trader's, and drops it from the address", async () => {
    serveAccounts([PRIMARY, CHALLENGE]);
    await renderSignedIn('/?account=99');
    await waitFor(() => expect(window.location.search).toBe(''));
    await waitFor(() => expect(balance()).toHaveTextContent('$10,000.00'));
    expect(switcher()).toHaveValue('1');
    expect(server.calls.filter((c) => c.query.account === '99')).toEqual([]);
  });
});
