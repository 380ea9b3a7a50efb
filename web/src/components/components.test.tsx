import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test/render';
import { Alert, Button, DataTable, Field, Input, Num, ThemeToggle } from '.';

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
