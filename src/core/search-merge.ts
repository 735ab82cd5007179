/**
 * Several indexes scored as one: the project's index, rebuilt when the project changes, and each pinned tier's,
 * built once per commit. The BM25 statistics are those of one index over every document kept (the document count,
 * each field's average length, each term's document count per field), so the ranking is that of the index a rebuild
 * would have made over everything; a document the fold hides (the same content in a heavier source) is left out of
 * the postings and of the statistics. test/unit/core/search-merge.test.ts holds the two rankings equal.
 */
import type { FieldPostings, TermPostings } from './search-postings.js'
import type { ScoringIndex } from './search-score.js'

/** One index of the merge, and the catalog id of each of its short ids (undefined: hidden by the fold). */
export interface IndexPart {
  index: ScoringIndex
  idOf(short: number): number | undefined
}

/** The sorted union of sorted term lists, and for each term its position in each list (-1: not there). */
function mergeTerms(lists: readonly (readonly string[])[]): { terms: string[]; at: Int32Array[] } {
  const terms: string[] = []
  const at: number[][] = lists.map(() => [])
  const pos = lists.map(() => 0)
  for (;;) {
    let next: string | undefined
    lists.forEach((l, p) => {
      const t = l[pos[p] as number]
      if (t !== undefined && (next === undefined || t < next)) next = t
    })
    if (next === undefined) break
    terms.push(next)
    lists.forEach((l, p) => {
      const i = pos[p] as number
      if (l[i] === next) {
        at[p]?.push(i)
        pos[p] = i + 1
      } else at[p]?.push(-1)
    })
  }
  return { terms, at: at.map((a) => Int32Array.from(a)) }
}

/** The parts as one index: short ids of part p follow those of the parts before it. */
export function mergeIndexes(parts: readonly IndexPart[]): ScoringIndex {
  const bases: number[] = []
  let nextId = 0
  for (const p of parts) {
    bases.push(nextId)
    nextId += p.index.nextId
  }
  // The fold's hidden documents, and the sums of field lengths without them.
  const fieldCount = Math.max(0, ...parts.map((p) => p.index.averageFieldLength.length))
  const sums = new Float64Array(fieldCount)
  let documentCount = 0
  for (const p of parts) {
    let kept = p.index.documentCount
    for (let f = 0; f < fieldCount; f++) sums[f] = (sums[f] as number) + (p.index.averageFieldLength[f] ?? 0) * kept
    for (let s = 0; s < p.index.nextId; s++) {
      if (p.idOf(s) !== undefined) continue
      kept--
      for (let f = 0; f < fieldCount; f++) sums[f] = (sums[f] as number) - p.index.fieldLength(s, f)
    }
    documentCount += kept
  }
  const averageFieldLength = Array.from(sums, (s) => (documentCount ? s / documentCount : 0))
  const { terms, at } = mergeTerms(parts.map((p) => p.index.terms))
  const partOf = (short: number) => {
    let p = parts.length - 1
    while (p > 0 && (bases[p] as number) > short) p--
    return p
  }
  return {
    documentCount,
    nextId,
    averageFieldLength,
    terms,
    postings(i) {
      const lists: FieldPostings[][] = Array.from({ length: fieldCount }, () => [])
      const offsets: number[][] = Array.from({ length: fieldCount }, () => [])
      parts.forEach((p, pi) => {
        const local = at[pi]?.[i] ?? -1
        if (local < 0) return
        p.index.postings(local).forEach((list, f) => {
          if (!list) return
          lists[f]?.push(list)
          offsets[f]?.push(pi)
        })
      })
      const out: (FieldPostings | undefined)[] = []
      for (let f = 0; f < fieldCount; f++) {
        const ls = lists[f] as FieldPostings[]
        const n = ls.reduce((a, l) => a + l.shorts.length, 0)
        const shorts = new Int32Array(n)
        const counts = new Int32Array(n)
        let k = 0
        ls.forEach((l, j) => {
          const pi = (offsets[f] as number[])[j] as number
          const part = parts[pi] as IndexPart
          const base = bases[pi] as number
          for (let x = 0; x < l.shorts.length; x++) {
            const s = l.shorts[x] as number
            if (part.idOf(s) === undefined) continue
            shorts[k] = base + s
            counts[k++] = l.counts[x] as number
          }
        })
        out.push(k ? { shorts: shorts.subarray(0, k), counts: counts.subarray(0, k) } : undefined)
      }
      return out as TermPostings
    },
    docId(short) {
      const p = partOf(short)
      return (parts[p] as IndexPart).idOf(short - (bases[p] as number))
    },
    fieldLength(short, fieldId) {
      const p = partOf(short)
      return (parts[p] as IndexPart).index.fieldLength(short - (bases[p] as number), fieldId)
    },
  }
}

/** A part whose documents' catalog ids are in `map` by short id (-1: hidden by the fold). */
export function mappedPart(index: ScoringIndex, map: ArrayLike<number>): IndexPart {
  return {
    index,
    idOf(short) {
      const id = map[short]
      return id === undefined || id < 0 ? undefined : id
    },
  }
}
