/** An ordered set, read-only: its size, and its items in order. */
export interface Ordered<T> {
  readonly size: number;
  /** The items in order. Do not modify it. */
  inOrder(): readonly T[];
}

/**
 * Items kept in one order as they come and go, so a reader takes the first few without sorting
 * the rest. One added after the last (a new node, the newest) is appended; one added among the
 * others is put in place by binary search. Many added at once (a whole index derived) are sorted
 * once, when next read. `compare` must order any two distinct items (ties broken by node id), and
 * an item must not change while it is held.
 */
export class OrderedSet<T> implements Ordered<T> {
  private order: T[] = [];
  private sorted = true;

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.order.length;
  }

  /** Adds an item that is not held yet, in place. */
  add(item: T): void {
    const last = this.order[this.order.length - 1];
    if (!this.sorted || last === undefined || this.compare(last, item) < 0) this.order.push(item);
    else this.order.splice(this.position(item), 0, item);
  }

  /** Adds one of many items added at once, in any order: they are sorted once, when next read (unless they came in order). */
  addUnsorted(item: T): void {
    const last = this.order[this.order.length - 1];
    if (this.sorted && last !== undefined && this.compare(last, item) > 0) this.sorted = false;
    this.order.push(item);
  }

  /** Removes an item it holds (the same object that was added). */
  delete(item: T): void {
    this.sortIfNeeded();
    const at = this.position(item);
    if (this.order[at] === item) this.order.splice(at, 1);
  }

  inOrder(): readonly T[] {
    this.sortIfNeeded();
    return this.order;
  }

  /** Where `item` is, or would go: the first position whose item is not before it. */
  private position(item: T): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(this.order[middle]!, item) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private sortIfNeeded(): void {
    if (this.sorted) return;
    this.order.sort(this.compare);
    this.sorted = true;
  }
}
