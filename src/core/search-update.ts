/**
 * An index updated from an earlier one: the documents it keeps are taken from the earlier index's postings, the new
 * ones from their term counts, and the result is the index a build from nothing over the same documents in the same
 * order gives (IndexBuilder), byte for byte. A tier whose pin moves changes a few learnings of thousands; updating
 * its index costs a pass over the earlier postings instead of reading, parsing and counting every learning again.
 *
 * Each document's short id is its position, and its id in the index is that position too (a tier's documents are
 * numbered so: rebuild.ts). Every field of a document is present (buildSearchDoc gives each a string), so its
 * length in the earlier document table is all the average needs.
 */
import { indexOptions } from './search.js'
import type { IndexDoc } from './search.js'
import type { BuiltParts, CountedDoc } from './search-parts.js'
import { VarintWriter } from './search-postings.js'

/** What an update reads of the earlier index. */
export interface EarlierIndex {
  /** Its terms, sorted by code unit. */
  terms: readonly string[]
  /** The postings of terms[i] in the cache's binary form (search-postings.ts). */
  postingsBytes(i: number): Uint8Array
  nextId: number
  fieldLength(short: number, fieldId: number): number
}

/** One field's postings of a new document's term: short ids ascending and counts. */
interface Added {
  shorts: number[]
  counts: number[]
}

/** Reads the varints of one term's postings. */
class VarintReader {
  at = 0
  constructor(private readonly bytes: Uint8Array) {}

  read(): number {
    let v = 0
    let shift = 0
    for (;;) {
      if (this.at >= this.bytes.length || shift > 28) throw new Error('the earlier postings are cut short or malformed')
      const b = this.bytes[this.at++] as number
      v += (b & 0x7f) * 2 ** shift
      if (b < 0x80) return v
      shift += 7
    }
  }
}

/**
 * The parts of the index over `from.length` documents: the document at short id s is the earlier index's document
 * `from[s]` (kept), or, where `from[s]` is -1, the counted document `added.get(s)`. Kept documents keep their earlier
 * order (a tier's tree order): a `from` that does not ascend over its kept documents is refused (the caller builds
 * from nothing). Throws when the earlier postings do not hold together (the caller builds from nothing too).
 */
export function updateIndexParts(
  earlier: EarlierIndex,
  from: Int32Array,
  added: ReadonlyMap<number, CountedDoc>,
): BuiltParts {
  const { fields } = indexOptions()
  const fieldCount = fields.length
  const n = from.length
  const newShort = new Int32Array(earlier.nextId).fill(-1)
  let last = -1
  for (let s = 0; s < n; s++) {
    const old = from[s] as number
    if (old < 0) {
      if (!added.has(s)) throw new Error(`document ${s} is neither kept nor added`)
      continue
    }
    if (old <= last || old >= earlier.nextId) throw new Error('the kept documents are not in their earlier order')
    newShort[old] = s
    last = old
  }

  // The document table and each field's average length, in IndexBuilder.addCounted's order of operations.
  const averageFieldLength: number[] = []
  const docs: IndexDoc[] = []
  for (let s = 0; s < n; s++) {
    const old = from[s] as number
    const counted = old < 0 ? added.get(s) : undefined
    const lengths: number[] = []
    for (let f = 0; f < fieldCount; f++) {
      const length = counted ? counted[f]?.length : earlier.fieldLength(old, f)
      if (length === undefined) continue
      lengths[f] = length
      const avg = averageFieldLength[f] || 0
      averageFieldLength[f] = (avg * s + length) / (s + 1)
    }
    docs.push([s, lengths])
  }

  // The new documents' postings by term and field, short ids ascending (added in ascending order).
  const fresh = new Map<string, (Added | undefined)[]>()
  for (const s of [...added.keys()].sort((a, b) => a - b)) {
    const counted = added.get(s) as CountedDoc
    for (let f = 0; f < fieldCount; f++) {
      const field = counted[f]
      if (!field) continue
      field.terms.forEach((term, i) => {
        let byField = fresh.get(term)
        if (!byField) fresh.set(term, (byField = []))
        const list = (byField[f] ??= { shorts: [], counts: [] })
        list.shorts.push(s)
        list.counts.push(field.counts[i] as number)
      })
    }
  }
  const freshTerms = [...fresh.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

  const terms: string[] = []
  const bytes: Uint8Array[] = []
  const shorts: number[] = []
  const counts: number[] = []
  /** One term's postings: the earlier ones (kept documents, renumbered) merged with the new documents'. */
  const encode = (old: Uint8Array | undefined, mine: readonly (Added | undefined)[] | undefined): Uint8Array | null => {
    const r = old && new VarintReader(old)
    const w = new VarintWriter()
    let any = false
    let moved = false
    for (let f = 0; f < fieldCount; f++) {
      shorts.length = 0
      counts.length = 0
      const add = mine?.[f]
      if (add) moved = true
      let j = 0
      const takeAddedBelow = (limit: number) => {
        while (add && j < add.shorts.length && (add.shorts[j] as number) < limit) {
          shorts.push(add.shorts[j] as number)
          counts.push(add.counts[j] as number)
          j++
        }
      }
      if (r) {
        const m = r.read()
        if (m > earlier.nextId) throw new Error('the earlier postings name more documents than the index holds')
        const olds = new Int32Array(m)
        let short = 0
        for (let i = 0; i < m; i++) {
          short += r.read()
          if (short >= earlier.nextId) throw new Error('the earlier postings name a document the index does not hold')
          olds[i] = short
        }
        for (let i = 0; i < m; i++) {
          const c = r.read()
          const s = newShort[olds[i] as number] as number
          if (s !== olds[i]) moved = true
          if (s < 0) continue
          takeAddedBelow(s)
          shorts.push(s)
          counts.push(c)
        }
      }
      takeAddedBelow(Infinity)
      w.push(shorts.length)
      let prev = 0
      for (const s of shorts) {
        w.push(s - prev)
        prev = s
      }
      for (const c of counts) w.push(c)
      if (shorts.length) any = true
    }
    if (r && r.at !== old.length) throw new Error('the earlier postings are longer than their fields')
    // A term no document moved in keeps its earlier bytes (most terms, when a pin's change is small).
    if (!any) return null
    return old && !moved ? old : w.bytes().slice()
  }
  let i = 0
  let k = 0
  while (i < earlier.terms.length || k < freshTerms.length) {
    const a = earlier.terms[i]
    const b = freshTerms[k]
    const term = b === undefined || (a !== undefined && a < b) ? (a as string) : b
    const old = term === a ? earlier.postingsBytes(i++) : undefined
    if (term === b) k++
    const out = encode(old, fresh.get(term))
    if (out) {
      terms.push(term)
      bytes.push(out)
    }
  }
  const fieldIds: Record<string, number> = {}
  fields.forEach((f, id) => (fieldIds[f] = id))
  return {
    header: { documentCount: n, nextId: n, fieldIds, averageFieldLength, dirtCount: 0, serializationVersion: 2 },
    terms,
    postingsBytes: (t) => bytes[t] as Uint8Array,
    docs,
  }
}
