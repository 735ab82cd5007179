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

interface Occurrence {
  canonical: string
  words: string[]
  at: number
}

// The last short text's phrases: a trigger is read for its phrases three times over in a row (matchableError's added
// words, restatedWords and rewordings, src/core/recall-rank.ts recallTermsOf). Callers do not change the list.
const LAST_CHARS = 1024
let lastText: string | undefined
let lastPhrases: Occurrence[] = []

/** The equivalent phrases a text contains, each where it starts, in order of appearance (longest first at a word). */
function phrasesIn(text: string): Occurrence[] {
  if (text === lastText) return lastPhrases
  const out = findPhrases(text)
  if (text.length <= LAST_CHARS) [lastText, lastPhrases] = [text, out]
  return out
}

function findPhrases(text: string): Occurrence[] {
  const words = wordsOf(text)
  const out: Occurrence[] = []
  for (let i = 0; i < words.length; i++) {
    const candidates = byFirstWord.get(words[i] as string)
    if (!candidates) continue
    for (const c of candidates)
      if (c.words.every((w, j) => words[i + j] === w)) out.push({ canonical: c.canonical, words: c.words, at: i })
  }
  return out
}

/** The canonical words of the equivalent phrases a text contains, each once, in order of first appearance. */
export function equivalentWords(text: string): string[] {
  return [...new Set(phrasesIn(text).map((o) => o.canonical))]
}

/**
 * The words a text spends saying one error twice: the words of the equivalent phrases of an error it names more than
 * once, in its code and its message (`ENOENT: no such file or directory`) or in two phrases (`Module not found: Can't
 * resolve 'fs'`, `ModuleNotFoundError: No module named 'src'`). What is left beside the canonical word is what tells
 * this failure from every other of its kind (`fs`, `src`). An error said once is not restated ("Permission denied
 * (publickey)" is all there is). Apostrophe halves are joined as the index joins them ("can't" is `cant`).
 */
export function restatedWords(text: string): string[] {
  // Non-overlapping sayings of each error: at each word the longest phrase, none inside an earlier one.
  const sayings = new Map<string, Occurrence[]>()
  let end = -1
  for (const o of phrasesIn(text)) {
    if (o.at <= end) continue
    end = o.at + o.words.length - 1
    sayings.set(o.canonical, [...(sayings.get(o.canonical) ?? []), o])
  }
  const out = new Set<string>()
  for (const [canonical, said] of sayings) {
    if (said.length < 2) continue
    for (const { words } of said)
      words.forEach((w, i) => {
        if (w === canonical) return
        out.add(w)
        if ((w === 't' || w === 's') && i > 0) out.add(`${words[i - 1] as string}${w}`)
      })
  }
  return [...out]
}

/**
 * The words a text spends on an error's equivalent phrases beside the error's canonical word, and the rest of its
 * words: a phrase counts when it has more than one word and is not the code with its verb ("Permission denied" is
 * `eacces`, "connection refused" `econnrefused`; "connect ECONNREFUSED" keeps "connect"). One fact weighs once:
 * "Permission denied (publickey)" is `eacces` and `publickey`, not three words of four about permissions that any other
 * denial shares. The caller keeps a phrase's word that the rest also says.
 */
export function rewordings(text: string): { phrases: string[]; rest: string } {
  const words = wordsOf(text)
  const phrases: string[] = []
  const covered = new Uint8Array(words.length)
  let end = -1
  for (const o of phrasesIn(text)) {
    if (o.at <= end) continue
    end = o.at + o.words.length - 1
    if (o.words.length < 2 || o.words.includes(o.canonical)) continue
    covered.fill(1, o.at, end + 1)
    o.words.forEach((w, i) => {
      phrases.push(w)
      if ((w === 't' || w === 's') && i > 0) phrases.push(`${o.words[i - 1] as string}${w}`)
    })
  }
  return { phrases, rest: phrases.length ? words.filter((_, i) => !covered[i]).join(' ') : '' }
}

/** The service a well-known port belongs to (6379 → redis), or undefined. */
export function serviceOfPort(port: string): string | undefined {
  return Object.hasOwn(vocabulary.ports, port) ? vocabulary.ports[port] : undefined
}

/**
 * The canonical words that are system error codes (`econnrefused`, `eaddrinuse`, `enoent`, …): each says what failed,
 * and one excludes another.
 */
export const ERROR_CODES: readonly string[] = Object.keys(vocabulary.equivalents).filter((c) => /^e[a-z]{3,}$/.test(c))

/** Words that appear in almost every error message (before stemming, lower case). */
export const COMMON_ERROR_WORDS: readonly string[] = vocabulary.common
