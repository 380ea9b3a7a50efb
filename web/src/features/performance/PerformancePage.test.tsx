import type { EquityPointDto, JournalEntryDto, PerformanceDto } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useLocation } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Reply } from '../../test/fakeAuthServer';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { FakeSocket, makePlatformData, ok, renderTrading, serveTrading } from '../trading/testSupport';
import { NO_CLOSED_TRADES_TEXT, PerformancePage } from './PerformancePage';
import { makeEntry, makePerformance, makePoints, noTradesPerformance } from './testPerformance';

// jsdom has no canvas: lightweight-charts is replaced at its module boundary, and the tests read
// what the screen handed to the equity area and the balance line.
const lwc = vi.hoisted(() => {
  const equity = { setData: vi.fn(), applyOptions: vi.fn() };
  const balance = { setData: vi.fn(), applyOptions: vi.fn() };
  const timeScale = { fitContent: vi.fn() };
  const chart = {
    addSeries: vi.fn((definition: { type: string }) => (definition.type === 'Area' ? equity : balance)),
    applyOptions: vi.fn(),
    remove: vi.fn(),
    timeScale: () => timeScale,
  };
  return { equity, balance, chart, createChart: vi.fn(() => chart) };
});
vi.mock('lightweight-charts', () => ({
  createChart: lwc.createChart,
  AreaSeries: { type: 'Area' },
  LineSeries: { type: 'Line' },
  LineStyle: { Dashed: 2 },
  ColorType: { Solid: 'solid' },
  CrosshairMode: { Normal: 0 },
}));

const PERFORMANCE = '/api/trading/performance/';
const CURVE = '/api/trading/equity-curve/';
const JOURNAL = '/api/trading/journal/';
const TAGS = '/api/trading/journal/tags/';

let server: FakeAuthServer;
let performance: PerformanceDto;
let curves: Record<string, EquityPointDto[]>;
let entries: JournalEntryDto[];
/** The trader's tags, most used first, as GET trading/journal/tags/ answers. */
let tagList: string[];
/** What PUT trading/journal/{id}/ answers; by default it stores the body as the server would. */
let putReply: ((id: number, body: Record<string, unknown>) => Reply) | null;

function queriesTo(path: string): URLSearchParams[] {
  return server.fetch.mock.calls
    .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
    .filter((url) => url.pathname === path)
    .map((url) => url.searchParams);
}

const puts = () => server.calls.filter((c) => c.method === 'PUT' && c.path.startsWith(JOURNAL));

beforeEach(() => {
  vi.clearAllMocks();
  FakeSocket.reset();
  server = new FakeAuthServer().install();
  server.signedInBefore();
  serveTrading(server, () => makePlatformData());
  performance = makePerformance();
  curves = {
    all: makePoints([
      ['2026-04-01T09:00:00.000Z', 10_000, 10_000],
      ['2026-04-01T10:00:00.000Z', 9_980.2, 10_000],
      ['2026-04-02T10:00:00.000Z', 10_125.5, 10_118.4],
    ]),
    '1w': makePoints([['2026-04-02T10:00:00.000Z', 10_125.5, 10_118.4]]),
    '1m': [],
  };
  entries = [];
  tagList = [];
  putReply = null;
  server.on(TAGS, () => ok(tagList));
  server.on(PERFORMANCE, () => ok(performance));
  server.on(CURVE, () => ok(curves[queriesTo(CURVE).at(-1)?.get('range') ?? 'all'] ?? []));
  server.on(JOURNAL, () => {
    const q = queriesTo(JOURNAL).at(-1)!;
    const page = Number(q.get('page') ?? 1);
    const matching = entries.filter(
      (e) =>
        (!q.get('symbol') || e.trade.fx_pair_symbol === q.get('symbol')) && (!q.get('tag') || e.tags.includes(q.get('tag')!)),
    );
    return {
      status: 200,
      body: { count: matching.length, next: null, previous: null, results: matching.slice((page - 1) * 20, page * 20) },
    };
  });
});

/** Serves PUT trading/journal/{id}/ for the entries in `entries` (the fake server routes by exact path). */
function servePuts() {
  for (const e of entries) {
    server.on(`${JOURNAL}${e.trade.id}/`, (call) => {
      const body = call.body as Record<string, unknown>;
      if (putReply) return putReply(e.trade.id, body);
      const stored = { ...e, ...(body as Partial<JournalEntryDto>) };
      entries = entries.map((x) => (x.trade.id === e.trade.id ? stored : x));
      return ok(stored);
    });
  }
}

function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{location.search}</output>;
}

function renderPage(path = '/performance') {
  servePuts();
  return renderTrading(
    <Routes>
      <Route
        path="/performance"
        element={
          <>
            <PerformancePage />
            <LocationProbe />
          </>
        }
      />
    </Routes>,
    { path },
  );
}

/** Typing whole notes on a loaded two-core machine takes longer than vitest's default 5 s. */
const TYPING = { timeout: 30_000 };

const search = () => new URLSearchParams(screen.getByTestId('location').textContent ?? '');
const statValue = (key: string) => screen.getByTestId(`perf-${key}`);
const cardOf = (key: string) => statValue(key).closest('.stat-card') as HTMLElement;
const entryCard = (id: number) => screen.getByTestId(`journal-entry-${id}`);

describe('the statistics (docs/screens.md#performance)', TYPING, () => {
  it('shows every figure of the answer, money and percentages as the app formats them', async () => {
    renderPage();
    expect(await screen.findByTestId('perf-net-pnl')).toHaveTextContent('+$118.40');
    expect(statValue('return')).toHaveTextContent('+1.26%');
    expect(statValue('win-rate')).toHaveTextContent('66.67%');
    expect(statValue('profit-factor')).toHaveTextContent('2.35');
    expect(statValue('expectancy')).toHaveTextContent('+$16.91');
    expect(statValue('max-drawdown')).toHaveTextContent('1.84%');
    expect(statValue('average-win')).toHaveTextContent('+$51.25');
    expect(statValue('average-loss')).toHaveTextContent('-$43.30');
    expect(statValue('largest-win')).toHaveTextContent('+$96.10');
    expect(statValue('largest-loss')).toHaveTextContent('-$52.42');
    expect(statValue('win-streak')).toHaveTextContent('3 trades');
    expect(statValue('loss-streak')).toHaveTextContent('1 trade');
    expect(cardOf('win-rate')).toHaveTextContent('4 won, 2 lost, 1 breakeven');
    expect(cardOf('return')).toHaveTextContent('Equity $10,125.50 from $10,000.00');
    expect(screen.getByText(/Since/)).toHaveTextContent('from a starting balance of $10,000.00');
    // Profit in the profit colour, loss in the loss colour.
    expect(statValue('net-pnl')).toHaveClass('num--profit');
    expect(statValue('largest-loss')).toHaveClass('num--loss');
  });

  it('shows the per-pair table', async () => {
    renderPage();
    const table = within(await screen.findByRole('region', { name: 'By Pair' })).getByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Pair', 'Closed Trades', 'Net P&L', 'Win Rate']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent)).toEqual(['EURUSD5+$140.6075.00%', 'USDJPY2-$22.2050.00%']);
  });

  it('shows — with the reason for a figure with nothing to measure', async () => {
    performance = makePerformance({
      losses: 0,
      wins: 0,
      breakevens: 2,
      closed_trades: 2,
      net_pnl: 0,
      expectancy: 0,
      win_rate: null,
      profit_factor: null,
      average_win: null,
      average_loss: null,
      largest_win: null,
      largest_loss: null,
      return_pct: null,
      by_pair: [{ symbol: 'EURUSD', trades: 2, net_pnl: 0, win_rate: null }],
    });
    renderPage();
    await screen.findByTestId('perf-win-rate');
    for (const key of ['win-rate', 'profit-factor', 'average-win', 'average-loss', 'largest-win', 'largest-loss', 'return'])
      expect(statValue(key)).toHaveTextContent(/^—$/);
    expect(cardOf('win-rate')).toHaveTextContent('No winning or losing trade yet (breakevens do not count)');
    expect(cardOf('profit-factor')).toHaveTextContent('No losing trade yet, so there is no loss to divide by');
    expect(cardOf('average-win')).toHaveTextContent('No winning trade yet');
    expect(cardOf('largest-loss')).toHaveTextContent('No losing trade yet');
    expect(cardOf('return')).toHaveTextContent('No positive starting balance to measure a return against');
    // Figures that exist still show.
    expect(statValue('net-pnl')).toHaveTextContent('$0.00');
    expect(statValue('expectancy')).toHaveTextContent('$0.00');
    const pairRow = within(screen.getByRole('region', { name: 'By Pair' })).getAllByRole('row')[1]!;
    expect(pairRow).toHaveTextContent('—');
  });

  it('teaches instead of showing empty figures before the first closed trade', async () => {
    performance = noTradesPerformance();
    curves.all = [];
    renderPage();
    const empty = await screen.findByRole('region', { name: 'Statistics' });
    expect(empty).toHaveTextContent(NO_CLOSED_TRADES_TEXT);
    expect(within(empty).getByRole('link', { name: 'Go to the Dashboard' })).toHaveAttribute('href', '/');
    expect(screen.queryByTestId('perf-net-pnl')).toBeNull();
    expect(screen.queryByRole('region', { name: 'By Pair' })).toBeNull();
    const journal = screen.getByRole('region', { name: 'Trade Journal' });
    expect(
      await within(journal).findByText('No closed trades yet: every trade you close appears here, to note, tag and rate.'),
    ).toBeVisible();
    expect(within(journal).queryByRole('navigation', { name: 'Journal pages' })).toBeNull();
    expect(await screen.findByText('No equity history yet: the curve starts with your first trade.')).toBeVisible();
  });

  it('says Failed to load performance, and Try Again loads it', async () => {
    const user = userEvent.setup();
    server.script(PERFORMANCE, { status: 400, body: {} });
    renderPage();
    const box = await screen.findByText('Failed to load performance');
    expect(screen.queryByTestId('perf-net-pnl')).toBeNull();
    await user.click(within(box.closest('.alert') as HTMLElement).getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByTestId('perf-net-pnl')).toHaveTextContent('+$118.40');
    expect(screen.queryByText('Failed to load performance')).toBeNull();
  });

  it('shows Loading performance... while the statistics load', async () => {
    let answer!: (r: Reply) => void;
    server.script(PERFORMANCE, () => new Promise<Reply>((resolve) => (answer = resolve)));
    renderPage();
    expect(await screen.findByText('Loading performance...')).toBeVisible();
    answer(ok(performance));
    expect(await screen.findByTestId('perf-net-pnl')).toBeVisible();
    expect(screen.queryByText('Loading performance...')).toBeNull();
  });
});

describe('the equity curve', TYPING, () => {
  const lastEquity = () => lwc.equity.setData.mock.calls.at(-1)?.[0] as Array<{ time: number; value: number }>;
  const lastBalance = () => lwc.balance.setData.mock.calls.at(-1)?.[0] as Array<{ time: number; value: number }>;

  it('draws equity and balance for All, says the curve in words, and follows 1W and 1M', async () => {
    const user = userEvent.setup();
    renderPage();
    const box = screen.getByTestId('equity-curve');
    await waitFor(() => expect(box).toHaveAttribute('data-points', '3'));
    await waitFor(() => expect(lastEquity()).toHaveLength(3));
    expect(lastEquity().map((p) => p.value)).toEqual([10_000, 9_980.2, 10_125.5]);
    expect(lastBalance().map((p) => p.value)).toEqual([10_000, 10_000, 10_118.4]);
    expect(lastEquity()[0]!.time).toBe(Date.parse('2026-04-01T09:00:00.000Z') / 1000);
    expect(queriesTo(CURVE).at(-1)?.get('range')).toBe('all');
    expect(screen.getByRole('button', { name: 'All' })).toHaveAttribute('aria-pressed', 'true');
    // The canvas says nothing to a screen reader: the figure's caption says the curve in words.
    expect(box.tagName).toBe('FIGURE');
    expect(box.querySelector('figcaption')).toHaveTextContent(
      'Equity curve from 01 Apr 2026 to 02 Apr 2026, 3 points: equity $10,000.00 at the start and $10,125.50 at the end, highest $10,125.50, lowest $9,980.20; balance $10,118.40.',
    );

    await user.click(screen.getByRole('button', { name: '1W' }));
    await waitFor(() => expect(box).toHaveAttribute('data-points', '1'));
    expect(queriesTo(CURVE).at(-1)?.get('range')).toBe('1w');
    expect(screen.getByRole('button', { name: '1W' })).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() => expect(lastEquity()).toHaveLength(1));

    await user.click(screen.getByRole('button', { name: '1M' }));
    expect(await screen.findByText('No equity history yet: the curve starts with your first trade.')).toBeVisible();
    expect(queriesTo(CURVE).at(-1)?.get('range')).toBe('1m');
  });

  it('says Failed to load the equity curve, and Try Again loads it', async () => {
    const user = userEvent.setup();
    server.script(CURVE, { status: 400, body: {} });
    renderPage();
    const card = await screen.findByRole('region', { name: 'Equity Curve' });
    const box = await within(card).findByRole('alert');
    expect(box).toHaveTextContent('Failed to load the equity curve');
    await user.click(within(card).getByRole('button', { name: 'Try Again' }));
    await waitFor(() => expect(screen.getByTestId('equity-curve')).toHaveAttribute('data-points', '3'));
    expect(within(card).queryByRole('alert')).toBeNull();
  });

  it('hands the chart one point per second, the last of each, as the chart requires rising times', async () => {
    curves.all = makePoints([
      ['2026-04-01T09:00:00.100Z', 10_000, 10_000],
      ['2026-04-01T09:00:00.900Z', 10_010, 10_000],
      ['2026-04-01T09:00:01.000Z', 10_020, 10_020],
    ]);
    renderPage();
    await waitFor(() => expect(lastEquity()).toHaveLength(2));
    expect(lastEquity().map((p) => p.value)).toEqual([10_010, 10_020]);
    expect(lastBalance().map((p) => p.value)).toEqual([10_000, 10_020]);
  });
});

describe('the journal', TYPING, () => {
  it('lists closed trades with their trade, note, tags, rating and read-only instructor comments', async () => {
    entries = [
      makeEntry(
        7,
        {
          note: 'Faded the spike',
          tags: ['news', 'fade'],
          rating: 4,
          comments: [
            {
              id: 1,
              author: { id: 9, full_name: 'Ines Instructor' },
              text: 'Good exit.',
              created_at: '2026-04-03T08:00:00.000Z',
            },
          ],
        },
        { realized_pnl: -12.5, side: 'BUY', fx_pair_symbol: 'USDJPY', price: 151.2345 },
      ),
      makeEntry(6),
    ];
    renderPage();
    const first = await waitFor(() => entryCard(7));
    expect(within(first).getByRole('heading', { level: 3 })).toHaveTextContent('BUY 0.10 USDJPY at 151.235');
    expect(first).toHaveTextContent('-$12.50');
    expect(within(first).getByLabelText('Note')).toHaveValue('Faded the spike');
    expect(within(first).getByRole('button', { name: 'Remove tag news' })).toBeInTheDocument();
    expect(within(first).getByRole('radio', { name: '4 stars' })).toBeChecked();
    const comments = within(first).getByRole('region', { name: 'Instructor comments' });
    expect(comments).toHaveTextContent('Ines Instructor');
    expect(comments).toHaveTextContent('Good exit.');
    expect(within(comments).queryByRole('textbox')).toBeNull();
    expect(within(entryCard(6)).queryByRole('region', { name: 'Instructor comments' })).toBeNull();
    expect(screen.getByText('Showing 1 to 2 of 2 trades')).toBeVisible();
  });

  it('saves the note, the tags and the stars with one PUT of the whole entry, and shows Saved', async () => {
    const user = userEvent.setup();
    entries = [makeEntry(7, { note: 'old', tags: ['news'], rating: 2 })];
    renderPage();
    const card = await waitFor(() => entryCard(7));
    const save = within(card).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    const note = within(card).getByLabelText('Note');
    await user.clear(note);
    await user.type(note, 'Waited for the retest');
    await user.type(within(card).getByLabelText('Tags'), ' breakout {Enter}');
    await user.click(within(card).getByRole('button', { name: 'Remove tag news' }));
    await user.click(within(card).getByRole('radio', { name: '5 stars' }));
    await user.click(save);

    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0]!.path).toBe('/api/trading/journal/7/');
    expect(puts()[0]!.body).toEqual({ note: 'Waited for the retest', tags: ['breakout'], rating: 5 });
    expect(await within(card).findByText('Saved')).toBeVisible();
    expect(within(card).getByRole('button', { name: 'Save' })).toBeDisabled();
    // A new tag changes the trader's list: it is asked for again.
    await waitFor(() => expect(server.callsTo(TAGS)).toHaveLength(2));

    // Clearing the stars sends rating null.
    await user.click(within(card).getByRole('button', { name: 'Clear rating' }));
    expect(within(card).queryByText('Saved')).toBeNull();
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts()).toHaveLength(2));
    expect(puts()[1]!.body).toEqual({ note: 'Waited for the retest', tags: ['breakout'], rating: null });
    await waitFor(() => expect(within(card).getByRole('radio', { name: '5 stars' })).not.toBeChecked());
  });

  it('shows the server 400 message and keeps the trader’s text', async () => {
    const user = userEvent.setup();
    entries = [makeEntry(7)];
    putReply = () => ({
      status: 400,
      body: { success: false, error: 'tags.0: must be at most 32 characters', code: 'VALIDATION_ERROR' },
    });
    renderPage();
    const card = await waitFor(() => entryCard(7));
    await user.type(within(card).getByLabelText('Note'), 'My plan');
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent('tags.0: must be at most 32 characters');
    expect(within(card).getByLabelText('Note')).toHaveValue('My plan');
    expect(within(card).getByRole('button', { name: 'Save' })).toBeEnabled();
    // Editing again clears the failure.
    await user.type(within(card).getByLabelText('Note'), '!');
    expect(within(card).queryByRole('alert')).toBeNull();
  });

  it("suggests the trader's own tags, most used first, and adds one with a click or the keyboard", async () => {
    const user = userEvent.setup();
    tagList = ['revenge trade', 'breakout'];
    // A tag on a page seen but not in the list yet (saved since it was loaded) is offered after the list's.
    entries = [makeEntry(9, { tags: ['breakout', 'London open'] }), makeEntry(8, { tags: ['revenge trade'] }), makeEntry(7)];
    renderPage();
    const card = await waitFor(() => entryCard(7));
    const field = within(card).getByLabelText('Tags');
    const suggestions = () =>
      within(card)
        .queryAllByRole('button', { name: /^Add tag / })
        .map((b) => b.textContent);
    await waitFor(() => expect(suggestions()).toEqual(['+ revenge trade', '+ breakout', '+ London open']));
    await user.type(field, 'o');
    expect(suggestions()).toEqual(['+ breakout', '+ London open']);
    await user.clear(field);
    await user.type(field, 'r');
    // Tags starting with what was typed come first, then those containing it.
    expect(suggestions()).toEqual(['+ revenge trade', '+ breakout']);
    await user.clear(field);
    await user.type(field, 'o');
    await user.type(field, 'pe');
    expect(suggestions()).toEqual(['+ London open']);
    await user.click(within(card).getByRole('button', { name: 'Add tag London open' }));
    expect(within(card).getByRole('button', { name: 'Remove tag London open' })).toBeInTheDocument();
    expect(field).toHaveValue('');
    // A chosen tag is not suggested again; a suggestion is a button the keyboard reaches.
    expect(suggestions()).toEqual(['+ revenge trade', '+ breakout']);
    within(card).getByRole('button', { name: 'Add tag breakout' }).focus();
    await user.keyboard('{Enter}');
    expect(within(card).getByRole('button', { name: 'Remove tag breakout' })).toBeInTheDocument();
    within(card).getByRole('button', { name: 'Remove tag London open' }).focus();
    await user.keyboard(' ');
    expect(within(card).queryByRole('button', { name: 'Remove tag London open' })).toBeNull();
  });

  it('stops at 10 tags', async () => {
    const user = userEvent.setup();
    entries = [makeEntry(7, { tags: Array.from({ length: 9 }, (_, i) => `t${i}`) })];
    renderPage();
    const card = await waitFor(() => entryCard(7));
    const field = within(card).getByLabelText('Tags');
    await user.type(field, 'tenth{Enter}');
    expect(within(card).getAllByRole('button', { name: /^Remove tag / })).toHaveLength(10);
    expect(field).toBeDisabled();
    expect(card).toHaveTextContent('10 tags at most: remove one to add another.');
  });

  it('puts the pair and tag filters in the address and the call, back to page 1', async () => {
    const user = userEvent.setup();
    entries = Array.from({ length: 25 }, (_, i) =>
      makeEntry(i + 1, { tags: i % 2 ? ['breakout'] : [] }, { fx_pair_symbol: i < 20 ? 'EURUSD' : 'USDJPY' }),
    );
    renderPage('/performance?page=2');
    expect(await screen.findByText('Page 2 of 2')).toBeVisible();
    expect(queriesTo(JOURNAL).at(-1)?.get('page')).toBe('2');

    await user.selectOptions(screen.getByLabelText('Pair'), 'USDJPY');
    await waitFor(() => expect(search().get('symbol')).toBe('USDJPY'));
    expect(search().get('page')).toBeNull();
    await waitFor(() => expect(queriesTo(JOURNAL).at(-1)?.get('symbol')).toBe('USDJPY'));
    expect(queriesTo(JOURNAL).at(-1)?.get('page')).toBe('1');
    expect(await screen.findByText('Showing 1 to 5 of 5 trades')).toBeVisible();

    await user.type(screen.getByLabelText('Tag'), 'breakout');
    await waitFor(() => expect(search().get('tag')).toBe('breakout'));
    await waitFor(() => expect(queriesTo(JOURNAL).at(-1)?.get('tag')).toBe('breakout'));
    expect(queriesTo(JOURNAL).at(-1)?.get('symbol')).toBe('USDJPY');
    expect(await screen.findByText('Showing 1 to 2 of 2 trades')).toBeVisible();
    // Only the journal call's own parameters go out (it refuses any other).
    expect([...queriesTo(JOURNAL).at(-1)!.keys()].sort()).toEqual(['page', 'symbol', 'tag']);

    await user.click(screen.getByRole('button', { name: 'Clear Filters' }));
    await waitFor(() => expect(search().toString()).toBe(''));
    await waitFor(() => expect(queriesTo(JOURNAL).at(-1)?.get('tag')).toBeNull());
    expect(await screen.findByText('Showing 1 to 20 of 25 trades')).toBeVisible();
  });

  it('reads the filters from a shared address and says when nothing matches', async () => {
    entries = [makeEntry(1)];
    renderPage('/performance?symbol=gbpusd&tag=news');
    expect(await screen.findByText('No closed trades match these filters.')).toBeVisible();
    expect(screen.getByLabelText('Pair')).toHaveValue('GBPUSD');
    expect(screen.getByLabelText('Tag')).toHaveValue('news');
    const first = queriesTo(JOURNAL)[0]!;
    expect(first.get('symbol')).toBe('GBPUSD');
    expect(first.get('tag')).toBe('news');
  });

  it('says Failed to load the journal, and Try Again loads it', async () => {
    const user = userEvent.setup();
    entries = [makeEntry(1)];
    server.script(JOURNAL, { status: 400, body: {} });
    renderPage();
    const region = await screen.findByRole('region', { name: 'Trade Journal' });
    const box = await within(region).findByRole('alert');
    expect(box).toHaveTextContent('Failed to load the journal');
    await user.click(within(box).getByRole('button', { name: 'Try Again' }));
    expect(await within(region).findByText('Showing 1 to 1 of 1 trade')).toBeVisible();
  });
});
