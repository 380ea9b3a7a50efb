import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { makePerformance, noTradesPerformance } from '../performance/testPerformance';
import { allowSlowScreens, ok } from '../trading/testSupport';
import { StudentReplays } from './StudentReplays';
import { makeReplay } from './testReplay';

allowSlowScreens();

let server: FakeAuthServer;

beforeEach(() => {
  server = new FakeAuthServer().install();
  server.signedInBefore();
});

describe("a student's replay sessions, for their instructors (docs/screens.md#replay)", () => {
  it('lists each session with its statistics, read-only', async () => {
    server.on('/api/academy/students/8/replays/', () =>
      ok({
        replays: [
          { replay: makeReplay({ id: 2, symbols: ['GBPUSD', 'USDJPY'], status: 'finished' }), performance: makePerformance() },
          { replay: makeReplay({ id: 1 }), performance: noTradesPerformance() },
        ],
      }),
    );
    renderWithProviders(<StudentReplays studentId={8} />);
    const card = screen.getByRole('region', { name: 'Replay sessions' });
    await waitFor(() => expect(within(card).getAllByRole('row')).toHaveLength(3));
    const [, first, second] = within(card).getAllByRole('row');
    expect(first).toHaveTextContent('GBPUSD, USDJPY');
    expect(first).toHaveTextContent('Finished');
    expect(first).toHaveTextContent('+$118.40');
    expect(first).toHaveTextContent('66.67%');
    expect(second).toHaveTextContent('EURUSD');
    expect(second).toHaveTextContent('$0.00');
    expect(within(card).queryByRole('button')).not.toBeInTheDocument();
    expect(within(card).queryByRole('link')).not.toBeInTheDocument();
  });

  it('says so when the student has none', async () => {
    server.on('/api/academy/students/8/replays/', () => ok({ replays: [] }));
    renderWithProviders(<StudentReplays studentId={8} />);
    expect(await screen.findByText('No session yet')).toBeVisible();
  });
});
