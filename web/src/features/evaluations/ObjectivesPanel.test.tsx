import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Objectives } from './ObjectivesPanel';
import { meterFixture } from './testSupport';

describe('the Objectives panel', () => {
  it('shows every rule with its room left and the countdowns of an active phase', () => {
    const now = Date.parse('2026-11-02T20:00:00.000Z');
    render(<Objectives meter={meterFixture()} liveEquity={9790} now={now} />);
    const panel = screen.getByRole('region', { name: 'Objectives' });
    expect(within(panel).getByRole('heading', { name: 'Objectives: Challenge' })).toBeVisible();
    const daily = within(panel).getByRole('row', { name: /Daily loss limit/ });
    expect(daily).toHaveTextContent('$9,700.00');
    expect(daily).toHaveTextContent('$90.00');
    expect(daily).toHaveTextContent('Close to the limit');
    expect(panel).toHaveTextContent('The day ends in 3 h 00 min; the phase ends in 29 days 3 h. Progress to the target: 20%.');
  });

  it('shows the failure snapshot once failed, and no countdown', () => {
    const meter = meterFixture({
      status: 'failed',
      failure: { rule: 'daily_loss', at: '2026-11-02T15:00:00.000Z', equity: 9700, floor: 9700, balance: 10200 },
    });
    render(<Objectives meter={meter} liveEquity={9650} now={Date.parse('2026-11-02T20:00:00.000Z')} />);
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Failed: Daily loss limit');
    expect(alert).toHaveTextContent('the equity was $9,700.00, at or below the floor of $9,700.00; balance $10,200.00');
    expect(screen.queryByText(/The day ends in/)).toBeNull();
  });
});
