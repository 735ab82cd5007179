/** "Did you mean …": the known word closest to a mistyped one, when it is close enough to be the likely intent. */
import { levenshtein } from '../vendor/lazy/levenshtein.js'

/** The candidate nearest `word` (at most a third of its length away, at least 1 edit allowed), or undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  const { distance } = levenshtein()
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase())
    if (d < bestDistance) {
      best = c
      bestDistance = d
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined
}
