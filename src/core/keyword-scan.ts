/**
 * Many literal keywords found in one pass over a text (an Aho–Corasick automaton): the secret scanner's rule
 * keywords and the directive scan's first look. A regex alternation of ~190 keywords is retried at every position
 * of the text; the automaton reads each character once (a full check of 10,000 learnings: ~55 → ~17 ms for the
 * secret keywords). Keywords are ASCII and matched ASCII-case-insensitively, as a regex's `i` flag without `u`
 * does: `A`–`Z` read as `a`–`z`, and any other character outside ASCII ends every partial match.
 *
 * Transitions are computed on first use and kept: a process that scans one short payload (a hook) builds only the
 * few it walks, not the 128 × states table, whose construction costs more than a small scan.
 */

export interface KeywordMatcher {
  /** The keywords, by id (the position given to buildKeywordMatcher). */
  readonly keywords: readonly string[]
  /** Trie edges: `goto[state * 128 + code]`, 0 when there is none (the root is never a target). */
  readonly goto: Int32Array
  /** The automaton's transitions by state and character (A–Z as a–z), `unknown` until first computed. */
  readonly delta: Int32Array
  readonly unknown: number
  readonly fail: Int32Array
  /** The ids of the keywords that end at each state (its own and its fallbacks'), empty for most. */
  readonly ends: ReadonlyArray<readonly number[]>
  /** 1 where keywords end, and at `unknown`. */
  readonly hasEnds: Uint8Array
}

const NONE: readonly number[] = []

/** The automaton of `keywords` (lower-case ASCII, none empty; a keyword outside that is a programming error). */
export function buildKeywordMatcher(keywords: readonly string[]): KeywordMatcher {
  let size = 1
  for (const keyword of keywords) {
    if (!/^[\x00-\x40\x5b-\x7f]+$/.test(keyword)) throw new Error(`keyword "${keyword}" is not lower-case ASCII`)
    size += keyword.length
  }
  const trie = new Int32Array(size * 128)
  const own: Array<number[] | undefined> = []
  const children: number[][] = [[]]
  let states = 1
  keywords.forEach((keyword, id) => {
    let state = 0
    for (let i = 0; i < keyword.length; i++) {
      const at = (state << 7) | keyword.charCodeAt(i)
      if (trie[at] === 0) {
        trie[at] = states++
        ;(children[state] as number[]).push(at)
        children.push([])
      }
      state = trie[at] as number
    }
    ;(own[state] ??= []).push(id)
  })
  const goto = trie.subarray(0, states * 128)
  const fail = new Int32Array(states)
  const ends: Array<readonly number[]> = new Array<readonly number[]>(states).fill(NONE)
  const hasEnds = new Uint8Array(states)
  // Breadth first, so a state's fallback (the longest proper suffix that is a trie state) is done before it.
  const queue = [0]
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head] as number
    for (const at of children[state] as number[]) {
      const child = goto[at] as number
      const code = at & 127
      let back = state === 0 ? -1 : (fail[state] as number)
      while (back !== -1 && goto[(back << 7) | code] === 0) back = back === 0 ? -1 : (fail[back] as number)
      const target = back === -1 ? 0 : (goto[(back << 7) | code] as number)
      fail[child] = target
      const mine = own[child]
      const inherited = ends[target] as readonly number[]
      ends[child] = mine ? (inherited.length ? [...mine, ...inherited] : mine) : inherited
      if ((ends[child] as readonly number[]).length) hasEnds[child] = 1
      queue.push(child)
    }
  }
  // The state past the last one stands for a transition not computed yet.
  const flags = new Uint8Array(states + 1)
  flags.set(hasEnds)
  flags[states] = 1
  return {
    keywords,
    goto,
    delta: new Int32Array(states * 128).fill(states),
    unknown: states,
    fail,
    ends,
    hasEnds: flags,
  }
}

/** The state after `state` reads ASCII `code` (upper case read as lower), computed through the fallbacks once. */
function step(m: KeywordMatcher, state: number, code: number): number {
  const at = (state << 7) | code
  let next = m.delta[at] as number
  if (next !== m.unknown) return next
  const edge = m.goto[(state << 7) | (code >= 65 && code <= 90 ? code + 32 : code)] as number
  next = edge !== 0 ? edge : state === 0 ? 0 : step(m, m.fail[state] as number, code)
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
  // mirrors its lower-case one), and a transition not computed yet leads to `unknown`, a state flagged like one
  // where keywords end, so the loop has no other branch (a branch per character on the case of prose, or on a
  // missing transition, cost more than the rest of the loop).
  const { delta, hasEnds, ends, unknown } = m
  let state = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const from = state
    state = code < 128 ? (delta[(state << 7) | code] as number) : 0
    if (hasEnds[state] === 1) {
      if (state === unknown) {
        state = step(m, from, code)
        if (hasEnds[state] !== 1) continue
      }
      if (visit(ends[state] as readonly number[], i) === true) return true
    }
  }
  return false
}
