/**
 * Epoch milliseconds of an ISO date (`YYYY-MM-DD`, read as UTC midnight, as `Date.parse` reads it) or date-time;
 * NaN when the text is neither. Remembered per text: a store's `created` dates repeat (a few hundred days over
 * thousands of learnings), and status reads each of them twice (confidence decay, prune age).
 */
const seen = new Map<string, number>()
const MAX_REMEMBERED = 4096

export function isoTime(text: string): number {
  let t = seen.get(text)
  if (t === undefined) {
    t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text)
    if (seen.size < MAX_REMEMBERED) seen.set(text, t)
  }
  return t
}
