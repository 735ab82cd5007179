/**
 * Order of strings by UTF-16 code unit, the order of `<`. For learning, tier and domain names (`[a-z0-9-]`) it is
 * the order `localeCompare` gives, at a fraction of the cost: sorting 10,000 names with `localeCompare` goes
 * through ICU for every comparison (~20 ms on the bench machine), `<` does not, and it does not depend on the locale.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** First position in ascending `sorted` whose value is not below `x` (`sorted.length` when there is none). */
export function lowerBound<T extends string | number>(sorted: readonly T[], x: T): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((sorted[mid] as T) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Whether ascending `sorted` holds `x`. */
export function sortedHas<T extends string | number>(sorted: readonly T[], x: T): boolean {
  return sorted[lowerBound(sorted, x)] === x
}
