import type { OrderDto } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { formatDateTime } from '../trading';
import { makeOrder, makePlatformData, renderTrading, serveTrading } from '../trading/testSupport';
import { EXPORT_FAILED, exportApiQuery, exportUrl } from './exportCsv';
import { ordersApiQuery, readFilters } from './filters';
import { expiryText, protectionText } from './OrderHistoryTable';
import { OrdersPage } from './OrdersPage';

// The Orders page's additions for pending orders and protection (docs/screens.md#orders-page-additions):
// the new types, statuses and reasons in the table, its new columns, and Export CSV.

const ORDERS = '/api/trading/orders/';
const EXPORT = '/api/trading/orders/export.csv';
const CSV = 'id,created_at,symbol\r\n7,2026-04-01T12:00:00.000Z,EURUSD\r\n';
let server: FakeAuthServer;
let listed: OrderDto[];
/** The export calls the page made: their query and the token they carried. */
let exportCalls: Array<{ query: URLSearchParams; authorization: string | null }>;
let exportReply: () => Response;
let saved: Array<{ href: string; download: string }>;
let blobs: Blob[];

beforeEach(() => {
  server = new FakeAuthServer().install();
  server.signedInBefore();
  serveTrading(server, () => makePlatformData());
  listed = [];
  server.on(ORDERS, () => ({ status: 200, body: { count: listed.length, next: null, previous: null, results: listed } }));
  exportCalls = [];
  exportReply = () => new Response(CSV, { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8' } });
  // The export answers CSV, not the JSON the fake server speaks: it is answered here.
  const json = server.fetch.getMockImplementation()!;
  server.fetch.mockImplementation(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://pipdesk.test');
    if (url.pathname !== EXPORT) return json(input, init);
    exportCalls.push({ query: url.searchParams, authorization: new Headers(init.headers).get('authorization') });
    return exportReply();
  });
  saved = [];
  blobs = [];
  URL.createObjectURL = vi.fn((blob: Blob) => {
    blobs.push(blob);
    return `blob:orders-${blobs.length}`;
  });
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ href: this.getAttribute('href') ?? '', download: this.download });
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function renderOrders(path = '/orders') {
  return renderTrading(
    <Routes>
      <Route path="/orders" element={<OrdersPage />} />
    </Routes>,
    { path },
  );
}

const EXPIRES = '2026-04-03T18:30:00.000Z';

describe('Order History: pending orders and protection', () => {
  it('shows the new types, statuses and reasons, and the limit price, SL / TP and expiry columns', async () => {
    listed = [
      makeOrder({
        id: 1,
        order_type: 'STOP_LIMIT',
        status: 'PENDING',
        price: 1.0912,
        limit_price: 1.0915,
        filled_quantity: 0,
        average_fill_price: null,
        position_id: null,
        time_in_force: 'GTD',
        expires_at: EXPIRES,
        stop_loss: 1.085,
        take_profit: 1.1,
        trailing_stop_pips: 20,
      }),
      makeOrder({ id: 2, order_type: 'LIMIT', status: 'CANCELLED', price: 1.08, filled_quantity: 0, average_fill_price: null }),
      makeOrder({ id: 3, order_type: 'STOP', status: 'EXPIRED', price: 1.095, time_in_force: 'GTD', expires_at: EXPIRES }),
      makeOrder({ id: 4, side: 'SELL', reason: 'stop_loss', average_fill_price: 1.085 }),
      makeOrder({ id: 5, side: 'SELL', reason: 'take_profit' }),
      makeOrder({ id: 6, side: 'SELL', reason: 'trailing_stop' }),
      makeOrder({ id: 7, order_type: 'LIMIT', reason: 'pending', price: 1.08 }),
      makeOrder({ id: 8, fx_pair_symbol: 'USDJPY', order_type: 'LIMIT', status: 'PENDING', price: 149.5, take_profit: 151.25 }),
    ];
    renderOrders();
    const table = await screen.findByRole('table', { name: 'Orders' });
    const rows = within(table).getAllByRole('row').slice(1);
    const cells = (row: HTMLElement) =>
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent);

    // Type, Status, then Limit Price, SL / TP and Expiry at the end.
    expect(cells(rows[0]!).slice(2)).toEqual([
      'Stop Limit',
      'BUY',
      '0.10',
      '1.09120',
      '—',
      'Pending',
      '1.09150',
      '1.08500 / 1.10000 · trailing 20 pips',
      formatDateTime(EXPIRES),
    ]);
    expect(cells(rows[1]!)[2]).toBe('Limit');
    expect(cells(rows[1]!)[7]).toBe('Cancelled');
    expect(cells(rows[1]!).slice(8)).toEqual(['—', '—', 'GTC']);
    expect(cells(rows[2]!)[2]).toBe('Stop');
    expect(cells(rows[2]!)[7]).toBe('Expired');
    expect(cells(rows[3]!)[2]).toBe('Market · Stop loss');
    expect(cells(rows[4]!)[2]).toBe('Market · Take profit');
    expect(cells(rows[5]!)[2]).toBe('Market · Trailing stop');
    expect(cells(rows[6]!)[2]).toBe('Limit · Pending');
    // A JPY pair's prices with 3 decimals, a side without protection as a dash.
    expect(cells(rows[7]!).slice(5, 6)).toEqual(['149.500']);
    expect(cells(rows[7]!)[9]).toBe('— / 151.250');
  });

  it('says a STOP_LIMIT whose stop triggered is still pending', async () => {
    listed = [
      makeOrder({ order_type: 'STOP_LIMIT', status: 'PENDING', price: 1.09, limit_price: 1.0905, triggered_at: EXPIRES }),
    ];
    renderOrders();
    const table = await screen.findByRole('table', { name: 'Orders' });
    expect(within(table).getAllByRole('row')[1]).toHaveTextContent('PendingStop triggered');
  });

  it('filters by the new statuses and types', async () => {
    const user = userEvent.setup();
    renderOrders();
    await screen.findByText('No orders found');
    await user.click(screen.getByRole('button', { name: 'Show Filters' }));
    await user.selectOptions(screen.getByLabelText('Status'), 'Expired');
    await user.selectOptions(screen.getByLabelText('Order Type'), 'Stop');
    await waitFor(() => {
      const last = server.fetch.mock.calls
        .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
        .filter((u) => u.pathname === ORDERS)
        .at(-1)!;
      expect(last.searchParams.get('status')).toBe('EXPIRED');
      expect(last.searchParams.get('order_type')).toBe('STOP');
    });
  });
});

describe('Export CSV (docs/orders.md#csv-export)', () => {
  it('downloads the filtered history with the filters of the list, with the trader token, as orders.csv', async () => {
    const user = userEvent.setup();
    renderOrders('/orders?status=FILLED&side=SELL&order_type=LIMIT&fx_pair=EUR&date_from=2026-04-01&ordering=-quantity&page=2');
    await screen.findByText('No orders found');
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));

    await waitFor(() => expect(saved).toHaveLength(1));
    expect(exportCalls).toHaveLength(1);
    const { query, authorization } = exportCalls[0]!;
    const list = server.fetch.mock.calls
      .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
      .filter((u) => u.pathname === ORDERS)
      .at(-1)!.searchParams;
    // The same filters as the list's call, without its paging: the export is every match.
    const withoutPaging = new URLSearchParams(list);
    withoutPaging.delete('page');
    withoutPaging.delete('page_size');
    expect(Object.fromEntries(query)).toEqual(Object.fromEntries(withoutPaging));
    expect(query.get('status')).toBe('FILLED');
    expect(query.get('side')).toBe('SELL');
    expect(query.get('order_type')).toBe('LIMIT');
    expect(query.get('fx_pair')).toBe('EUR');
    expect(query.get('ordering')).toBe('-quantity');
    expect(query.get('date_from')).toBe(new Date(2026, 3, 1).toISOString());
    expect(query.has('page')).toBe(false);
    expect(authorization).toBe(`Bearer ${localStorage.getItem('pipdesk.accessToken')}`);

    expect(saved[0]).toEqual({ href: 'blob:orders-1', download: 'orders.csv' });
    expect(await blobs[0]!.text()).toBe(CSV);
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeEnabled();
  });

  it('shows the server message when the export is refused, and nothing is saved', async () => {
    const user = userEvent.setup();
    exportReply = () =>
      new Response(JSON.stringify({ success: false, error: 'date_from must be a date', code: 'VALIDATION_ERROR' }), {
        status: 400,
        headers: { 'content-type': 'application/json' },
      });
    renderOrders();
    await screen.findByText('No orders found');
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('date_from must be a date');
    expect(saved).toEqual([]);

    exportReply = () => new Response('', { status: 500 });
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent(EXPORT_FAILED));
  });

  it('renews an expired session once and retries', async () => {
    const user = userEvent.setup();
    let first = true;
    exportReply = () => {
      if (first) {
        first = false;
        return new Response(JSON.stringify({ success: false, error: 'Invalid or expired token' }), { status: 401 });
      }
      return new Response(CSV, { status: 200 });
    };
    const before = localStorage.getItem('pipdesk.accessToken');
    renderOrders();
    await screen.findByText('No orders found');
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(exportCalls.map((c) => c.authorization)).toEqual([
      `Bearer ${before}`,
      `Bearer ${localStorage.getItem('pipdesk.accessToken')}`,
    ]);
    expect(exportCalls[1]!.authorization).not.toBe(exportCalls[0]!.authorization);
  });
});

describe('export and table helpers', () => {
  it('the export query is the list query without page and page_size', () => {
    const filters = readFilters(new URLSearchParams('status=pending&order_type=stop_limit&date_to=2026-04-02'));
    const { page: _p, page_size: _s, ...rest } = ordersApiQuery(filters, 3);
    expect(exportApiQuery(filters)).toEqual(rest);
    expect(exportUrl(filters)).toBe(
      `/api/trading/orders/export.csv?status=PENDING&order_type=STOP_LIMIT&date_to=${encodeURIComponent(rest.date_to as string)}`,
    );
    expect(exportUrl(readFilters(new URLSearchParams()))).toBe('/api/trading/orders/export.csv');
  });

  it('protection and expiry texts', () => {
    const none = { stop_loss: null, take_profit: null, trailing_stop_pips: null };
    expect(protectionText(none, 5)).toBe('—');
    expect(protectionText({ ...none, stop_loss: 1.2 }, 5)).toBe('1.20000 / —');
    expect(protectionText({ ...none, trailing_stop_pips: 15 }, 3)).toBe('— / — · trailing 15 pips');
    expect(expiryText({ time_in_force: 'GTC', expires_at: null })).toBe('GTC');
    expect(expiryText({ time_in_force: 'GTD', expires_at: EXPIRES })).toBe(formatDateTime(EXPIRES));
  });
});
