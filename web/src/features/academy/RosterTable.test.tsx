import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test/render';
import { RosterTable } from './RosterTable';
import { makeRosterRow } from './testAcademy';

describe('the roster’s Evaluation column', () => {
  it('shows each student’s attempt (program, phase, status), and a dash without one', () => {
    renderWithProviders(
      <RosterTable
        rows={[
          makeRosterRow(5, 'Cleo Student', {
            attempt: { id: 3, program_id: 2, program_name: 'Two-step', phase_index: 1, status: 'failed' },
          }),
          makeRosterRow(6, 'Ada Student'),
        ]}
      />,
    );
    const table = screen.getByRole('table');
    expect(within(table).getByRole('columnheader', { name: /Evaluation/ })).toBeVisible();
    expect(within(table).getByRole('row', { name: /Cleo Student/ })).toHaveTextContent('Two-step · Phase 2 Failed');
    expect(within(table).getByRole('row', { name: /Ada Student/ })).not.toHaveTextContent('Two-step');
  });
});
