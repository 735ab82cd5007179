/**
 * The vocabulary of equivalent error words, kept as data in `src/core/data/error-words.json` (shipped in the package):
 * `equivalents` maps a canonical word to the phrases that say the same thing (`econnrefused`: "connection refused",
 * "errno 111", …), `ports` maps well-known ports to their service, and `common` lists words that appear in almost
 * every error and so identify none (recall weighs them down). README "Search and recall" says how to add an entry.
 */
import words from './data/error-words.json'
import { owned } from './owned.js'

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
  // Kept as a string of its own: a slice of a file's text would keep the whole file alive between calls.
  if (text.length <= LAST_CHARS) [lastText, lastPhrases] = [owned(text), out]
  return out
}

// Whether a word of a given first character and length can start a phrase (the length capped at FIRST_MAX_LENGTH): most
// words of a text cannot, and are passed over without being cut out of it.
const FIRST_MAX_LENGTH = 63
const firstShape = new Uint8Array(128 * (FIRST_MAX_LENGTH + 1))
const shapeOf = (code: number, length: number) => code * (FIRST_MAX_LENGTH + 1) + Math.min(length, FIRST_MAX_LENGTH)
for (const first of byFirstWord.keys()) firstShape[shapeOf(first.charCodeAt(0), first.length)] = 1

// Where each word of the text being read starts and ends: grown for a text of more words, and let go after one of more
// than KEPT_WORDS (a pasted log's), so a process keeps a few kilobytes.
const KEPT_WORDS = 16_384
let starts = new Int32Array(1024)
let ends = new Int32Array(1024)

/** 1 for a character of a word (`[a-z0-9_]`, WORD) in a lower-cased text. */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95
}

/**
 * phrasesIn's scan: the words of the lower-cased text as WORD finds them (wordsOf), held as positions; a word is cut
 * out for a lookup only when its first character and length are those of a phrase's first word, and the words after
 * it are compared in place. A body's hundreds of words were as many strings for the collector.
 */
function findPhrases(text: string): Occurrence[] {
  const lower = text.toLowerCase()
  let n = 0
  for (let k = 0; k < lower.length; k++) {
    if (!isWordCode(lower.charCodeAt(k))) continue
    const start = k
    while (k + 1 < lower.length && isWordCode(lower.charCodeAt(k + 1))) k++
    if (n === starts.length) {
      const [s, e] = [new Int32Array(n * 2), new Int32Array(n * 2)]
      s.set(starts)
      e.set(ends)
      ;[starts, ends] = [s, e]
    }
    starts[n] = start
    ends[n++] = k + 1
  }
  const out: Occurrence[] = []
  const wordIs = (i: number, w: string) =>
    i < n && (ends[i] as number) - (starts[i] as number) === w.length && lower.startsWith(w, starts[i])
  for (let i = 0; i < n; i++) {
    const start = starts[i] as number
    const end = ends[i] as number
    if (!firstShape[shapeOf(lower.charCodeAt(start), end - start)]) continue
    const candidates = byFirstWord.get(lower.slice(start, end))
    if (!candidates) continue
    for (const c of candidates)
      if (c.words.every((w, j) => wordIs(i + j, w))) out.push({ canonical: c.canonical, words: c.words, at: i })
  }
  if (starts.length > KEPT_WORDS) [starts, ends] = [new Int32Array(1024), new Int32Array(1024)]
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
