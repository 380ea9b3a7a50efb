import { readFileSync } from 'node:fs';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test/render';
import { Alert, Button, DataTable, Field, formatDate, formatDateTime, Input, Num, ThemeToggle } from '.';

describe('design system', () => {
  it('Alert: an error is announced, and Dismiss hides it and tells the screen', async () => {
    const onDismiss = vi.fn();
    render(
      <Alert tone="error" dismissible onDismiss={onDismiss} actions={<Button>Try Again</Button>}>
        Failed to load trading data
      </Alert>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to load trading data');
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(onDismiss).toHaveBeenCalledTimes(1);
  });

  it('Field: labels its control and ties the hint and the error to it', () => {
    render(
      <Field label="Lot Size" hint="Minimum 0.01, Maximum 100" error="Please fill in all required fields">
        <Input type="number" />
      </Field>,
    );
    const input = screen.getByLabelText('Lot Size');
    expect(input).toHaveAccessibleDescription('Minimum 0.01, Maximum 100 Please fill in all required fields');
    expect(input).toBeInvalid();
  });

  it('Button: busy disables it and keeps the label the caller gives', () => {
    render(
      <Button variant="sell" busy>
        Closing...
      </Button>,
    );
    const button = screen.getByRole('button', { name: 'Closing...' });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('aria-busy', 'true');
  });

  it('DataTable: one row per item, figures right-aligned, and the empty text without rows', () => {
    const columns = [
      { key: 'pair', header: 'Pair', cell: (r: { pair: string; pnl: number }) => r.pair },
      { key: 'pnl', header: 'P&L', numeric: true, cell: (r: { pair: string; pnl: number }) => <Num signOf={r.pnl}>{r.pnl}</Num> },
    ];
    const { rerender } = render(<DataTable columns={columns} rows={[{ pair: 'EURUSD', pnl: -5 }]} rowKey={(r) => r.pair} />);
    expect(screen.getByRole('columnheader', { name: 'P&L' })).toHaveClass('num');
    expect(screen.getByText('-5')).toHaveClass('num--loss');
    rerender(<DataTable columns={columns} rows={[]} rowKey={(r) => r.pair} empty="No orders found." />);
    expect(screen.getByRole('cell', { name: 'No orders found.' })).toHaveAttribute('colspan', '2');
  });

  it('ThemeToggle: switches the theme of the whole document', async () => {
    renderWithProviders(<ThemeToggle />);
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
    await userEvent.click(screen.getByRole('button', { name: 'Switch to light theme' }));
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');
    expect(localStorage.getItem('pipdesk.theme')).toBe('light');
  });
});

/** A stand-in for the system's colour scheme: `matchMedia('(prefers-color-scheme: light)')` that can change. */
function fakeSystemScheme(initial: 'light' | 'dark') {
  const listeners = new Set<() => void>();
  const query = {
    matches: initial === 'light',
    media: '(prefers-color-scheme: light)',
    addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
  };
  vi.stubGlobal(
    'matchMedia',
    vi.fn((media: string) =>
      media === query.media ? query : { matches: false, media, addEventListener() {}, removeEventListener() {} },
    ),
  );
  return {
    set(scheme: 'light' | 'dark') {
      query.matches = scheme === 'light';
      for (const listener of listeners) listener();
    },
  };
}

describe('theme follows the system until the trader picks one', () => {
  it('starts in the system scheme and follows its changes', () => {
    const system = fakeSystemScheme('light');
    renderWithProviders(<ThemeToggle />);
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');
    act(() => system.set('dark'));
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
    act(() => system.set('light'));
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');
    expect(localStorage.getItem('pipdesk.theme')).toBeNull();
  });

  it('keeps the theme the trader picked, whatever the system says after', async () => {
    const system = fakeSystemScheme('light');
    renderWithProviders(<ThemeToggle />);
    await userEvent.click(screen.getByRole('button', { name: 'Switch to dark theme' }));
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
    act(() => system.set('light'));
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
  });

  it('a remembered pick wins over the system', () => {
    fakeSystemScheme('dark');
    localStorage.setItem('pipdesk.theme', 'light');
    renderWithProviders(<ThemeToggle />);
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');
  });

  it('the first paint (public/theme-init.js) already follows the system, and a pick', () => {
    const init = readFileSync(
      decodeURIComponent(new URL(import.meta.url).pathname).replace(/src\/components\/[^/]*$/, 'public/theme-init.js'),
      'utf8',
    );
    const run = () => new Function(init)();
    fakeSystemScheme('light');
    run();
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');
    fakeSystemScheme('dark');
    run();
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
    localStorage.setItem('pipdesk.theme', 'light');
    run();
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');
  });
});

describe('a table wider than the screen', () => {
  const widths = { scrollWidth: 0, clientWidth: 0 };
  const original = {
    scrollWidth: Object.getOwnPropertyDescriptor(Element.prototype, 'scrollWidth'),
    clientWidth: Object.getOwnPropertyDescriptor(Element.prototype, 'clientWidth'),
  };
  function layout(scrollWidth: number, clientWidth: number) {
    widths.scrollWidth = scrollWidth;
    widths.clientWidth = clientWidth;
    Object.defineProperty(Element.prototype, 'scrollWidth', { configurable: true, get: () => widths.scrollWidth });
    Object.defineProperty(Element.prototype, 'clientWidth', { configurable: true, get: () => widths.clientWidth });
  }
  afterEach(() => {
    for (const [name, descriptor] of Object.entries(original)) {
      if (descriptor) Object.defineProperty(Element.prototype, name, descriptor);
    }
  });
  const columns = [{ key: 'pair', header: 'Pair', cell: (r: { pair: string }) => r.pair }];
  const table = () => <DataTable columns={columns} rows={[{ pair: 'EURUSD' }]} rowKey={(r) => r.pair} caption="Recent orders" />;

  it('is reachable by keyboard and shows that more columns hide on the right, then on the left', async () => {
    layout(900, 390);
    render(table());
    const box = screen.getByRole('group', { name: 'Recent orders' });
    expect(box).toHaveAttribute('tabindex', '0');
    await userEvent.tab();
    expect(box).toHaveFocus();
    const frame = box.parentElement!;
    expect(frame).toHaveAttribute('data-more-right');
    expect(frame).not.toHaveAttribute('data-more-left');
    box.scrollLeft = 510;
    act(() => {
      box.dispatchEvent(new Event('scroll'));
    });
    expect(frame).toHaveAttribute('data-more-left');
    expect(frame).not.toHaveAttribute('data-more-right');
  });

  it('adds no tab stop and no hint when it fits', () => {
    layout(600, 600);
    render(table());
    expect(screen.queryByRole('group')).toBeNull();
    const box = screen.getByRole('table').parentElement!;
    expect(box).not.toHaveAttribute('tabindex');
    expect(box.parentElement).not.toHaveAttribute('data-more-right');
  });
});

describe('the one date style', () => {
  it('writes a day as "03 Nov 2025" and a moment as "03 Nov 2025, 18:28:59", in the trader\'s zone', () => {
    const moment = new Date(2025, 10, 3, 18, 28, 59);
    expect(formatDate(moment.toISOString())).toBe('03 Nov 2025');
    expect(formatDateTime(moment.toISOString())).toBe('03 Nov 2025, 18:28:59');
    expect(formatDate(new Date(2026, 8, 5).getTime())).toBe('05 Sep 2026');
    expect(formatDateTime(new Date(2026, 0, 1, 0, 0, 7).getTime())).toBe('01 Jan 2026, 00:00:07');
    expect(formatDate('soon')).toBe('');
    expect(formatDateTime('soon')).toBe('');
  });
});
