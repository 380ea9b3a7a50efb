/** An entry of a heap: its key and where it sits, so it can be removed in O(log n). */
export interface HeapSlot {
  key: number;
  /** Breaks ties: the smaller (older) first. */
  readonly id: number;
  /** Position in its heap; -1 while in none. */
  index: number;
}

/**
 * A binary heap of slots that knows where each slot sits. `lowest` keeps the smallest key on
 * top, `highest` the largest: a tick looks at the top only and pops while the top is crossed,
 * so it costs O(1) when nothing fires and O(k log n) for k fires.
 */
export class IndexedHeap<T extends HeapSlot> {
  private readonly items: T[] = [];

  constructor(private readonly lowest: boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  add(slot: T): void {
    slot.index = this.items.length;
    this.items.push(slot);
    this.up(slot.index);
  }

  /** Removes a slot of this heap (a no-op for a slot in none). */
  remove(slot: T): void {
    const i = slot.index;
    if (i === -1 || this.items[i] !== slot) return;
    const last = this.items.pop()!;
    slot.index = -1;
    if (last === slot) return;
    this.items[i] = last;
    last.index = i;
    this.down(i);
    this.up(last.index);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top) this.remove(top);
    return top;
  }

  clear(): void {
    for (const slot of this.items) slot.index = -1;
    this.items.length = 0;
  }

  private before(a: T, b: T): boolean {
    if (a.key !== b.key) return this.lowest ? a.key < b.key : a.key > b.key;
    return a.id < b.id;
  }

  private up(i: number): void {
    const items = this.items;
    const slot = items[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (!this.before(slot, p)) break;
      items[i] = p;
      p.index = i;
      i = parent;
    }
    items[i] = slot;
    slot.index = i;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const slot = items[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.before(items[right]!, items[left]!) ? right : left;
      const c = items[child]!;
      if (!this.before(c, slot)) break;
      items[i] = c;
      c.index = i;
      i = child;
    }
    items[i] = slot;
    slot.index = i;
  }
}
