/**
 * One entry of a ladder: its key (a price as `Dec.raw` or scaled to an integer, or a time) and
 * what it stands for. The order engine's triggers and the price alerts both rest on ladders.
 */
export interface Rung<T, K extends bigint | number = bigint> {
  key: K;
  readonly value: T;
  /** Position in the ladder's heap; -1 while in no ladder. */
  index: number;
}

export function rung<T, K extends bigint | number = bigint>(key: K, value: T): Rung<T, K> {
  return { key, value, index: -1 };
}

/**
 * A binary heap of rungs that knows where each rung sits, so one can be removed or re-keyed in
 * O(log n). `lowest` ladders keep the smallest key on top, `highest` ones the largest: a tick
 * looks at the top only, and pops while the top is crossed, so it costs O(1) when nothing
 * crosses and O(k log n) for k crossings.
 */
export class Ladder<T, K extends bigint | number = bigint> {
  private readonly heap: Rung<T, K>[] = [];
  private readonly lowest: boolean;

  /** `first`: which of two rungs of equal key comes out first (none given: either). */
  constructor(
    top: 'lowest' | 'highest',
    private readonly first?: (a: T, b: T) => boolean,
  ) {
    this.lowest = top === 'lowest';
  }

  get size(): number {
    return this.heap.length;
  }

  peek(): Rung<T, K> | undefined {
    return this.heap[0];
  }

  add(r: Rung<T, K>): void {
    if (r.index !== -1) throw new Error('rung is already in a ladder');
    r.index = this.heap.length;
    this.heap.push(r);
    this.up(r.index);
  }

  /** Removes a rung of this ladder (a no-op for a rung in none). */
  remove(r: Rung<T, K>): void {
    const i = r.index;
    if (i === -1) return;
    if (this.heap[i] !== r) throw new Error('rung belongs to another ladder');
    const last = this.heap.pop()!;
    r.index = -1;
    if (last === r) return;
    this.heap[i] = last;
    last.index = i;
    this.down(i);
    this.up(last.index);
  }

  /** Gives a rung of this ladder a new key and moves it to its place, in O(log n). */
  rekey(r: Rung<T, K>, key: K): void {
    const i = r.index;
    if (this.heap[i] !== r) throw new Error('rung belongs to another ladder');
    r.key = key;
    this.up(i);
    this.down(r.index);
  }

  pop(): Rung<T, K> | undefined {
    const first = this.heap[0];
    if (first) this.remove(first);
    return first;
  }

  /** Takes every rung out (a reload). */
  clear(): void {
    for (const r of this.heap) r.index = -1;
    this.heap.length = 0;
  }

  /** Every rung, in no particular order (tests, reloads). */
  values(): readonly Rung<T, K>[] {
    return this.heap;
  }

  private before(a: Rung<T, K>, b: Rung<T, K>): boolean {
    if (a.key === b.key) return this.first?.(a.value, b.value) === true;
    return this.lowest ? a.key < b.key : a.key > b.key;
  }

  private up(i: number): void {
    const heap = this.heap;
    const r = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!this.before(r, p)) break;
      heap[i] = p;
      p.index = i;
      i = parent;
    }
    heap[i] = r;
    r.index = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const r = heap[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.before(heap[right]!, heap[left]!) ? right : left;
      const c = heap[child]!;
      if (!this.before(c, r)) break;
      heap[i] = c;
      c.index = i;
      i = child;
    }
    heap[i] = r;
    r.index = i;
  }
}
