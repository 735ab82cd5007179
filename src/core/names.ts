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

/**
 * A kebab-case name made from free text (a title or description), at most `max` characters, cut at a word
 * boundary; `fallback` when no word is left. Accented letters lose their accents ("café" → "cafe").
 */
export function slugify(text: string, max = NAME_MAX, fallback = 'learning'): string {
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
    if (next.length > max) break
    out = next
  }
  return out || fallback
}
