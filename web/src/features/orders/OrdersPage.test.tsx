import type { OrderDto } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useLocation } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { FakeSocket, makeOrder, makePlatformData, renderTrading, serveTrading } from '../trading/testSupport';
import { ordersApiQuery, paginationText, readFilters } from './filters';
import { OrdersPage } from './OrdersPage';

const ORDERS = '/api/trading/orders/';
let server: FakeAuthServer;
let allOrders: OrderDto[];

function ordersQueries(): URLSearchParams[] {
  return server.fetch.mock.calls
    .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
    .filter((url) => url.pathname === ORDERS)
    .map((url) => url.searchParams);
}

beforeEach(() => {
  FakeSocket.reset();
  server = new FakeAuthServer().install();
  server.signedInBefore();
  serveTrading(server, () => makePlatformData());
  allOrders = [];
  // Pages the orders as the server does: 20 a page, `page` from the query.
  server.on(ORDERS, () => {
    const q = ordersQueries().at(-1)!;
    const page = Number(q.get('page') ?? 1);
    const size = Number(q.get('page_size') ?? 20);
    return {
      status: 200,
      body: {
        count: allOrders.length,
        next: null,
        previous: null,
        results: allOrders.slice((page - 1) * size, page * size),
      },
    };
  });
});

function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{location.search}</output>;
}

function renderOrders(path = '/orders') {
  return renderTrading(
    <Routes>
      <Route
        path="/orders"
        element={
          <>
            <OrdersPage />
            <LocationProbe />
          </>
        }
      />
    </Routes>,
    { path },
  );
}

const search = () => new URLSearchParams(screen.getByTestId('location').textContent ?? '');
const optionsOf = (label: string) =>
  Array.from((screen.getByLabelText(label) as HTMLSelectElement).options).map((o) => o.textContent);
/** What pending orders and protection add after the eight base columns, which stay (docs/screens.md#orders-page-additions). */
const NEW_COLUMNS = ['Limit Price', 'SL / TP', 'Expiry'];
const manyOrders = (n: number) => Array.from({ length: n }, (_, i) => makeOrder({ id: i + 1 }));

describe('Order History (docs/screens.md#orders-page)', () => {
  it('Show Filters / Hide Filters toggles the filters, which have the spec options', async () => {
    const user = userEvent.setup();
    renderOrders();
    await screen.findByText('No orders found');
    expect(screen.queryByLabelText('Status')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Show Filters' }));
    expect(screen.getByRole('button', { name: 'Hide Filters' })).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByLabelText('Currency Pair')).toHaveAttribute('type', 'search');
    expect(optionsOf('Side')).toEqual(['All', 'Buy', 'Sell']);
    expect(optionsOf('Status')).toEqual(['All', 'Pending', 'Partially Filled', 'Filled', 'Cancelled', 'Rejected', 'Expired']);
    expect(optionsOf('Order Type')).toEqual(['All', 'Market', 'Limit', 'Stop', 'Stop Limit']);
    expect(screen.getByLabelText('From Date')).toHaveAttribute('type', 'date');
    expect(screen.getByLabelText('To Date')).toHaveAttribute('type', 'date');
    expect((screen.getByLabelText('Sort By') as HTMLSelectElement).value).toBe('-created_at');
    expect(optionsOf('Sort By')).toHaveLength(6);
    expect(screen.getByRole('button', { name: 'Clear Filters' })).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Hide Filters' }));
    expect(screen.queryByLabelText('Status')).toBeNull();
  });

  it('has the spec columns, the status with the rejection reason, and No orders found when empty', async () => {
    allOrders = [
      makeOrder({
        id: 1,
        status: 'REJECTED',
        quantity: 50,
        filled_quantity: 0,
        average_fill_price: null,
        rejection_reason: 'Insufficient free margin: this order needs 60,000.00 USD of margin and 10,000.00 USD is free',
      }),
      makeOrder({ id: 2, fx_pair_symbol: 'USDJPY', side: 'SELL', average_fill_price: 151.2345, reason: 'close' }),
    ];
    renderOrders();
    const table = await screen.findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Time', 'Pair', 'Type', 'Side', 'Quantity', 'Price', 'Fill Price', 'Status', ...NEW_COLUMNS]);
    const rows = within(table).getAllByRole('row');
    expect(rows[1]).toHaveTextContent('Rejected');
    expect(rows[1]).toHaveTextContent(
      'Insufficient free margin: this order needs 60,000.00 USD of margin and 10,000.00 USD is free',
    );
    expect(rows[1]).toHaveTextContent('50.00');
    expect(rows[2]).toHaveTextContent('USDJPY');
    expect(rows[2]).toHaveTextContent('Market · Close');
    expect(rows[2]).toHaveTextContent('151.235');
    expect(rows[2]).toHaveTextContent('Filled');
  });

  it('says No orders found when nothing matches', async () => {
    renderOrders('/orders?status=EXPIRED');
    expect(await screen.findByText('No orders found')).toBeVisible();
  });

  it('pages by 20: Page X of Y, Showing a to b of n orders, Previous and Next', async () => {
    const user = userEvent.setup();
    allOrders = manyOrders(45);
    renderOrders();
    expect(await screen.findByText('Page 1 of 3')).toBeVisible();
    expect(screen.getByText('Showing 1 to 20 of 45 orders')).toBeVisible();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    expect(ordersQueries().at(-1)?.get('page_size')).toBe('20');

    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Page 2 of 3')).toBeVisible();
    expect(screen.getByText('Showing 21 to 40 of 45 orders')).toBeVisible();
    expect(search().get('page')).toBe('2');
    expect(ordersQueries().at(-1)?.get('page')).toBe('2');

    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Showing 41 to 45 of 45 orders')).toBeVisible();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled());

    await user.click(screen.getByRole('button', { name: 'Previous' }));
    expect(await screen.findByText('Page 2 of 3')).toBeVisible();
  });

  it('puts every filter in the address and the call, back to page 1', async () => {
    const user = userEvent.setup();
    allOrders = manyOrders(45);
    renderOrders('/orders?page=2');
    await screen.findByText('Page 2 of 3');
    await user.click(screen.getByRole('button', { name: 'Show Filters' }));

    await user.selectOptions(screen.getByLabelText('Status'), 'Rejected');
    await waitFor(() => expect(search().get('status')).toBe('REJECTED'));
    expect(search().get('page')).toBeNull();
    await waitFor(() => expect(ordersQueries().at(-1)?.get('status')).toBe('REJECTED'));
    expect(ordersQueries().at(-1)?.get('page')).toBe('1');

    await user.selectOptions(screen.getByLabelText('Side'), 'Sell');
    await user.selectOptions(screen.getByLabelText('Order Type'), 'Stop Limit');
    await user.selectOptions(screen.getByLabelText('Sort By'), 'Quantity: high to low');
    await user.type(screen.getByLabelText('Currency Pair'), 'eur');
    await waitFor(() => expect(search().get('fx_pair')).toBe('eur'));
    const fromDate = screen.getByLabelText('From Date');
    await user.type(fromDate, '2026-04-01');
    await user.type(screen.getByLabelText('To Date'), '2026-04-02');

    await waitFor(() => expect(search().get('date_to')).toBe('2026-04-02'));
    expect(Object.fromEntries(search())).toEqual({
      status: 'REJECTED',
      side: 'SELL',
      order_type: 'STOP_LIMIT',
      ordering: '-quantity',
      fx_pair: 'eur',
      date_from: '2026-04-01',
      date_to: '2026-04-02',
    });
    await waitFor(() => expect(ordersQueries().at(-1)?.get('date_to')).not.toBeNull());
    const sent = ordersQueries().at(-1)!;
    expect(sent.get('side')).toBe('SELL');
    expect(sent.get('order_type')).toBe('STOP_LIMIT');
    expect(sent.get('ordering')).toBe('-quantity');
    expect(sent.get('fx_pair')).toBe('eur');
    // The trader's own calendar days, as exact instants.
    expect(sent.get('date_from')).toBe(new Date(2026, 3, 1).toISOString());
    expect(sent.get('date_to')).toBe(new Date(new Date(2026, 3, 3).getTime() - 1).toISOString());
  });

  it('reads the filters from a shared address, with the panel open, and Clear Filters empties them', async () => {
    const user = userEvent.setup();
    renderOrders('/orders?status=REJECTED&side=BUY&fx_pair=USD');
    await screen.findByText('No orders found');
    expect((screen.getByLabelText('Status') as HTMLSelectElement).value).toBe('REJECTED');
    expect((screen.getByLabelText('Side') as HTMLSelectElement).value).toBe('BUY');
    expect((screen.getByLabelText('Currency Pair') as HTMLInputElement).value).toBe('USD');
    const first = ordersQueries()[0]!;
    expect(first.get('status')).toBe('REJECTED');
    expect(first.get('side')).toBe('BUY');
    expect(first.get('fx_pair')).toBe('USD');

    await user.click(screen.getByRole('button', { name: 'Clear Filters' }));
    await waitFor(() => expect(search().toString()).toBe(''));
    expect((screen.getByLabelText('Status') as HTMLSelectElement).value).toBe('');
    expect((screen.getByLabelText('Currency Pair') as HTMLInputElement).value).toBe('');
    await waitFor(() => expect(ordersQueries().at(-1)?.get('status')).toBeNull());
  });

  it('says Failed to load orders, and Try Again loads them', async () => {
    const user = userEvent.setup();
    server.script(ORDERS, { status: 400, body: {} });
    allOrders = manyOrders(3);
    renderOrders();
    const box = await screen.findByRole('alert');
    expect(box).toHaveTextContent('Failed to load orders');
    await user.click(within(box).getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByText('Showing 1 to 3 of 3 orders')).toBeVisible();
  });
});

describe('filters in the address', () => {
  it('ignores what it cannot read', () => {
    const f = readFilters(new URLSearchParams('side=up&status=filled&order_type=x&date_from=2026-13-01&ordering=id'));
    expect(f).toEqual({
      fx_pair: '',
      side: '',
      status: 'FILLED',
      order_type: '',
      date_from: '',
      date_to: '',
      ordering: '-created_at',
    });
    expect(ordersApiQuery(f, 1)).toEqual({
      page: 1,
      page_size: 20,
      fx_pair: undefined,
      side: undefined,
      status: 'FILLED',
      order_type: undefined,
      date_from: undefined,
      date_to: undefined,
      ordering: undefined,
    });
  });

  it('pagination texts', () => {
    expect(paginationText(1, 0)).toEqual({ pages: 'Page 1 of 1', showing: 'Showing 0 to 0 of 0 orders' });
    expect(paginationText(1, 20)).toEqual({ pages: 'Page 1 of 1', showing: 'Showing 1 to 20 of 20 orders' });
    expect(paginationText(2, 21)).toEqual({ pages: 'Page 2 of 2', showing: 'Showing 21 to 21 of 21 orders' });
  });
});
