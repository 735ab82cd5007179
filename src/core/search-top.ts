/**
 * The best few of many scored candidates (a pasted failure reaches most of a store's learnings), picked out without
 * reading the record of every candidate: src/core/search.ts rankLearnings.
 */

/** At most this many results are picked out by insertion into a sorted list (kthLargest); more by a sort. */
const FEW_RESULTS = 64

/** The k-th largest of `values` (k ≥ 1; no NaN among them: scores), or -Infinity when there are fewer than k. */
export function kthLargest(values: Float64Array, k: number): number {
  if (values.length < k) return -Infinity
  if (k > FEW_RESULTS) return values.slice().sort()[values.length - k] as number
  // The k largest so far, ascending; a value enters when it beats the least of them.
  const top = new Float64Array(k).fill(-Infinity)
  for (const v of values) {
    if (!(v > (top[0] as number))) continue
    let j = 0
    while (j + 1 < k && (top[j + 1] as number) < v) {
      top[j] = top[j + 1] as number
      j++
    }
    top[j] = v
  }
  return top[0] as number
}

/**
 * `select`'s answer (the best `limit` of the candidates it is given, each scoring at most its `bound`) over the
 * candidates 0 … n-1: it is given first only those whose bound reaches the `limit`-th best bound, best first, so that
 * it can leave the others without reading their records; when its filter keeps fewer than `limit` of those, or the last
 * it keeps scores below that bound, it is given every candidate. The answer is the same either way: a candidate
 * outside those scores below the last place they give. rankLearnings' first pass met its candidates in the order BM25
 * met them, and a pasted failure's entered and left the top ~100 times at 100,000 learnings, each a block of the
 * catalog inflated for its record (the pass took 65–100 ms of a 0.33–0.43 s search).
 */
export function bestFirst<R extends { score: number }>(
  n: number,
  bound: (i: number) => number,
  limit: number,
  select: (candidates: Iterable<number>) => R[],
): R[] {
  const bounds = new Float64Array(n)
  for (let i = 0; i < n; i++) bounds[i] = bound(i)
  const least = limit > 0 ? kthLargest(bounds, limit) : -Infinity
  if (least > -Infinity) {
    const best: number[] = []
    for (let i = 0; i < n; i++) if ((bounds[i] as number) >= least) best.push(i)
    best.sort((a, b) => (bounds[b] as number) - (bounds[a] as number) || a - b)
    const top = select(best)
    if (top.length >= limit && (top[top.length - 1] as R).score >= least) return top
  }
  return select(bounds.keys())
}
