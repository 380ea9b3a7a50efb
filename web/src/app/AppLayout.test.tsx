import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../test/fakeAuthServer';
import { renderApp } from '../test/render';

async function renderSignedIn(path: string) {
  const view = renderApp(path);
  await screen.findByText('Demo Trader');
  return view;
}

describe('layout and routes (docs/screens.md#routes)', () => {
  beforeEach(() => {
    new FakeAuthServer().install().signedInBefore();
  });

  // The screens' contents belong to their features; the shell guarantees each route lands on
  // its screen inside the layout (titles checked where docs/screens.md gives the screen's heading).
  it.each([
    ['/', 'Trading Dashboard'],
    ['/orders', 'Order History'],
  ])('shows %s with its title', async (path, title) => {
    await renderSignedIn(path);
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
  });

  it.each(['/news', '/pair/EURUSD'])('shows %s inside the layout', async (path) => {
    await renderSignedIn(path);
    expect(screen.getByRole('banner')).toBeInTheDocument();
    expect(screen.getByRole('main')).toBeInTheDocument();
    expect(window.location.pathname).toBe(path);
  });

  it('redirects any other path to /', async () => {
    await renderSignedIn('/no/such/page');
    expect(await screen.findByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/');
  });

  it('sends a signed-in trader away from /login', async () => {
    await renderSignedIn('/login');
    expect(await screen.findByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/');
  });

  it('has the product name linking to /, Welcome and the trader, Logout, and the connection indicator', async () => {
    await renderSignedIn('/orders');
    const header = screen.getByRole('banner');
    expect(within(header).getByRole('link', { name: 'Pipdesk' })).toHaveAttribute('href', '/');
    expect(within(header).getByText(/Welcome/)).toHaveTextContent('Welcome Demo Trader');
    expect(within(header).getByRole('button', { name: 'Logout' })).toBeInTheDocument();
    expect(within(header).getByText('Connecting...')).toBeInTheDocument();
  });

  it('highlights the current page in the navigation and follows the links', async () => {
    const user = userEvent.setup();
    await renderSignedIn('/orders');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    const current = () =>
      within(nav)
        .getAllByRole('link')
        .filter((l) => l.getAttribute('aria-current') === 'page');
    expect(
      within(nav)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual(['Dashboard', 'Orders', 'News', 'Performance', 'Charts', 'Alerts', 'Replay']);
    expect(current().map((l) => l.textContent)).toEqual(['Orders']);
    await user.click(within(nav).getByRole('link', { name: 'News' }));
    expect(window.location.pathname).toBe('/news');
    expect(current().map((l) => l.textContent)).toEqual(['News']);
    await user.click(within(nav).getByRole('link', { name: 'Dashboard' }));
    expect(current().map((l) => l.textContent)).toEqual(['Dashboard']);
  });

  it("adds the academy's links after the spec's, which stay first and in order (docs/screens.md#academy)", async () => {
    const server = new FakeAuthServer().install();
    server.signedInBefore();
    server.on('/api/academy/me/', () => ({
      status: 200,
      body: { success: true, data: { id: 1, role: 'admin', must_change_password: false, cohort_id: 7 } },
    }));
    await renderSignedIn('/');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    await within(nav).findByRole('link', { name: 'Academy' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual(['Dashboard', 'Orders', 'News', 'Performance', 'Charts', 'Alerts', 'Replay', 'Academy', 'Leaderboard']);
    expect(within(screen.getByRole('banner')).getByRole('link', { name: 'Change password' })).toHaveAttribute(
      'href',
      '/account/password',
    );
  });

  it('opens and closes the mobile menu, which closes itself after navigating', async () => {
    const user = userEvent.setup();
    await renderSignedIn('/');
    const toggle = screen.getByRole('button', { name: 'Open menu' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    const menu = document.getElementById(toggle.getAttribute('aria-controls') ?? '');
    expect(menu).not.toBeNull();
    expect(menu).not.toHaveAttribute('data-open');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(toggle).toHaveAccessibleName('Close menu');
    expect(menu).toHaveAttribute('data-open');
    await user.keyboard('{Escape}');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    await user.click(within(menu!).getByRole('link', { name: 'Orders' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Order History' })).toBeInTheDocument();
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
  });

  it('switches between the dark and the light theme and remembers the choice', async () => {
    const user = userEvent.setup();
    const view = await renderSignedIn('/');
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
    await user.click(screen.getByRole('button', { name: 'Switch to light theme' }));
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');
    view.unmount();
    await renderSignedIn('/');
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');
    await user.click(screen.getByRole('button', { name: 'Switch to dark theme' }));
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
    expect(localStorage.getItem('pipdesk.theme')).toBe('dark');
  });

  it('offers a keyboard skip link to the page content', async () => {
    const user = userEvent.setup();
    await renderSignedIn('/');
    await user.tab();
    expect(screen.getByRole('link', { name: 'Skip to content' })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('link', { name: 'Pipdesk' })).toHaveFocus();
  });
});
