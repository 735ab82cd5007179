/** JSON Lines, as the append-only logs (events.jsonl, observations.jsonl) are read: a bad line is skipped, not fatal. */

/** A line's JSON object, or undefined for a blank, torn or hand-broken line, or one that holds no object. */
export function parseJsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.trim()) return undefined
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch {
    return undefined
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}
