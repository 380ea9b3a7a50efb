import { describe, expect, it } from 'vitest';
import { type Paced, Pacer, type Pacing, realPacing } from './pacer.js';

/** A hand-driven pacing: time moves only when the test says so, and due timers fire in order. */
class ManualPacing implements Pacing {
  time = 0;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;
  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.time = next.at;
      next.fn();
    }
    this.time = end;
  }
}

interface Item extends Paced {
  name: string;
}
const item = (name: string): Item => ({ name, lastFlushAt: Number.NEGATIVE_INFINITY, queued: false });

describe('Pacer', () => {
  it('sends the first change at once and coalesces a burst into one flush per interval', () => {
    const pacing = new ManualPacing();
    const flushed: Array<[number, string]> = [];
    const pacer = new Pacer<Item>(
      500,
      (items) => {
        for (const i of items) flushed.push([pacing.time, i.name]);
      },
      pacing,
    );
    const a = item('a');
    pacer.request(a);
    pacing.advance(0);
    expect(flushed).toEqual([[0, 'a']]);
    // 20 changes over the next second (the last at 1000, just after that flush): one flush per 500 ms.
    for (let t = 0; t < 20; t++) {
      pacing.advance(50);
      pacer.request(a);
    }
    pacing.advance(1000);
    expect(flushed.map(([t]) => t)).toEqual([0, 500, 1000, 1500]);
  });

  it('never flushes one item twice within the interval, whatever the request pattern', () => {
    const pacing = new ManualPacing();
    const times: number[] = [];
    const pacer = new Pacer<Item>(250, () => times.push(pacing.time), pacing);
    const a = item('a');
    const seed = Date.now();
    console.log(`pacer random pattern seed ${seed}`);
    let state = seed;
    const random = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    for (let i = 0; i < 500; i++) {
      pacing.advance(Math.floor(random() * 120));
      if (random() < 0.7) pacer.request(a);
    }
    pacing.advance(1000);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(250);
    expect(times.length).toBeGreaterThan(10);
  });

  it('keeps items queued together in phase, on one timer, and skips cancelled ones', () => {
    const pacing = new ManualPacing();
    const batches: string[][] = [];
    const pacer = new Pacer<Item>(500, (items) => batches.push(items.map((i) => i.name)), pacing);
    const [a, b, c] = [item('a'), item('b'), item('c')];
    pacer.request(a);
    pacer.request(b);
    pacer.request(c);
    pacing.advance(0);
    pacing.advance(100);
    pacer.request(a);
    pacer.request(b);
    pacer.request(c);
    pacer.cancel(c);
    pacing.advance(1000);
    expect(batches).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b'],
    ]);
  });

  it('stops: nothing is flushed after stop()', () => {
    const pacing = new ManualPacing();
    let flushes = 0;
    const pacer = new Pacer<Item>(500, () => flushes++, pacing);
    pacer.request(item('a'));
    pacer.stop();
    pacing.advance(1000);
    expect(flushes).toBe(0);
  });

  it('on real time, runs pacers due at once in one turn, even when a millisecond passes between their requests', async () => {
    // A tick requests the P&L pacer, then the price pacer; their frames share one write only if
    // both flush before the turn's socket writes. On 1 ms timers, the later request's timer is
    // stamped a millisecond later and fired a turn later: the immediate queued by the first
    // flush then runs before the second.
    const flushed: string[] = [];
    let turnEnded = false;
    const first = new Pacer<Item>(
      500,
      () => {
        flushed.push('first');
        setImmediate(() => {
          turnEnded = true;
        });
      },
      realPacing,
    );
    const second = new Pacer<Item>(250, () => flushed.push(turnEnded ? 'second, a turn later' : 'second'), realPacing);
    // Requested from an immediate, so the turn ends right after the second request, as a tick's does.
    setImmediate(() => {
      first.request(item('a'));
      const from = performance.now();
      while (performance.now() - from < 2) {
        // Busy: the second request is made past a millisecond's edge.
      }
      second.request(item('b'));
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(flushed).toEqual(['first', 'second']);
  });
});
