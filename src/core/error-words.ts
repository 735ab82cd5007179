/**
 * The vocabulary of equivalent error words, kept as data in `src/core/data/error-words.json` (shipped in the package):
 * `equivalents` maps a canonical word to the phrases that say the same thing (`econnrefused`: "connection refused",
 * "errno 111", …), `ports` maps well-known ports to their service, and `common` lists words that appear in almost
 * every error and so identify none (recall weighs them down). README "Search and recall" says how to add an entry.
 */
import words from './data/error-words.json'

const vocabulary = words as { equivalents: Record<string, string[]>; ports: Record<string, string>; common: string[] }

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const canonicalOf = new Map<string, string>()
for (const [canonical, phrases] of Object.entries(vocabulary.equivalents))
  for (const p of [canonical, ...phrases]) canonicalOf.set(p.toLowerCase().replace(/\s+/g, ' '), canonical)

// One alternation of literal phrases, longest first, whitespace inside a phrase matching any run of blanks. A regex of
// literals cannot backtrack catastrophically: each position tries each phrase once, so the scan is linear in the text.
const PHRASES = new RegExp(
  `(?<![\\w-])(?:${[...canonicalOf.keys()]
    .sort((a, b) => b.length - a.length)
    .map((p) => escape(p).replace(/ /g, '[ \\t]+'))
    .join('|')})(?![\\w-])`,
  'gi',
)

/** The canonical words of the equivalent phrases a text contains, each once, in order of first appearance. */
export function equivalentWords(text: string): string[] {
  const out = new Set<string>()
  for (const m of text.matchAll(PHRASES)) {
    const c = canonicalOf.get(m[0].toLowerCase().replace(/\s+/g, ' '))
    if (c) out.add(c)
  }
  return [...out]
}

/** The service a well-known port belongs to (6379 → redis), or undefined. */
export function serviceOfPort(port: string): string | undefined {
  return Object.hasOwn(vocabulary.ports, port) ? vocabulary.ports[port] : undefined
}

/** Words that appear in almost every error message (before stemming, lower case). */
export const COMMON_ERROR_WORDS: readonly string[] = vocabulary.common
