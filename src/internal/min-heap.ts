/**
 * An intrusive binary min-heap keyed by `dueAt`. Each entry records its own index, so removal and re-keying are
 * O(log n) without searching and without allocating per operation.
 *
 * @module
 * @internal
 */

/** An entry the heap can hold; `heapIndex` is -1 while the entry is not in a heap. */
export interface HeapEntry {
  dueAt: number;
  heapIndex: number;
}

/** A min-heap of entries ordered by `dueAt`. */
export class MinHeap<T extends HeapEntry> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(entry: T): void {
    entry.heapIndex = this.#items.length;
    this.#items.push(entry);
    this.#up(entry.heapIndex);
  }

  pop(): T | undefined {
    const top = this.#items[0];
    if (top) this.remove(top);
    return top;
  }

  /** Removes `entry` if it is in this heap. */
  remove(entry: T): void {
    const i = entry.heapIndex;
    if (i < 0 || this.#items[i] !== entry) return;
    const last = this.#items.pop() as T;
    entry.heapIndex = -1;
    if (last === entry) return;
    this.#items[i] = last;
    last.heapIndex = i;
    this.#down(i);
    this.#up(last.heapIndex);
  }

  #swap(i: number, j: number): void {
    const a = this.#items[i] as T;
    const b = this.#items[j] as T;
    this.#items[i] = b;
    this.#items[j] = a;
    a.heapIndex = j;
    b.heapIndex = i;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.#items[parent] as T).dueAt <= (this.#items[i] as T).dueAt) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && (this.#items[l] as T).dueAt < (this.#items[m] as T).dueAt) m = l;
      if (r < n && (this.#items[r] as T).dueAt < (this.#items[m] as T).dueAt) m = r;
      if (m === i) return;
      this.#swap(i, m);
      i = m;
    }
  }
}
