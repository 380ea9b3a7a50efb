import type { Drawing } from '@pipdesk/contract';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { IChartApi, ISeriesApi } from 'lightweight-charts';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer, type Reply } from '../../../test/fakeAuthServer';
import { renderWithProviders } from '../../../test/render';
import { ChartApiContext } from '../ChartContext';
import { DrawingLayer } from './DrawingLayer';
import type { DrawingsPrimitive } from './primitive';

// jsdom has no canvas: the chart is a stand-in with a plain scale (x = bar index × 10 px, y =
// (2 − price) × 1000 px), and the tests read what the layer asked of the server and what its
// primitive would paint.
const H = 3_600_000;
const T0 = Date.UTC(2026, 2, 2, 0, 0, 0);
const BARS = Array.from({ length: 50 }, (_, i) => ({ time: (T0 + i * H) / 1000 }));
const xOf = (time: number) => ((time - T0) / H) * 10;
const yOf = (price: number) => Math.round((2 - price) * 1000 * 1e6) / 1e6;

function fakeChart() {
  const container = document.createElement('div');
  document.body.append(container);
  const series = {
    data: () => BARS,
    priceToCoordinate: (price: number) => yOf(price),
    coordinateToPrice: (y: number) => 2 - y / 1000,
    options: () => ({ priceFormat: { type: 'price', precision: 5, minMove: 0.00001 } }),
    priceFormatter: () => ({ format: (p: number) => p.toFixed(5) }),
    attachPrimitive: vi.fn(),
    detachPrimitive: vi.fn(),
  };
  const chart = {
    timeScale: () => ({ logicalToCoordinate: (l: number) => l * 10, coordinateToLogical: (x: number) => x / 10 }),
    paneSize: () => ({ width: 800, height: 400 }),
    priceScale: () => ({ width: () => 0 }),
    options: () => ({ handleScroll: true, handleScale: true }),
    applyOptions: vi.fn(),
  };
  return {
    container,
    series,
    chart,
    value: {
      chart: chart as unknown as IChartApi,
      series: series as unknown as ISeriesApi<'Candlestick'>,
      symbol: 'EURUSD',
      timeframe: 'h1' as const,
      container,
      crosshairPrice: () => null,
    },
  };
}

function drawing(id: number, fields: Partial<Drawing>): Drawing {
  return {
    id,
    symbol: 'EURUSD',
    kind: 'hline',
    points: [{ time: T0, price: 1.9 }],
    text: null,
    color: null,
    created_at: '2026-03-02T00:00:00Z',
    updated_at: '2026-03-02T00:00:00Z',
    ...fields,
  };
}

const ok = (data: unknown): Reply => ({ status: 200, body: { success: true, data } });
const LIST = '/api/trading/drawings/';
let server: FakeAuthServer;
let stored: Drawing[];
let nextId: number;
let chart: ReturnType<typeof fakeChart>;

beforeEach(() => {
  server = new FakeAuthServer().install();
  server.signedInBefore();
  stored = [];
  nextId = 100;
  chart = fakeChart();
  server.on(LIST, (call) => {
    if (call.method === 'POST') {
      const made = drawing(nextId++, call.body as Partial<Drawing>);
      stored.push(made);
      return { status: 201, body: { success: true, data: made } };
    }
    return ok(stored);
  });
});

function serveDrawing(id: number) {
  server.on(`${LIST}${id}/`, (call) => {
    if (call.method === 'DELETE') {
      stored = stored.filter((d) => d.id !== id);
      return ok({ id });
    }
    const changed = { ...(stored.find((d) => d.id === id) as Drawing), ...(call.body as Partial<Drawing>) };
    stored = stored.map((d) => (d.id === id ? changed : d));
    return ok(changed);
  });
}

function renderLayer(props: Parameters<typeof DrawingLayer>[0] = {}) {
  return renderWithProviders(
    <ChartApiContext.Provider value={chart.value}>
      <DrawingLayer {...props} />
    </ChartApiContext.Provider>,
  );
}

/** A click on the price pane at (x, y): press and release at the same place. */
function clickChart(x: number, y: number) {
  fireEvent.pointerDown(chart.container, { clientX: x, clientY: y, button: 0 });
  fireEvent.pointerUp(window, { clientX: x, clientY: y, button: 0 });
}

function dragChart(from: [number, number], to: [number, number]) {
  fireEvent.pointerDown(chart.container, { clientX: from[0], clientY: from[1], button: 0 });
  fireEvent.pointerMove(window, { clientX: to[0], clientY: to[1] });
  fireEvent.pointerUp(window, { clientX: to[0], clientY: to[1], button: 0 });
}

const posted = () => server.callsTo(LIST).filter((c) => c.method === 'POST');

async function openList() {
  await userEvent.click(screen.getByRole('button', { name: /^Drawings/ }));
  return screen.findByRole('list', { name: 'Drawings on EURUSD' });
}

/** What the primitive would paint now: the text it writes on a recording canvas. */
function paintedTexts(): string[] {
  const primitive = chart.series.attachPrimitive.mock.calls.at(-1)?.[0] as DrawingsPrimitive;
  primitive.updateAllViews();
  const texts: string[] = [];
  const context = new Proxy({} as Record<string | symbol, unknown>, {
    get: (target, key) => (key === 'fillText' ? (t: string) => texts.push(t) : (target[key] ?? (() => {}))),
    set: (target, key, value) => {
      target[key] = value;
      return true;
    },
  });
  const target = { useMediaCoordinateSpace: (f: (s: unknown) => void) => f({ context, mediaSize: { width: 800, height: 400 } }) };
  primitive
    .paneViews()[0]
    ?.renderer()
    ?.draw(target as never);
  return texts;
}

describe('DrawingLayer', () => {
  it('loads the pair’s drawings and paints them with a series primitive (the fib labelled at its seven levels)', async () => {
    stored = [
      drawing(1, {
        kind: 'fib',
        points: [
          { time: T0, price: 1.7 },
          { time: T0 + 10 * H, price: 1.9 },
        ],
      }),
      drawing(2, { kind: 'text', points: [{ time: T0 + H, price: 1.8 }], text: 'Support' }),
    ];
    renderLayer();
    expect(await screen.findByRole('button', { name: 'Drawings (2)' })).toBeInTheDocument();
    const asked = server.fetch.mock.calls.map(([url]) => String(url)).filter((u) => u.includes(LIST));
    expect(asked).toEqual(['/api/trading/drawings/?symbol=EURUSD']);
    expect(chart.series.attachPrimitive).toHaveBeenCalledTimes(1);
    expect(paintedTexts()).toEqual([
      '0% 1.90000',
      '23.6% 1.85280',
      '38.2% 1.82360',
      '50% 1.80000',
      '61.8% 1.77640',
      '78.6% 1.74280',
      '100% 1.70000',
      'Support',
    ]);
  });

  it('places a horizontal line with one click and saves it', async () => {
    renderLayer();
    await userEvent.click(screen.getByRole('button', { name: 'Horizontal line' }));
    expect(screen.getByRole('button', { name: 'Horizontal line' })).toHaveAttribute('aria-pressed', 'true');
    clickChart(xOf(T0 + 3 * H), yOf(1.85));
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]?.body).toEqual({ symbol: 'EURUSD', kind: 'hline', points: [{ time: T0 + 3 * H, price: 1.85 }] });
    expect(await screen.findByRole('button', { name: 'Drawings (1)' })).toBeInTheDocument();
    // The tool is put down after the drawing is placed.
    expect(screen.getByRole('button', { name: 'Horizontal line' })).toHaveAttribute('aria-pressed', 'false');
  });

  it('places a trend line with two clicks', async () => {
    renderLayer();
    await userEvent.click(screen.getByRole('button', { name: 'Trend line' }));
    clickChart(xOf(T0 + 2 * H), yOf(1.8));
    expect(screen.getByRole('status')).toHaveTextContent('click the second point');
    expect(posted()).toHaveLength(0);
    clickChart(xOf(T0 + 12 * H), yOf(1.75));
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]?.body).toEqual({
      symbol: 'EURUSD',
      kind: 'trend',
      points: [
        { time: T0 + 2 * H, price: 1.8 },
        { time: T0 + 12 * H, price: 1.75 },
      ],
    });
  });

  it('asks for the text of a note and saves it at the clicked point', async () => {
    renderLayer();
    await userEvent.click(screen.getByRole('button', { name: 'Text note' }));
    clickChart(xOf(T0 + 5 * H), yOf(1.6));
    await userEvent.type(await screen.findByLabelText('Note text'), 'Breakout');
    await userEvent.click(screen.getByRole('button', { name: 'Save note' }));
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]?.body).toEqual({
      symbol: 'EURUSD',
      kind: 'text',
      points: [{ time: T0 + 5 * H, price: 1.6 }],
      text: 'Breakout',
    });
    expect(screen.queryByLabelText('Note text')).not.toBeInTheDocument();
  });

  it('shows the server’s message when the pair already has 500 drawings (409)', async () => {
    server.script(LIST, ok([]), {
      status: 409,
      body: { success: false, code: 'LIMIT_REACHED', error: 'You already keep 500 drawings on EURUSD: delete some to add more' },
    });
    renderLayer();
    await screen.findByRole('button', { name: 'Drawings' });
    await userEvent.click(screen.getByRole('button', { name: 'Horizontal line' }));
    clickChart(100, 100);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'You already keep 500 drawings on EURUSD: delete some to add more',
    );
  });

  it('selects a drawing clicked near and deletes it with the Delete key', async () => {
    stored = [
      drawing(7, {
        kind: 'trend',
        points: [
          { time: T0, price: 1.9 },
          { time: T0 + 20 * H, price: 1.7 },
        ],
      }),
    ];
    serveDrawing(7);
    renderLayer();
    await screen.findByRole('button', { name: 'Drawings (1)' });
    expect(screen.getByRole('button', { name: 'Delete drawing' })).toBeDisabled();
    // Halfway along the line, 3 px off it.
    clickChart(100, 203);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Delete drawing' })).toBeEnabled());
    fireEvent.keyDown(document.body, { key: 'Delete' });
    await waitFor(() => expect(server.callsTo(`${LIST}7/`).map((c) => c.method)).toEqual(['DELETE']));
    expect(await screen.findByRole('button', { name: 'Drawings' })).toBeInTheDocument();
  });

  it('leaves the chart alone when the click is on no drawing', async () => {
    stored = [drawing(7, { kind: 'hline', points: [{ time: T0, price: 1.9 }] })];
    renderLayer();
    await screen.findByRole('button', { name: 'Drawings (1)' });
    clickChart(100, 300);
    fireEvent.keyDown(document.body, { key: 'Delete' });
    expect(screen.getByRole('button', { name: 'Delete drawing' })).toBeDisabled();
    expect(server.calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('moves a dragged drawing and saves its points on release', async () => {
    stored = [
      drawing(8, {
        kind: 'rect',
        points: [
          { time: T0, price: 1.9 },
          { time: T0 + 10 * H, price: 1.8 },
        ],
      }),
    ];
    serveDrawing(8);
    renderLayer();
    await screen.findByRole('button', { name: 'Drawings (1)' });
    dragChart([50, 150], [70, 100]);
    await waitFor(() => expect(server.callsTo(`${LIST}8/`)).toHaveLength(1));
    expect(server.callsTo(`${LIST}8/`)[0]).toMatchObject({
      method: 'PATCH',
      body: {
        points: [
          { time: T0 + 2 * H, price: 1.95 },
          { time: T0 + 12 * H, price: 1.85 },
        ],
      },
    });
    // The chart may not pan while a drawing is dragged, and may again after.
    expect(chart.chart.applyOptions).toHaveBeenNthCalledWith(1, { handleScroll: false, handleScale: false });
    expect(chart.chart.applyOptions).toHaveBeenLastCalledWith({ handleScroll: true, handleScale: true });
  });

  it('lists the drawings for the keyboard: arrows nudge the focused one, Delete removes it', async () => {
    stored = [drawing(9, { kind: 'hline', points: [{ time: T0, price: 1.1 }] })];
    serveDrawing(9);
    renderLayer();
    await screen.findByRole('button', { name: 'Drawings (1)' });
    const list = await openList();
    const entry = within(list).getByRole('button', { name: 'Horizontal line 1.10000' });
    entry.focus();
    await userEvent.keyboard('{ArrowUp}');
    await waitFor(() => expect(server.callsTo(`${LIST}9/`)).toHaveLength(1));
    expect(server.callsTo(`${LIST}9/`)[0]).toMatchObject({ method: 'PATCH', body: { points: [{ time: T0, price: 1.1001 }] } });
    expect(await within(list).findByRole('button', { name: 'Horizontal line 1.10010' })).toHaveAttribute('aria-pressed', 'true');
    within(list).getByRole('button', { name: 'Horizontal line 1.10010' }).focus();
    await userEvent.keyboard('{Delete}');
    await waitFor(() => expect(server.callsTo(`${LIST}9/`).map((c) => c.method)).toEqual(['PATCH', 'DELETE']));
    expect(await screen.findByText('No drawings on EURUSD')).toBeInTheDocument();
  });

  it('puts a drawing back when the server refuses to delete it', async () => {
    stored = [drawing(10, { kind: 'hline', points: [{ time: T0, price: 1.2 }] })];
    server.on(`${LIST}10/`, () => ({ status: 500, body: { success: false, code: 'INTERNAL', error: 'Something broke' } }));
    renderLayer();
    await screen.findByRole('button', { name: 'Drawings (1)' });
    const list = await openList();
    await userEvent.click(within(list).getByRole('button', { name: 'Delete Horizontal line 1.20000' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Something broke');
    expect(within(list).getByRole('button', { name: 'Horizontal line 1.20000' })).toBeInTheDocument();
  });

  it('shows a student’s drawings read-only to their instructor: no toolbar, no editing', async () => {
    const STUDENT = '/api/academy/students/5/drawings/';
    server.on(STUDENT, () => ok([drawing(3, { kind: 'hline', points: [{ time: T0, price: 1.5 }] })]));
    renderLayer({ readOnly: true, studentId: 5 });
    await waitFor(() => expect(server.callsTo(STUDENT)).toHaveLength(1));
    expect(server.fetch.mock.calls.map(([url]) => String(url))).toContain(`${STUDENT}?symbol=EURUSD`);
    expect(server.callsTo(LIST)).toEqual([]);
    expect(screen.queryByRole('toolbar')).not.toBeInTheDocument();
    await act(async () => {});
    clickChart(100, yOf(1.5));
    fireEvent.keyDown(document.body, { key: 'Delete' });
    expect(server.calls.filter((c) => c.method !== 'GET')).toEqual([]);
    expect(chart.series.attachPrimitive).toHaveBeenCalledTimes(1);
  });
});
