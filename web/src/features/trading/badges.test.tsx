import { ORDER_STATUSES } from '@pipdesk/contract';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { STATUS_OPTIONS } from '../orders/filters';
import { OrderStatusBadge } from './badges';

describe('one status vocabulary', () => {
  it('a status badge says the status in the words of the Orders page filter (docs/screens.md#orders-page)', () => {
    for (const status of ORDER_STATUSES) {
      const { unmount } = render(<OrderStatusBadge status={status} />);
      const option = STATUS_OPTIONS.find((o) => o.value === status);
      expect(option, status).toBeDefined();
      expect(screen.getByText(option!.label)).toBeVisible();
      unmount();
    }
  });

  it('reads "Partially Filled", as the spec writes it, not "PARTIALLY FILLED"', () => {
    render(<OrderStatusBadge status="PARTIALLY_FILLED" />);
    expect(screen.getByText('Partially Filled')).toBeVisible();
    expect(screen.queryByText('PARTIALLY FILLED')).toBeNull();
  });
});
