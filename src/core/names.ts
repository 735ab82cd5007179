/** Learning names: kebab-case, at most 64 characters, equal to the file name (the Agent Skills rule). */

export const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/
export const NAME_MAX = 64

/** Why a string is not a valid learning name, or undefined when it is. */
export function explainBadName(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty'
  if (name.includes('/') || name.includes('\\') || name.includes('..'))
    return `"${name}" contains a path separator or "..": a name is a plain kebab-case word, not a path`
  if (name.length > NAME_MAX) return `"${name}" is ${name.length} characters long; the limit is ${NAME_MAX}`
  if (!NAME_PATTERN.test(name))
    return `"${name}" is not kebab-case: use lower-case letters, digits and single hyphens (for example "vitest-esm-mock-hoisting")`
  return undefined
}

/** A kebab-case name made from free text (a title or description), cut at a word boundary. */
export function slugify(text: string): string {
  const words = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
  let out = ''
  for (const w of words) {
    const next = out ? `${out}-${w}` : w
    if (next.length > NAME_MAX) break
    out = next
  }
  return out || 'learning'
}
