/**
 * Items in order, sorted only as far as they are read: a binary heap over their positions. The SessionStart context
 * shows the first ~40 of up to 100,000 learnings (a tier's), and sorting them all with its comparator was most of its
 * ranking's time; building the heap is linear, and each item read costs a logarithm of the rest.
 *
 * Hand-written (a heap is thirty lines, and the hook loads nothing it does not need): CONTRIBUTING.md.
 */
export class LazyOrder {
  private readonly heap: Int32Array
  private size: number

  /** The positions `items` in the order `before` gives (a strict total order: `before(a, b)` when a comes first). */
  constructor(
    items: readonly number[],
    private readonly before: (a: number, b: number) => boolean,
  ) {
    this.heap = Int32Array.from(items)
    this.size = this.heap.length
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i)
  }

  /** The first item not yet read, or undefined when every item has been. */
  next(): number | undefined {
    if (!this.size) return undefined
    const heap = this.heap
    const first = heap[0] as number
    heap[0] = heap[--this.size] as number
    if (this.size) this.down(0)
    return first
  }

  /** The items not yet read, in no order. */
  unread(): number[] {
    return Array.from(this.heap.subarray(0, this.size))
  }

  private down(from: number): void {
    const { heap, size, before } = this
    let at = from
    const item = heap[at] as number
    for (;;) {
      let child = 2 * at + 1
      if (child >= size) break
      const right = child + 1
      if (right < size && before(heap[right] as number, heap[child] as number)) child = right
      if (!before(heap[child] as number, item)) break
      heap[at] = heap[child] as number
      at = child
    }
    heap[at] = item
  }
}
