import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { LeaderLoad } from './leader-load.js';

/** A book of numbers whose loads the test resolves or rejects by hand. */
function harness() {
  let leader = false;
  let now = 0;
  const reads: Array<{ resolve: (rows: number[]) => void; reject: (err: Error) => void }> = [];
  const book: number[] = [];
  const events: string[] = [];
  const log = {
    info: (_o: unknown, msg?: string) => events.push(`info ${msg ?? _o}`),
    error: (_o: unknown, msg: string) => events.push(`error ${msg}`),
  } as unknown as FastifyBaseLogger;
  const load = new LeaderLoad<number, number[]>({
    name: 'test book',
    contents: 'the numbers',
    isLeader: () => leader,
    now: () => now,
    log,
    retryAfterMs: 1_000,
    read: () => new Promise((resolve, reject) => reads.push({ resolve, reject })),
    install: (rows) => {
      book.splice(0, book.length, ...rows);
      return { rows: rows.length };
    },
    apply: (n) => book.push(n),
    lost: () => {
      events.push('lost');
      book.length = 0;
    },
  });
  const flush = () => new Promise((r) => setImmediate(r));
  return {
    load,
    book,
    events,
    reads,
    flush,
    lead: (on: boolean) => {
      leader = on;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('a book loaded on the leader', () => {
  it('loads once it leads, applies the changes that came meanwhile after the load, in order, then leads', async () => {
    const h = harness();
    h.load.check();
    expect(h.load.mode).toBe('follower');
    h.lead(true);
    h.load.check();
    h.load.check();
    expect(h.load.mode).toBe('loading');
    expect(h.reads).toHaveLength(1);
    expect(h.load.buffer(7)).toBe(true);
    expect(h.load.buffer(8)).toBe(true);
    h.reads[0]!.resolve([1, 2]);
    await h.load.settled;
    expect(h.load.mode).toBe('leading');
    expect(h.book).toEqual([1, 2, 7, 8]);
    expect(h.load.buffer(9)).toBe(false);
  });

  it('drops a load that finishes after leadership moved away and back, and keeps the newer one', async () => {
    const h = harness();
    h.lead(true);
    h.load.check();
    const firstTerm = h.load.term;
    h.lead(false);
    h.load.check();
    expect(h.events).toEqual(['lost', 'info test book: no longer the leader']);
    expect(h.load.mode).toBe('follower');
    h.lead(true);
    h.load.check();
    expect(h.load.term).toBeGreaterThan(firstTerm);
    h.reads[0]!.resolve([100]);
    await h.flush();
    expect(h.book).toEqual([]);
    expect(h.load.mode).toBe('loading');
    h.reads[1]!.resolve([5]);
    await h.load.settled;
    expect(h.book).toEqual([5]);
    expect(h.load.mode).toBe('leading');
  });

  it('after a failed load stays a follower until the retry delay has passed', async () => {
    const h = harness();
    h.lead(true);
    h.load.check();
    h.reads[0]!.reject(new Error('database down'));
    await h.load.settled;
    expect(h.load.mode).toBe('follower');
    expect(h.events).toEqual(['error test book: loading the numbers failed; retrying']);
    h.advance(999);
    h.load.check();
    expect(h.reads).toHaveLength(1);
    h.advance(1);
    h.load.check();
    expect(h.reads).toHaveLength(2);
    h.reads[1]!.resolve([3]);
    await h.load.settled;
    expect(h.load.mode).toBe('leading');
  });

  it('once halted, neither loads nor installs a load in progress', async () => {
    const h = harness();
    h.lead(true);
    h.load.check();
    const halted = h.load.halt();
    h.reads[0]!.resolve([1]);
    await halted;
    expect(h.book).toEqual([]);
    h.load.check();
    h.load.reload();
    expect(h.reads).toHaveLength(1);
    h.load.rest();
    expect(h.load.mode).toBe('follower');
  });
});
