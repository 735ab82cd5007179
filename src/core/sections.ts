/**
 * Level-2 sections of a markdown body. Kept apart from learning.ts (the learning model, its schema and parser) so
 * search and recall can read a learning's Solution without it.
 */

const WHITE = /\s/
const isBreak = (c: string) => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029'

/**
 * The text of a `## heading` line, as `/^##\s+(.+?)\s*#*\s*$/` captures it (trailing blanks and closing hashes off),
 * found in one pass: that pattern tried every split of a run of blanks between its three tails at every length of the
 * heading, so a heading line of 3,000 blanks took seconds and 10,000 minutes (cubic), in check's pre-commit.
 */
function headingOf(line: string): string | undefined {
  if (!line.startsWith('##')) return undefined
  const n = line.length
  let lead = 2
  while (lead < n && WHITE.test(line[lead] as string)) lead++
  // Where the longest tail of blanks, hashes, blanks starts: the heading ends there, or after its first character.
  let tail = n
  while (tail > 0 && WHITE.test(line[tail - 1] as string)) tail--
  while (tail > 0 && line[tail - 1] === '#') tail--
  while (tail > 0 && WHITE.test(line[tail - 1] as string)) tail--
  // `\s+` gives back its blanks one by one while the heading cannot start after them (`.` takes no line break).
  for (let start = lead; start >= 3; start--) {
    const end = Math.max(start + 1, tail)
    if (end > n) continue
    let broken = false
    for (let i = start; i < end && !broken; i++) broken = isBreak(line[i] as string)
    if (!broken) return line.slice(start, end)
    if (end > start + 1) return undefined // a longer heading holds the same line break
  }
  return undefined
}

/** Level-2 headings of a markdown body, outside fenced code blocks. */
export function parseSections(body: string): string[] {
  const out: string[] = []
  // No backtick and no tilde: no fence can open, and the headings are the lines that start with "##", found without
  // splitting the body into lines (a full check of 10,000 learnings reads ~250,000 of them).
  if (!body.includes('`') && !body.includes('~')) {
    /** Where the next line after `from` that starts with "##" starts, or -1. */
    const next = (from: number) => {
      const at = body.indexOf('\n##', from)
      return at === -1 ? -1 : at + 1
    }
    for (let start = body.startsWith('##') ? 0 : next(0); start !== -1;) {
      const end = body.indexOf('\n', start)
      const h = headingOf(end === -1 ? body.slice(start) : body.slice(start, end))
      if (h !== undefined) out.push(h)
      start = end === -1 ? -1 : next(end)
    }
    return out
  }
  let fence: string | undefined
  for (const line of body.split('\n')) {
    // A fence holds a backtick or a tilde, a heading starts with "##": most lines are neither, and skip the patterns.
    const f = line.includes('`') || line.includes('~') ? /^\s*(```+|~~~+)/.exec(line) : null
    if (f) {
      if (!fence) fence = f[1]
      else if (line.trim().startsWith(fence)) fence = undefined
      continue
    }
    if (fence || !line.startsWith('##')) continue
    const h = headingOf(line)
    if (h !== undefined) out.push(h)
  }
  return out
}

/** The pattern of a `## heading` line, by heading (a few are asked for, once per learning). */
const HEADING_LINE = new Map<string, RegExp>()

/** The text under one `## heading`, up to the next level-2 heading; undefined when absent. */
export function sectionText(body: string, heading: string): string | undefined {
  const lines = body.split('\n')
  let re = HEADING_LINE.get(heading)
  if (!re) {
    // `(?:\s*#+)?\s*$` says what `\s*#*\s*$` says without two blank runs side by side: their splits made a heading
    // line that goes on after a run of blanks quadratic in the run.
    re = new RegExp(`^##\\s+${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:\\s*#+)?\\s*$`, 'i')
    if (HEADING_LINE.size < 64) HEADING_LINE.set(heading, re)
  }
  const pattern = re
  const start = lines.findIndex((l) => l.startsWith('##') && pattern.test(l))
  if (start < 0) return undefined
  const rest = lines.slice(start + 1)
  const end = rest.findIndex((l) => /^##\s/.test(l))
  return (end < 0 ? rest : rest.slice(0, end)).join('\n').trim()
}
