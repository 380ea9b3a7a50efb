import type { ProgramDto } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { ok } from '../trading/testSupport';
import { AttemptBoard, ProgramsCard } from './ProgramsCard';
import { meterFixture } from './testSupport';

const PROGRAMS = '/api/academy/cohorts/7/programs/';
let server: FakeAuthServer;
let programs: ProgramDto[];

beforeEach(() => {
  server = new FakeAuthServer().install();
  server.signedInBefore();
  programs = [];
  server.on(PROGRAMS, (call) => {
    if (call.method !== 'POST') return ok(programs);
    const body = call.body as ProgramDto;
    const created = { ...body, id: 11, cohort_id: 7, status: 'active', created_at: '', updated_at: '' } as ProgramDto;
    programs = [created];
    return { status: 201, body: { success: true, data: created } };
  });
});

describe('the Programs card', () => {
  it('lets an instructor create a two-phase program: the form sends every rule, as numbers', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ProgramsCard cohortId={7} canTeach />);
    const card = await screen.findByRole('region', { name: 'Programs' });
    await waitFor(() => expect(within(card).getByText('No program yet.')).toBeVisible());
    await user.click(within(card).getByRole('button', { name: 'New program' }));
    const form = within(card).getByRole('form', { name: 'New program' });
    await user.type(within(form).getByLabelText('Name'), 'Two-step');
    await user.click(within(form).getByRole('button', { name: 'Add phase' }));
    const second = within(form).getByRole('group', { name: 'Phase 2' });
    await user.selectOptions(within(second).getByLabelText('Maximum loss counted from'), 'trailing_eod');
    await user.type(within(second).getByLabelText('Maximum lots per order'), '2.5');
    await user.click(within(form).getByRole('button', { name: 'Create program' }));
    await waitFor(() => expect(server.calls.filter((c) => c.method === 'POST' && c.path === PROGRAMS)).toHaveLength(1));
    const sent = server.calls.find((c) => c.method === 'POST' && c.path === PROGRAMS)!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ name: 'Two-step', initial_balance: 10000, leverage: 30, time_zone: 'Europe/Prague' });
    expect(sent.phases).toMatchObject([
      { name: 'Challenge', profit_target_pct: 10, max_daily_loss_pct: 5, max_loss_pct: 10, min_trading_days: 4, max_days: 30 },
      { name: 'Verification', profit_target_pct: 5, max_loss_mode: 'trailing_eod', max_lots: 2.5 },
    ]);
    expect(await within(card).findByText('Two-step')).toBeVisible();
  });

  it('names the field a rule breaks, and sends nothing', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ProgramsCard cohortId={7} canTeach />);
    const card = await screen.findByRole('region', { name: 'Programs' });
    await user.click(await within(card).findByRole('button', { name: 'New program' }));
    const form = within(card).getByRole('form', { name: 'New program' });
    await user.type(within(form).getByLabelText('Name'), 'Bad');
    const daily = within(form).getByLabelText('Daily loss limit (%)');
    await user.clear(daily);
    await user.type(daily, '12');
    await user.click(within(form).getByRole('button', { name: 'Create program' }));
    expect(await within(form).findByText('must not be more than max_loss_pct')).toBeVisible();
    expect(server.calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});

describe('the board of attempts', () => {
  it('shows each student’s phase, status and room left, and the rule a failed attempt broke', () => {
    const failed = meterFixture({
      status: 'failed',
      failure: { rule: 'max_loss', at: '2026-11-03T10:00:00.000Z', equity: 9000, floor: 9000, balance: 9100 },
      equity: 9000,
      max_loss_left: 0,
    });
    renderWithProviders(<AttemptBoard meters={[meterFixture(), failed]} />);
    const rows = within(screen.getByRole('table', { name: 'Attempts' })).getAllByRole('row');
    expect(rows[1]).toHaveTextContent('1: Challenge');
    expect(rows[1]).toHaveTextContent('Active');
    expect(rows[1]).toHaveTextContent('$450.00');
    expect(rows[2]).toHaveTextContent('Failed Maximum loss limit');
    expect(rows[2]).toHaveTextContent('$0.00');
  });
});
