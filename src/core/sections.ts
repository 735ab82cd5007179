/**
 * Level-2 sections of a markdown body. Kept apart from learning.ts (which loads the YAML parser) so search and recall
 * can read a learning's Solution without it.
 */

/** Level-2 headings of a markdown body, outside fenced code blocks. */
export function parseSections(body: string): string[] {
  const out: string[] = []
  let fence: string | undefined
  for (const line of body.split('\n')) {
    const f = /^\s*(```+|~~~+)/.exec(line)
    if (f) {
      if (!fence) fence = f[1]
      else if (line.trim().startsWith(fence)) fence = undefined
      continue
    }
    if (fence) continue
    const h = /^##\s+(.+?)\s*#*\s*$/.exec(line)
    if (h) out.push(h[1] as string)
  }
  return out
}

/** The text under one `## heading`, up to the next level-2 heading; undefined when absent. */
export function sectionText(body: string, heading: string): string | undefined {
  const lines = body.split('\n')
  const start = lines.findIndex((l) =>
    new RegExp(`^##\\s+${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*#*\\s*$`, 'i').test(l),
  )
  if (start < 0) return undefined
  const rest = lines.slice(start + 1)
  const end = rest.findIndex((l) => /^##\s/.test(l))
  return (end < 0 ? rest : rest.slice(0, end)).join('\n').trim()
}
