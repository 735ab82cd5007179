/** A small deterministic generator (mulberry32) for randomised tests: a failure reproduces from its seed. */
export function mulberry32(seed: number): () => number {
  let a = seed | 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** mulberry32 with a picker over a list. */
export function seeded(seed: number): { next: () => number; pick: <T>(xs: readonly T[]) => T } {
  const next = mulberry32(seed)
  return { next, pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] as T }
}

/**
 * The runs of a seeded property test: `base` (kept small, the suite runs in CI), times PROPERTY_RUNS when it is set
 * to run more by hand (`PROPERTY_RUNS=50 npx vitest run <file>`).
 */
export function propertyRuns(base: number): number {
  const scale = Number(process.env['PROPERTY_RUNS'] ?? 1)
  return Math.max(1, Math.round(base * (Number.isFinite(scale) && scale > 0 ? scale : 1)))
}
