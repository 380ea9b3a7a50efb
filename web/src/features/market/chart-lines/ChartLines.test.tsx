import type { OrderDto, PositionDto } from '@pipdesk/contract';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../../test/fakeAuthServer';
import { renderWithProviders } from '../../../test/render';
import { makeOrder, makePosition } from '../../trading/testSupport';
import { PriceChart } from '../PriceChart';
import { EURUSD, FakeSocket, minuteCandles, serveMarket } from '../testMarket';

// jsdom has no canvas: lightweight-charts is replaced at its module boundary. The stand-in keeps
// each price line's options and maps prices to pixels on a fixed scale (1.2 at the top, 0.0001 a pixel).
const lwc = vi.hoisted(() => {
  const TOP = 1.2;
  const PER_PIXEL = 0.0001;
  type Options = { price: number; title: string; color: string; lineStyle: number };
  const priceLines: Array<{ options: Options; removed: boolean; applyOptions: (o: Partial<Options>) => void }> = [];
  const series = {
    setData: vi.fn(),
    update: vi.fn(),
    applyOptions: vi.fn(),
    createPriceLine: vi.fn((options: Options) => {
      const line = {
        options: { ...options },
        removed: false,
        applyOptions(o: Partial<Options>) {
          Object.assign(line.options, o);
        },
      };
      priceLines.push(line);
      return line;
    }),
    removePriceLine: vi.fn((line: { removed: boolean }) => {
      line.removed = true;
    }),
    priceToCoordinate: (price: number) => (TOP - price) / PER_PIXEL,
    coordinateToPrice: (y: number) => TOP - y * PER_PIXEL,
  };
  const volume = { setData: vi.fn(), update: vi.fn(), applyOptions: vi.fn() };
  const priceScale = { applyOptions: vi.fn(), width: () => 60 };
  const chart = {
    addSeries: vi.fn((definition: { type: string }) => (definition.type === 'Histogram' ? volume : series)),
    applyOptions: vi.fn(),
    remove: vi.fn(),
    timeScale: () => ({
      fitContent: vi.fn(),
      setVisibleLogicalRange: vi.fn(),
      subscribeVisibleLogicalRangeChange: vi.fn(),
      unsubscribeVisibleLogicalRangeChange: vi.fn(),
    }),
    subscribeCrosshairMove: vi.fn(),
    unsubscribeCrosshairMove: vi.fn(),
    removeSeries: vi.fn(),
    panes: () => [],
    removePane: vi.fn(),
    priceScale: () => priceScale,
  };
  /** The drawn price lines by their label, each at the price it shows now. */
  const shown = () => Object.fromEntries(priceLines.filter((l) => !l.removed).map((l) => [l.options.title, l.options.price]));
  const yOf = (price: number) => (TOP - price) / PER_PIXEL;
  return { series, chart, priceLines, shown, yOf, createChart: vi.fn(() => chart) };
});
// The drawings and trade tools over the chart have tests of their own.
vi.mock('../../chart/ChartLayers', () => ({ ChartLayers: () => null }));
vi.mock('lightweight-charts', () => ({
  createChart: lwc.createChart,
  CandlestickSeries: { type: 'Candlestick' },
  HistogramSeries: { type: 'Histogram' },
  LineSeries: { type: 'Line' },
  ColorType: { Solid: 'solid' },
  CrosshairMode: { Normal: 0 },
}));

const NOW = Date.UTC(2026, 2, 12, 10, 30, 20);
const UPDATED = '2026-04-01T12:00:00.000Z';
let server: FakeAuthServer;
let patches: Array<{ path: string; body: unknown }>;

const position = (overrides: Partial<PositionDto> = {}) =>
  makePosition({ id: 11, average_entry_price: 1.08734, stop_loss: 1.085, take_profit: 1.092, updated_at: UPDATED, ...overrides });
const buyLimit = (overrides: Partial<OrderDto> = {}) =>
  makeOrder({
    id: 21,
    order_type: 'LIMIT',
    status: 'PENDING',
    price: 1.08,
    filled_quantity: 0,
    average_fill_price: null,
    position_id: null,
    ...overrides,
  });

beforeEach(() => {
  vi.clearAllMocks();
  lwc.priceLines.length = 0;
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  FakeSocket.install();
  server = new FakeAuthServer().install();
  server.signedInBefore();
  serveMarket(server, { pairs: [EURUSD], charts: { EURUSD: { '1h': minuteCandles(60, NOW) } } });
  patches = [];
  server.on('/api/trading/positions/11/', (call) => {
    patches.push({ path: call.path, body: call.body });
    const body = call.body as { stop_loss?: number; take_profit?: number };
    return {
      status: 200,
      body: { success: true, data: { position: position({ ...body, updated_at: '2026-04-01T12:09:00.000Z' }) } },
    };
  });
  server.on('/api/trading/orders/21/', (call) => {
    patches.push({ path: call.path, body: call.body });
    return { status: 200, body: { success: true, data: { order: buyLimit(call.body as Partial<OrderDto>) } } };
  });
});

type ChartProps = { positions?: PositionDto[]; pendingOrders?: OrderDto[]; onLineChanged?: () => void };
let setChartProps: (props: ChartProps) => void = () => {};

/** The chart with props a test can change later, as the pair page's live data does. */
function Harness({ initial }: { initial: ChartProps }) {
  const [props, setProps] = useState(initial);
  setChartProps = setProps;
  return <PriceChart pair={EURUSD} stream={null} {...props} />;
}

function renderChart(props: ChartProps) {
  const view = renderWithProviders(<Harness initial={props} />);
  return { ...view, rerenderWith: (next: ChartProps) => act(() => setChartProps(next)) };
}

/** The drag handle over the chart of a line. */
async function handleOf(lineId: string): Promise<HTMLElement> {
  let handle: HTMLElement | null = null;
  await waitFor(() => {
    handle = document.querySelector<HTMLElement>(`.chart-line-handle[data-line-id="${lineId}"]`);
    expect(handle).not.toBeNull();
  });
  return handle as unknown as HTMLElement;
}

/** Drags a handle from `from` to `to` (prices), as a mouse would. */
function drag(handle: HTMLElement, from: number, to: number) {
  fireEvent.pointerDown(handle, { button: 0, clientY: lwc.yOf(from) });
  fireEvent.pointerMove(window, { clientY: (lwc.yOf(from) + lwc.yOf(to)) / 2 });
  fireEvent.pointerMove(window, { clientY: lwc.yOf(to) });
  fireEvent.pointerUp(window, { clientY: lwc.yOf(to) });
}

describe('chart lines (docs/screens.md#chart-lines)', () => {
  it('draws the entry, SL, TP and each pending order as labelled lines, and follows their changes', async () => {
    const { rerenderWith } = renderChart({ positions: [position()], pendingOrders: [buyLimit()] });
    await waitFor(() => expect(lwc.shown()).toEqual({ Entry: 1.08734, SL: 1.085, TP: 1.092, 'BUY LIMIT 0.10': 1.08 }));
    const colour = (title: string) => lwc.priceLines.find((l) => l.options.title === title)?.options.color;
    expect(new Set([colour('Entry'), colour('SL'), colour('TP'), colour('BUY LIMIT 0.10')]).size).toBe(4);

    // The list under the chart says the same, with a Move button for each line that can move.
    const list = screen.getByRole('list', { name: 'Chart lines' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Entry1.08734', 'SL1.08500Move', 'TP1.09200Move', 'BUY LIMIT 0.101.08000Move']);
    expect(
      within(list)
        .getAllByRole('button')
        .map((b) => b.getAttribute('aria-label')),
    ).toEqual(['Move stop loss', 'Move take profit', 'Move BUY LIMIT 0.10 order price']);

    // Live: a trailing stop moved the SL, the order was cancelled.
    rerenderWith({ positions: [position({ stop_loss: 1.0855 })], pendingOrders: [] });
    await waitFor(() => expect(lwc.shown()).toEqual({ Entry: 1.08734, SL: 1.0855, TP: 1.092 }));
    expect(lwc.series.removePriceLine).toHaveBeenCalledTimes(1);
  });

  it('dragging the SL follows the pointer, asks to confirm with the old and new price, and PATCHes the position', async () => {
    const onLineChanged = vi.fn();
    const { rerenderWith } = renderChart({ positions: [position()], onLineChanged });
    const handle = await handleOf('position:11:stop_loss');

    fireEvent.pointerDown(handle, { button: 0, clientY: lwc.yOf(1.085) });
    fireEvent.pointerMove(window, { clientY: lwc.yOf(1.0838) });
    // The line follows the pointer at the pair's digits before anything is sent.
    expect(lwc.shown().SL).toBe(1.0838);
    fireEvent.pointerUp(window, { clientY: lwc.yOf(1.0838) });

    const dialog = await screen.findByRole('dialog', { name: 'Move stop loss' });
    expect(dialog).toHaveAccessibleDescription('Current price 1.08500');
    expect(within(dialog).getByLabelText('New price')).toHaveValue('1.08380');
    expect(within(dialog).getByLabelText('New price')).toHaveFocus();
    expect(patches).toEqual([]);

    await userEvent.setup().click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(patches).toEqual([{ path: '/api/trading/positions/11/', body: { stop_loss: 1.0838 } }]);
    expect(onLineChanged).toHaveBeenCalledWith({ kind: 'position', position: expect.objectContaining({ stop_loss: 1.0838 }) });
    // Saved: the line stays at its new price while the data catches up (a P&L tick is not the new data)...
    expect(lwc.shown().SL).toBe(1.0838);
    rerenderWith({ positions: [position({ unrealized_pnl: -3.1 })], onLineChanged });
    expect(lwc.shown().SL).toBe(1.0838);
    // ...then the server's data rules again: here a trailing stop has already moved it on.
    rerenderWith({ positions: [position({ stop_loss: 1.0839, updated_at: '2026-04-01T12:09:01.000Z' })], onLineChanged });
    await waitFor(() => expect(lwc.shown().SL).toBe(1.0839));
  });

  it('Cancel puts the line back and sends nothing', async () => {
    const user = userEvent.setup();
    renderChart({ positions: [position()] });
    drag(await handleOf('position:11:take_profit'), 1.092, 1.095);
    const dialog = await screen.findByRole('dialog', { name: 'Move take profit' });
    expect(within(dialog).getByLabelText('New price')).toHaveValue('1.09500');
    expect(lwc.shown().TP).toBe(1.095);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    await waitFor(() => expect(lwc.shown().TP).toBe(1.092));
    expect(patches).toEqual([]);
  });

  it('a refused change shows the server message and the line returns', async () => {
    const user = userEvent.setup();
    server.script('/api/trading/positions/11/', {
      status: 400,
      body: { success: false, error: 'stop_loss must be below the bid (1.08712)', code: 'VALIDATION_ERROR' },
    });
    renderChart({ positions: [position()] });
    drag(await handleOf('position:11:stop_loss'), 1.085, 1.0875);
    const dialog = await screen.findByRole('dialog', { name: 'Move stop loss' });
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Stop loss not moved');
    expect(alert).toHaveTextContent('stop_loss must be below the bid (1.08712)');
    expect(screen.queryByRole('dialog')).toBeNull();
    await waitFor(() => expect(lwc.shown().SL).toBe(1.085));
  });

  it('a press without a drag, and the keyboard from the list, open the same confirmation', async () => {
    const user = userEvent.setup();
    renderChart({ positions: [position()], pendingOrders: [buyLimit()] });
    const handle = await handleOf('order:21:price');
    fireEvent.pointerDown(handle, { button: 0, clientY: lwc.yOf(1.08) });
    fireEvent.pointerUp(window, { clientY: lwc.yOf(1.08) + 1 });
    const byPointer = await screen.findByRole('dialog', { name: 'Move BUY LIMIT 0.10 order price' });
    await user.keyboard('{Escape}');
    expect(byPointer).not.toBeInTheDocument();

    // Keyboard only: Tab to the list's Move button, Enter, type the price, Enter.
    const move = screen.getByRole('button', { name: 'Move BUY LIMIT 0.10 order price' });
    move.focus();
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'Move BUY LIMIT 0.10 order price' });
    const input = within(dialog).getByLabelText('New price');
    expect(input).toHaveValue('1.08000');
    await user.clear(input);
    await user.type(input, '1.0791');
    // The line previews the typed price.
    expect(lwc.shown()['BUY LIMIT 0.10']).toBe(1.0791);
    await user.keyboard('{Enter}');
    await waitFor(() => expect(patches).toEqual([{ path: '/api/trading/orders/21/', body: { price: 1.0791 } }]));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(move).toHaveFocus();
  });

  it('checks the typed price before sending: the pair digits', async () => {
    const user = userEvent.setup();
    renderChart({ positions: [position()] });
    await user.click(await screen.findByRole('button', { name: 'Move take profit' }));
    const dialog = screen.getByRole('dialog', { name: 'Move take profit' });
    const input = within(dialog).getByLabelText('New price');
    await user.clear(input);
    await user.type(input, '1.093456');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(within(dialog).getByText('Use at most 5 decimals')).toBeVisible();
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(patches).toEqual([]);
  });

  it('Tab stays inside the dialog', async () => {
    const user = userEvent.setup();
    renderChart({ positions: [position()] });
    await user.click(await screen.findByRole('button', { name: 'Move stop loss' }));
    const dialog = screen.getByRole('dialog');
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    await user.tab();
    expect(within(dialog).getByRole('button', { name: 'Confirm' })).toHaveFocus();
    await user.tab();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.tab();
    expect(within(dialog).getByLabelText('New price')).toHaveFocus();
    await act(async () => {
      await user.tab({ shift: true });
    });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
  });

  it('an entry line and a triggered STOP_LIMIT trigger have no handle and no Move button', async () => {
    renderChart({
      positions: [position({ stop_loss: null, take_profit: null })],
      pendingOrders: [buyLimit({ order_type: 'STOP_LIMIT', price: 1.095, limit_price: 1.0955, triggered_at: UPDATED })],
    });
    await handleOf('order:21:limit_price');
    expect(document.querySelectorAll('.chart-line-handle')).toHaveLength(1);
    expect(screen.getAllByRole('button', { name: /^Move / }).map((b) => b.getAttribute('aria-label'))).toEqual([
      'Move BUY STOP LIMIT 0.10 order limit price',
    ]);
  });
});
