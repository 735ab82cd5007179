/**
 * The vocabulary of equivalent error words, kept as data in `src/core/data/error-words.json` (shipped in the package):
 * `equivalents` maps a canonical word to the phrases that say the same thing (`econnrefused`: "connection refused",
 * "errno 111", …), `ports` maps well-known ports to their service, and `common` lists words that appear in almost
 * every error and so identify none (recall weighs them down). README "Search and recall" says how to add an entry.
 */
import words from './data/error-words.json'

const vocabulary = words as { equivalents: Record<string, string[]>; ports: Record<string, string>; common: string[] }

// Phrases are matched as sequences of words (lower case, split at anything but letters, digits and `_`), looked up by
// their first word: a scan of the text's words, linear in its length, with no large regex to compile in every hook.
const WORD = /[a-z0-9_]+/g
const wordsOf = (text: string) => text.toLowerCase().match(WORD) ?? []

const byFirstWord = new Map<string, { words: string[]; canonical: string }[]>()
for (const [canonical, phrases] of Object.entries(vocabulary.equivalents))
  for (const p of [canonical, ...phrases]) {
    const words = wordsOf(p)
    const first = words[0]
    if (first === undefined) continue
    const list = byFirstWord.get(first) ?? []
    list.push({ words, canonical })
    byFirstWord.set(first, list)
  }
// Longest phrase first, so "connect econnrefused" is tried before "connect".
for (const list of byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length)

/** The equivalent phrases a text contains, as [canonical, the phrase's words], in order of appearance. */
function phrasesIn(text: string): [string, string[]][] {
  const words = wordsOf(text)
  const out: [string, string[]][] = []
  for (let i = 0; i < words.length; i++) {
    const candidates = byFirstWord.get(words[i] as string)
    if (!candidates) continue
    for (const c of candidates) if (c.words.every((w, j) => words[i + j] === w)) out.push([c.canonical, c.words])
  }
  return out
}

/** The canonical words of the equivalent phrases a text contains, each once, in order of first appearance. */
export function equivalentWords(text: string): string[] {
  return [...new Set(phrasesIn(text).map(([canonical]) => canonical))]
}

/**
 * The words a text spends restating an error code it also names: in `ENOENT: no such file or directory`, the words
 * of "no such file or directory" (the code's equivalent phrase), which say again what `ENOENT` says. Phrases whose
 * code the text does not name are not restatements ("Permission denied (publickey)" is all there is).
 */
export function restatedWords(text: string): string[] {
  const phrases = phrasesIn(text)
  const named = new Set(phrases.filter(([c, words]) => words.length === 1 && words[0] === c).map(([c]) => c))
  const out = new Set<string>()
  for (const [canonical, words] of phrases)
    if (named.has(canonical)) for (const w of words) if (w !== canonical) out.add(w)
  return [...out]
}

/** The service a well-known port belongs to (6379 → redis), or undefined. */
export function serviceOfPort(port: string): string | undefined {
  return Object.hasOwn(vocabulary.ports, port) ? vocabulary.ports[port] : undefined
}

/** Words that appear in almost every error message (before stemming, lower case). */
export const COMMON_ERROR_WORDS: readonly string[] = vocabulary.common
