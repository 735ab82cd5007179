/**
 * A learning's triggers out of its frontmatter, kept apart from learning.ts so that ranking (src/core/search.ts)
 * does not load the learning model (its parser and schema) with it.
 */
import type { Frontmatter } from './learning.js'

/** Every non-blank trigger (`trigger` may be a string or a list). */
export function triggersOf(data: Frontmatter): string[] {
  const t = data.trigger
  const list = typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : []
  return list.filter((x) => x.trim())
}
