import type { IChartApi } from 'lightweight-charts';
import { describe, expect, it, vi } from 'vitest';
import { FUTURE_BARS, FutureBars, LiveSeries, MAX_PENDING } from './liveSeries';

vi.mock('lightweight-charts', () => ({ LineSeries: { type: 'Line' } }));

type Point = { time: number; value?: number };

function fakeChart() {
  const added: Array<{ options: Record<string, unknown>; setData: ReturnType<typeof vi.fn>; update: ReturnType<typeof vi.fn> }> =
    [];
  const chart = {
    addSeries: vi.fn((_definition: unknown, options: Record<string, unknown>) => {
      const series = { options, setData: vi.fn(), update: vi.fn(), applyOptions: vi.fn() };
      added.push(series);
      return series;
    }),
    removeSeries: vi.fn(),
  };
  return { chart: chart as unknown as IChartApi, added };
}

const line = (time: number, value = time): Point => ({ time, value });

describe('LiveSeries', () => {
  it('keeps new points in the tail (an update each) and leaves the history alone until the tail is full', () => {
    const { chart, added } = fakeChart();
    const live = new LiveSeries<'Line'>(chart, { type: 'Line' } as never, {}, { join: true });
    const [history, tail] = added;
    live.setData([line(1), line(2), line(3)] as never);
    expect(history?.setData).toHaveBeenLastCalledWith([line(1), line(2)]);
    expect(tail?.setData).toHaveBeenLastCalledWith([line(2), line(3)]);

    live.update(line(3, 30) as never);
    live.update(line(4) as never);
    live.update(line(5) as never);
    expect(history?.update).not.toHaveBeenCalled();
    expect(tail?.setData).toHaveBeenCalledTimes(1);
    expect(tail?.update.mock.calls.map(([p]) => p)).toEqual([line(3, 30), line(4), line(5)]);
    expect(live.recent()).toEqual([line(3, 30), line(4), line(5)]);
    expect(live.newest()).toEqual(line(5));

    // Full: the tail's points go into the history, the tail starts again from the newest.
    for (let t = 6; t < 3 + MAX_PENDING; t++) live.update(line(t) as never);
    expect(live.recent()).toHaveLength(MAX_PENDING);
    live.update(line(3 + MAX_PENDING) as never);
    expect(history?.update).not.toHaveBeenCalled();
    const moved = history?.setData.mock.calls.at(-1)?.[0] as Point[];
    expect(moved).toHaveLength(2 + MAX_PENDING);
    expect(moved.slice(0, 4)).toEqual([line(1), line(2), line(3, 30), line(4)]);
    expect(moved.at(-1)).toEqual(line(2 + MAX_PENDING));
    expect(tail?.setData).toHaveBeenLastCalledWith([line(2 + MAX_PENDING), line(3 + MAX_PENDING)]);
    expect(live.recent()).toEqual([line(3 + MAX_PENDING)]);
  });
});

describe('FutureBars', () => {
  it('keeps the next bar times as whitespace, seeding again only when they run out or are skipped', () => {
    const { chart, added } = fakeChart();
    const future = new FutureBars(chart);
    const [series] = added;
    expect(series?.options.visible).toBe(false);

    future.reset([100, 160, 220]);
    const seeded = series?.setData.mock.calls.at(-1)?.[0] as Point[];
    expect(seeded).toHaveLength(FUTURE_BARS + 1);
    expect(seeded[0]).toEqual({ time: 220 });
    expect(seeded.at(-1)).toEqual({ time: 220 + FUTURE_BARS * 60 });
    expect(seeded.every((p) => p.value === undefined)).toBe(true);

    future.advance(280);
    future.advance(340);
    expect(series?.setData).toHaveBeenCalledTimes(1);

    // A bar time skipped (a gap): seeded again from the new one, the skipped whitespace gone.
    future.advance(520);
    expect(series?.setData).toHaveBeenCalledTimes(2);
    expect(series?.setData.mock.calls.at(-1)?.[0]?.[0]).toEqual({ time: 520 });

    // The last one kept used up: seeded again.
    for (let i = 1; i < FUTURE_BARS; i++) future.advance(520 + i * 60);
    expect(series?.setData).toHaveBeenCalledTimes(2);
    future.advance(520 + FUTURE_BARS * 60);
    expect(series?.setData).toHaveBeenCalledTimes(3);
  });
});
