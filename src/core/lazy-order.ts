/**
 * Items in order, sorted only as far as they are read: a binary heap over their positions. The SessionStart context
 * shows the first ~40 of up to 100,000 learnings (a tier's), and sorting them all with its comparator was most of its
 * ranking's time; building the heap is linear, and each item read costs a logarithm of the rest.
 *
 * Hand-written (a heap is thirty lines, and the hook loads nothing it does not need): CONTRIBUTING.md.
 */

/**
 * The positions `items` in the order `before` gives (a strict total order: `before(a, b)` when a comes first), each
 * sifted out of the heap when the iteration asks for it.
 */
export function* inOrder(items: readonly number[], before: (a: number, b: number) => boolean): Generator<number> {
  const heap = Int32Array.from(items)
  let size = heap.length
  const down = (from: number) => {
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
  for (let i = (size >> 1) - 1; i >= 0; i--) down(i)
  while (size > 0) {
    const first = heap[0] as number
    heap[0] = heap[--size] as number
    if (size > 0) down(0)
    yield first
  }
}
