import type { Alert } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { FakeAuthServer } from '../../test/fakeAuthServer';
import { allowSlowScreens, findNotice, makePlatformData, ok, renderTrading, startTradingServer } from '../trading/testSupport';
import { AlertsPage } from './AlertsPage';
import { makeAlert } from './alertTestSupport';

// The Alerts page (docs/screens.md#alerts) against a scripted server.

allowSlowScreens();

const LIST = '/api/trading/alerts/';
let server: FakeAuthServer;
let alerts: Alert[];

/** The query strings the page sent to the list. */
function listQueries(): string[] {
  return server.fetch.mock.calls
    .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
    .filter((url) => url.pathname === LIST)
    .map((url) => url.search);
}

beforeEach(() => {
  alerts = [
    makeAlert(),
    makeAlert({
      id: 5,
      symbol: 'USDJPY',
      condition: 'ask_below',
      price: 149.5,
      note: null,
      status: 'TRIGGERED',
      triggered_at: '2026-04-01T13:00:00.000Z',
      triggered_price: 149.498,
    }),
  ];
  server = startTradingServer(() => makePlatformData());
  server.on(LIST, (call) => {
    if (call.method === 'POST') {
      const body = call.body as Pick<Alert, 'symbol' | 'condition' | 'price'> & { note?: string };
      const created = makeAlert({ id: 9, ...body, note: body.note ?? null });
      alerts = [created, ...alerts];
      return { status: 201, body: { success: true, data: { alert: created } } };
    }
    return ok(alerts);
  });
  server.on('/api/trading/alerts/7/', (call) => {
    if (call.method === 'DELETE') {
      alerts = alerts.filter((a) => a.id !== 7);
      return ok({ id: 7 });
    }
    const changed = { ...alerts.find((a) => a.id === 7)!, ...(call.body as Partial<Alert>) };
    alerts = alerts.map((a) => (a.id === 7 ? changed : a));
    return ok({ alert: changed });
  });
});

const table = () => screen.getByRole('table', { name: 'Alerts' });
const row = (text: string) => within(table()).getByText(text).closest('tr') as HTMLElement;

describe('the Alerts page (docs/screens.md#alerts)', () => {
  it('lists the alerts with the condition in words, the price, the note and when and where one fired; filters by status', async () => {
    renderTrading(<AlertsPage />, { path: '/alerts' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Alerts' })).toBeInTheDocument();
    await within(await screen.findByRole('table', { name: 'Alerts' })).findByText('breakout');
    expect(row('breakout')).toHaveTextContent(/EURUSD.*Bid above.*1\.10000.*breakout.*Active/);
    const fired = row('USDJPY');
    expect(fired).toHaveTextContent(/Ask below.*149\.500.*Triggered/);
    expect(fired).toHaveTextContent(/at 149\.498/);
    // A fired alert can be deleted, not changed.
    expect(within(fired).queryByRole('button', { name: /^Edit/ })).toBeNull();
    expect(within(row('breakout')).getByRole('button', { name: 'Edit EURUSD bid above 1.10000' })).toBeInTheDocument();

    await userEvent.setup().selectOptions(screen.getByLabelText('Status'), 'TRIGGERED');
    await waitFor(() => expect(listQueries()).toContain('?status=TRIGGERED'));
    expect(listQueries()[0]).toBe('');
  });

  it('creates an alert from the form, checked before it is sent, and reloads the list', async () => {
    const user = userEvent.setup();
    renderTrading(<AlertsPage />, { path: '/alerts' });
    const form = await screen.findByRole('form', { name: 'New Alert' });
    await within(form).findByRole('option', { name: /^EURUSD/ });
    await user.click(within(form).getByRole('button', { name: 'Create Alert' }));
    expect(within(form).getByText('Enter a price')).toBeInTheDocument();
    expect(server.callsTo(LIST).filter((c) => c.method === 'POST')).toHaveLength(0);

    await user.selectOptions(within(form).getByLabelText('Currency Pair'), 'EURUSD');
    await user.selectOptions(within(form).getByLabelText('Condition'), 'bid_below');
    await user.type(within(form).getByLabelText('Price'), '1.095');
    await user.type(within(form).getByLabelText('Note'), 'retest');
    await user.click(within(form).getByRole('button', { name: 'Create Alert' }));

    await waitFor(() => expect(server.callsTo(LIST).filter((c) => c.method === 'POST')).toHaveLength(1));
    expect(server.callsTo(LIST).find((c) => c.method === 'POST')?.body).toEqual({
      symbol: 'EURUSD',
      condition: 'bid_below',
      price: 1.095,
      note: 'retest',
    });
    expect(await findNotice('EURUSD bid below 1.09500')).toHaveTextContent('Alert set');
    expect(await within(table()).findByText('retest')).toBeInTheDocument();
    expect(within(form).getByLabelText('Price')).toHaveValue('');
  });

  it('changes the price and note of an active alert, and deletes one', async () => {
    const user = userEvent.setup();
    renderTrading(<AlertsPage />, { path: '/alerts' });
    await within(await screen.findByRole('table', { name: 'Alerts' })).findByText('breakout');
    await user.click(within(row('breakout')).getByRole('button', { name: /^Edit/ }));
    const price = screen.getByRole('textbox', { name: 'Price, EURUSD bid above 1.10000' });
    await user.clear(price);
    await user.type(price, '1.102');
    await user.clear(screen.getByRole('textbox', { name: 'Note, EURUSD bid above 1.10000' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(server.callsTo('/api/trading/alerts/7/')).toHaveLength(1));
    expect(server.callsTo('/api/trading/alerts/7/')[0]).toMatchObject({ method: 'PATCH', body: { price: 1.102, note: null } });
    const changed = await within(table()).findByText('1.10200');
    expect(changed.closest('tr')).toHaveTextContent('Bid above');

    await user.click(within(changed.closest('tr') as HTMLElement).getByRole('button', { name: /^Delete/ }));
    await waitFor(() => expect(within(table()).queryByText('1.10200')).toBeNull());
    expect(server.callsTo('/api/trading/alerts/7/').at(-1)?.method).toBe('DELETE');
    expect(row('USDJPY')).toBeInTheDocument();
  });
});
