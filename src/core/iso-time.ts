/**
 * Epoch milliseconds of an ISO date (`YYYY-MM-DD`, read as UTC midnight, as `Date.parse` reads it) or date-time;
 * NaN when the text is neither. Dates are remembered per text: a store's `created` dates repeat (a few hundred days
 * over thousands of learnings), and status reads each of them twice (confidence decay, prune age). Date-times (the
 * times of usage events, nearly all different) are parsed each time and never crowd the dates out.
 */
const seen = new Map<string, number>()
const MAX_REMEMBERED = 4096
const DATE = /^\d{4}-\d{2}-\d{2}$/

export function isoTime(text: string): number {
  if (!DATE.test(text)) return Date.parse(text)
  let t = seen.get(text)
  if (t === undefined) {
    t = Date.parse(`${text}T00:00:00Z`)
    if (seen.size < MAX_REMEMBERED) seen.set(text, t)
  }
  return t
}
