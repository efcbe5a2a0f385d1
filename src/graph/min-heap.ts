/**
 * A binary min-heap of integers: {@link runGraph} keeps its runnable node indexes here so that handing
 * out "the lowest runnable index" costs O(log n) rather than a scan of every node per hand-off.
 * @internal
 */
export class MinHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(value: number): void {
    const items = this.items;
    let i = items.length;
    items.push(value);
    // Sift up: move the new value towards the root while its parent is larger.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent] as number;
      if (above <= value) break;
      items[i] = above;
      i = parent;
    }
    items[i] = value;
  }

  /** Removes and returns the smallest value, or `undefined` when empty. */
  pop(): number | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    // Sift down: put the former last value at the root and swap it below its smaller child.
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const leftValue = items[left] as number;
      const child = right < items.length && (items[right] as number) < leftValue ? right : left;
      const childValue = items[child] as number;
      if (last <= childValue) break;
      items[i] = childValue;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
