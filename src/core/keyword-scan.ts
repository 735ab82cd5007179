/**
 * Many literal keywords found in one pass over a text (an Aho–Corasick automaton): the secret scanner's rule
 * keywords and the directive scan's first look. A regex alternation of ~190 keywords is retried at every position
 * of the text; the automaton reads each character once (a full check of 10,000 learnings: ~55 → ~17 ms for the
 * secret keywords). Keywords are ASCII and matched ASCII-case-insensitively, as a regex's `i` flag without `u`
 * does: `A`–`Z` read as `a`–`z`, and any other character outside ASCII ends every partial match.
 *
 * Transitions are computed on first use and kept: a process that scans one short payload (a hook) computes only the
 * few it walks.
 */

export interface KeywordMatcher {
  /** The keywords, by id (the position given to buildKeywordMatcher). */
  readonly keywords: readonly string[]
  /** Trie edges: the child of `state` on `code` at `state * 128 + code` (states from ROOT; 0 is no state). */
  readonly trie: ReadonlyMap<number, number>
  /** Each state's parent in the trie and the code of the edge from it (what its fallback is computed from). */
  readonly parent: Uint16Array
  readonly parentCode: Uint8Array
  /** The ids of the keywords that end exactly at each state. */
  readonly own: ReadonlyArray<readonly number[] | undefined>
  /** The automaton's transitions by state and character (A–Z as a–z), 0 until first computed. */
  readonly delta: Uint16Array
  /** Each state's fallback (the longest proper suffix that is a trie state), 0 until first computed. */
  readonly fail: Uint16Array
  /** The ids of the keywords that end at each state (its own and its fallbacks'), once computed. */
  readonly ends: Array<readonly number[] | undefined>
  /** 1 where keywords end, and at 0, the state a transition not computed yet leads to. */
  readonly hasEnds: Uint8Array
}

const NONE: readonly number[] = []
/** The trie's root, the state before any character. */
const ROOT = 1

/**
 * The automaton of `keywords` (lower-case ASCII, none empty, fewer than 65,000 characters in all; a keyword outside
 * that is a programming error). Only the trie is built here, as a map of edges; fallbacks, the keywords ending at
 * each state and the transitions are computed when a scan first needs them. Tables of 128 columns per state built
 * whole (~1 MB for the secret keywords) cost a hook more than the regex the automaton replaced.
 */
export function buildKeywordMatcher(keywords: readonly string[]): KeywordMatcher {
  let size = 2
  for (const keyword of keywords) size += keyword.length
  const bad = keywords.find((keyword) => !/^[\x00-\x40\x5b-\x7f]+$/.test(keyword))
  if (bad !== undefined) throw new Error(`keyword "${bad}" is not lower-case ASCII`)
  if (size >= 65_000) throw new Error('too many keyword characters for 16-bit states')
  const trie = new Map<number, number>()
  const parent = new Uint16Array(size)
  const parentCode = new Uint8Array(size)
  const own: Array<number[] | undefined> = []
  let states = ROOT + 1
  for (let id = 0; id < keywords.length; id++) {
    const keyword = keywords[id] as string
    let state = ROOT
    for (let i = 0; i < keyword.length; i++) {
      const code = keyword.charCodeAt(i)
      const at = (state << 7) | code
      let next = trie.get(at)
      if (next === undefined) {
        next = states++
        trie.set(at, next)
        parent[next] = state
        parentCode[next] = code
      }
      state = next
    }
    ;(own[state] ??= []).push(id)
  }
  const ends: Array<readonly number[] | undefined> = []
  ends[ROOT] = NONE
  const hasEnds = new Uint8Array(states)
  hasEnds[0] = 1
  return {
    keywords,
    trie,
    parent,
    parentCode,
    own,
    delta: new Uint16Array(states * 128),
    fail: new Uint16Array(states),
    ends,
    hasEnds,
  }
}

/** The fallback of `state` (not the root), computed from its parent's once. */
function failOf(m: KeywordMatcher, state: number): number {
  let f = m.fail[state] as number
  if (f !== 0) return f
  const up = m.parent[state] as number
  f = up === ROOT ? ROOT : step(m, failOf(m, up), m.parentCode[state] as number)
  m.fail[state] = f
  return f
}

/** Computes which keywords end at `state` (its own, then its fallback's), and flags it when any do. */
function prepare(m: KeywordMatcher, state: number): void {
  if (m.ends[state] !== undefined) return
  const f = failOf(m, state)
  prepare(m, f)
  const inherited = m.ends[f] as readonly number[]
  const mine = m.own[state]
  const ends = mine ? (inherited.length ? [...mine, ...inherited] : mine) : inherited
  m.ends[state] = ends
  if (ends.length) m.hasEnds[state] = 1
}

/** The state after `state` reads ASCII `code` (upper case read as lower), computed through the fallbacks once. */
function step(m: KeywordMatcher, state: number, code: number): number {
  const at = (state << 7) | code
  let next = m.delta[at] as number
  if (next !== 0) return next
  const child = m.trie.get((state << 7) | (code >= 65 && code <= 90 ? code + 32 : code))
  next = child !== undefined ? child : state === ROOT ? ROOT : step(m, failOf(m, state), code)
  prepare(m, next)
  m.delta[at] = next
  return next
}

/**
 * Calls `visit` with the ids of the keywords that end at each position of `text` (as index of their last
 * character), in text order; `visit` returning true stops the scan. Returns whether it was stopped.
 */
export function scanKeywords(
  m: KeywordMatcher,
  text: string,
  visit: (ids: readonly number[], last: number) => boolean | void,
): boolean {
  // One table read and one flag read per character: case is folded in the transitions (an upper-case column
  // mirrors its lower-case one), and a transition not computed yet leads to state 0, flagged like a state where
  // keywords end, so the loop has no other branch (a branch per character on the case of prose, or on a missing
  // transition, cost more than the rest of the loop).
  const { delta, hasEnds, ends } = m
  let state = ROOT
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const from = state
    state = code < 128 ? (delta[(state << 7) | code] as number) : ROOT
    if (hasEnds[state] === 1) {
      if (state === 0) {
        state = step(m, from, code)
        if (hasEnds[state] !== 1) continue
      }
      if (visit(ends[state] as readonly number[], i) === true) return true
    }
  }
  return false
}
