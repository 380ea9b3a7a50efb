import { describe, expect, it } from 'vitest';
import { type Paced, Pacer, type Pacing, realPacing, unpaced } from './pacer.js';

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
const item = (name: string): Item => ({ name, ...unpaced() });

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

  describe('two a window (burst 2: at most 2 flushes in any 1,000 ms, the P&L stream)', () => {
    /** A burst-2 pacer over 500 ms intervals whose flush times of item `a` are returned. */
    const burstPacer = () => {
      const pacing = new ManualPacing();
      const times: number[] = [];
      const pacer = new Pacer<Item>(500, () => times.push(pacing.time), pacing, 2);
      return { pacing, times, pacer, a: item('a') };
    };
    /** The most flushes found in any window of `ms` (each window starting at a flush). */
    const mostInAnyWindow = (times: number[], ms: number) =>
      Math.max(0, ...times.map((from) => times.filter((t) => t >= from && t < from + ms).length));

    it('sends a second change at once, and holds a third until the first has left the window', () => {
      const { pacing, times, pacer, a } = burstPacer();
      // Twice in one turn (one tick moving two of the account's positions) is one change.
      pacer.request(a);
      pacer.request(a);
      pacing.advance(83);
      pacer.request(a);
      pacing.advance(100);
      pacer.request(a);
      pacing.advance(2000);
      expect(times).toEqual([0, 83, 1000]);
    });

    it('sends every change at once when an account is moved by two pairs ticking once a second each', () => {
      const { pacing, times, pacer, a } = burstPacer();
      const requested: number[] = [];
      // Pair one at 0 (± 3 ms of jitter), pair two 83 ms later, for 20 seconds.
      const jitter = [0, 3, -3, 2, -1];
      for (let second = 0; second < 20; second++) {
        for (const offset of [0, 83]) {
          const at = second * 1000 + offset + jitter[(second + offset) % jitter.length]!;
          pacing.advance(at - pacing.time);
          requested.push(at);
          pacer.request(a);
        }
      }
      pacing.advance(1000);
      // Only a change that comes before the window allows waits, and then only by the jitter.
      expect(times.length).toBe(requested.length);
      for (const [i, at] of times.entries()) expect(at - requested[i]!).toBeLessThanOrEqual(6);
      expect(mostInAnyWindow(times, 1000)).toBe(2);
    });

    it('spaces the flushes of steady changes half a second apart, and sends at once again when they stop', () => {
      const { pacing, times, pacer, a } = burstPacer();
      // A change every 50 ms for 3 s.
      for (let t = 0; t < 3000; t += 50) {
        pacing.advance(t - pacing.time);
        pacer.request(a);
      }
      pacing.advance(2000);
      // The first two at once, then one per 500 ms: not pairs of flushes with a second's gap.
      expect(times).toEqual([0, 50, 1000, 1500, 2000, 2500, 3000]);
      // Quiet now: one change goes out at once, and a second one too.
      const quiet = pacing.time;
      pacer.request(a);
      pacing.advance(10);
      pacer.request(a);
      pacing.advance(0);
      expect(times.slice(-2)).toEqual([quiet, quiet + 10]);
    });

    it('lets a change that may wait ride with the next one that cannot, or go when its wait is over', () => {
      const { pacing, times, pacer, a } = burstPacer();
      pacer.request(a, 1000);
      pacing.advance(300);
      pacer.request(a, 1000);
      pacing.advance(283);
      expect(times).toEqual([]);
      // One that cannot wait takes it along at once.
      pacer.request(a);
      pacing.advance(0);
      expect(times).toEqual([583]);
      // Alone, it goes when its wait is over (the window allows it).
      pacer.request(a, 1000);
      pacing.advance(2000);
      expect(times).toEqual([583, 1583]);
    });

    it('sends at once every tick of a cross moved by three pairs a second, the two converting ones waiting', () => {
      const { pacing, times, pacer, a } = burstPacer();
      const own: number[] = [];
      // EURUSD (its base's rate) at 0, GBPUSD (its quote's rate) at 83, EURGBP itself at 583.
      for (let second = 0; second < 20; second++) {
        for (const [offset, mayWait] of [
          [0, 1000],
          [83, 1000],
          [583, 0],
        ] as const) {
          pacing.advance(second * 1000 + offset - pacing.time);
          if (mayWait === 0) own.push(pacing.time);
          pacer.request(a, mayWait);
        }
      }
      pacing.advance(2000);
      // Each second's rates ride with its own tick: one flush a second, none held back.
      expect(times).toEqual(own);
      expect(mostInAnyWindow(times, 1000)).toBeLessThanOrEqual(2);
    });

    it('does not count a change that may wait as a steady stream', () => {
      const { pacing, times, pacer, a } = burstPacer();
      pacer.request(a);
      pacing.advance(10);
      pacer.request(a);
      pacing.advance(10);
      // The window is full until 1000: rates wait, and then one change that cannot wait joins them.
      pacer.request(a, 1000);
      pacing.advance(500);
      pacer.request(a);
      pacing.advance(1000);
      expect(times).toEqual([0, 10, 1000]);
      // Not spaced: the next two changes go at once (within the window of the flush at 10).
      pacing.advance(100);
      const at = pacing.time;
      pacer.request(a);
      pacing.advance(0);
      expect(times.at(-1)).toBe(at);
    });

    it('sends changes that may wait within their wait, however many follow, and never counts them as a stream', () => {
      const { pacing, times, pacer, a } = burstPacer();
      // Rates alone, every 300 ms: each flush within a second of the first change it carries.
      for (let t = 0; t <= 3000; t += 300) {
        pacing.advance(t - pacing.time);
        pacer.request(a, 1000);
      }
      pacing.advance(2000);
      expect(times).toEqual([1000, 2200, 3400]);
      // A change that cannot wait, held back by the window, then rates: still one change, not a stream.
      const from = pacing.time;
      pacer.request(a);
      pacing.advance(10);
      pacer.request(a);
      pacing.advance(10);
      pacer.request(a);
      pacing.advance(100);
      pacer.request(a, 1000);
      pacing.advance(1000);
      expect(times.slice(3)).toEqual([from, from + 10, from + 1000]);
      // Not spaced half a second from that flush: the window (from + 10 + 1000) allows it now.
      const at = pacing.time;
      expect(at).toBe(from + 1120);
      pacer.request(a);
      pacing.advance(0);
      expect(times.at(-1)).toBe(at);
    });

    it('flushes together only the items that are due: one that may wait stays queued', () => {
      const pacing = new ManualPacing();
      const batches: Array<[number, string[]]> = [];
      const pacer = new Pacer<Item>(500, (items) => batches.push([pacing.time, items.map((i) => i.name)]), pacing, 2);
      const [a, b] = [item('a'), item('b')];
      pacer.request(b, 1000);
      pacer.request(a);
      pacing.advance(2000);
      expect(batches).toEqual([
        [0, ['a']],
        [1000, ['b']],
      ]);
    });

    it('never flushes an item three times in a second, and flushes every change, whatever the pattern', () => {
      const { pacing, times, pacer, a } = burstPacer();
      const seed = Date.now();
      console.log(`pacer burst pattern seed ${seed}`);
      let state = seed % 2 ** 31;
      const random = () => {
        state = (state * 1103515245 + 12345) % 2 ** 31;
        return state / 2 ** 31;
      };
      const requests: number[] = [];
      for (let i = 0; i < 1000; i++) {
        // Bursts and lulls: mostly short steps, now and then a long one; some changes may wait.
        pacing.advance(Math.floor(random() < 0.1 ? random() * 1500 : random() * 120));
        if (random() < 0.7) {
          pacer.request(a, random() < 0.3 ? 1000 : 0);
          requests.push(pacing.time);
        }
      }
      pacing.advance(3000);
      expect(mostInAnyWindow(times, 1000)).toBeLessThanOrEqual(2);
      // Every change was flushed, none later than its wait and a second's window after it.
      for (const at of requests) expect(times.some((t) => t >= at && t <= at + 2000)).toBe(true);
    });
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
