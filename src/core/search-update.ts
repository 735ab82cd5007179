/**
 * An index updated from an earlier one: the documents it keeps are taken from the earlier index's postings, the new
 * ones from their own index, and the result is the index a build from nothing over the same documents in the same
 * order gives (IndexBuilder), byte for byte. A tier whose pin moves changes a few learnings of thousands; updating
 * its index costs a pass over the earlier postings instead of reading, parsing and counting every learning again.
 *
 * Each document's short id is its position, and its id in the index is that position too (a tier's documents are
 * numbered so: rebuild.ts). Every field of a document is present (buildSearchDoc gives each a string), so its
 * length in the earlier document table is all the average needs.
 */
import { indexOptions } from './search.js'
import type { IndexDoc } from './search.js'
import type { BuiltParts } from './search-parts.js'
import { VarintWriter, decodePostings } from './search-postings.js'
import type { FieldPostings } from './search-postings.js'

/** What an update reads of the earlier index. */
export interface EarlierIndex {
  /** Its terms, sorted by code unit. */
  terms: readonly string[]
  /** The postings of terms[i] in the cache's binary form (search-postings.ts). */
  postingsBytes(i: number): Uint8Array
  nextId: number
  fieldLength(short: number, fieldId: number): number
}

/**
 * The parts of the index over `from.length` documents: the document at short id s is the earlier index's document
 * `from[s]` (kept), or, where `from[s]` is -1, the next document of `added` — the new documents' own index, built in
 * their order by an IndexBuilder given each one's short id here as its id (their term counts folded as they are read,
 * not held: with 45,000 of 100,000 learnings changed, held counts were ~70 MB more of a rebuild's peak). Kept
 * documents keep their earlier order (a tier's tree order): a `from` that does not ascend over its kept documents is
 * refused (the caller builds from nothing). Throws when the earlier postings do not hold together (the caller builds
 * from nothing too).
 */
export function updateIndexParts(earlier: EarlierIndex, from: Int32Array, added: BuiltParts): BuiltParts {
  const { fields } = indexOptions()
  const fieldCount = fields.length
  const n = from.length
  const newShort = new Int32Array(earlier.nextId).fill(-1)
  let last = -1
  let next = 0
  for (let s = 0; s < n; s++) {
    const old = from[s] as number
    if (old < 0) {
      if (added.docs[next++]?.[0] !== s) throw new Error(`document ${s} is neither kept nor added`)
      continue
    }
    if (old <= last || old >= earlier.nextId) throw new Error('the kept documents are not in their earlier order')
    newShort[old] = s
    last = old
  }
  if (next !== added.docs.length) throw new Error('more documents added than placed')

  // The document table and each field's average length, in IndexBuilder.addCounted's order of operations.
  const averageFieldLength: number[] = []
  const docs: IndexDoc[] = []
  next = 0
  for (let s = 0; s < n; s++) {
    const old = from[s] as number
    const addedLengths = old < 0 ? (added.docs[next++] as IndexDoc)[1] : undefined
    const lengths: number[] = []
    for (let f = 0; f < fieldCount; f++) {
      const length = addedLengths ? addedLengths[f] : earlier.fieldLength(old, f)
      if (length === undefined) continue
      lengths[f] = length
      const avg = averageFieldLength[f] || 0
      averageFieldLength[f] = (avg * s + length) / (s + 1)
    }
    docs.push([s, lengths])
  }

  const terms: string[] = []
  const bytes: Uint8Array[] = []
  const shorts: number[] = []
  const counts: number[] = []
  /** One term's earlier postings (a cache file's: the caller builds from nothing when they do not hold together). */
  const earlierPostings = (raw: Uint8Array) => {
    try {
      return decodePostings(raw, fieldCount, earlier.nextId)
    } catch (err) {
      throw new Error(`the earlier postings do not hold together: ${(err as Error).message}`)
    }
  }
  /** One term's postings: the earlier ones (kept documents, renumbered) merged with the new documents'. */
  const encode = (old: Uint8Array | undefined, mine: Uint8Array | undefined): Uint8Array | null => {
    const before = old && earlierPostings(old)
    const fresh = mine && decodePostings(mine, fieldCount, added.docs.length)
    const w = new VarintWriter()
    let any = false
    let moved = false
    for (let f = 0; f < fieldCount; f++) {
      shorts.length = 0
      counts.length = 0
      const a = before?.[f]
      const b = fresh?.[f]
      if (b) moved = true
      let i = 0
      let j = 0
      // Both lists ascend (a new document's short id is its id in `added`): merged in order.
      while ((a && i < a.shorts.length) || (b && j < b.shorts.length)) {
        const s = a && i < a.shorts.length ? (newShort[a.shorts[i] as number] as number) : Infinity
        const t = b && j < b.shorts.length ? ((added.docs[b.shorts[j] as number] as IndexDoc)[0] as number) : Infinity
        if (s < 0) {
          moved = true
          i++
        } else if (s < t) {
          if (s !== (a as FieldPostings).shorts[i]) moved = true
          shorts.push(s)
          counts.push((a as FieldPostings).counts[i++] as number)
        } else {
          shorts.push(t)
          counts.push((b as FieldPostings).counts[j++] as number)
        }
      }
      w.push(shorts.length)
      let prev = 0
      for (const s of shorts) {
        w.push(s - prev)
        prev = s
      }
      for (const c of counts) w.push(c)
      if (shorts.length) any = true
    }
    // A term no document moved in keeps its earlier bytes (most terms, when a pin's change is small).
    if (!any) return null
    return old && !moved ? old : w.bytes().slice()
  }
  let i = 0
  let k = 0
  while (i < earlier.terms.length || k < added.terms.length) {
    const a = earlier.terms[i]
    const b = added.terms[k]
    const term = b === undefined || (a !== undefined && a < b) ? (a as string) : b
    const old = term === a ? earlier.postingsBytes(i++) : undefined
    const mine = term === b ? added.postingsBytes(k++) : undefined
    const out = encode(old, mine)
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
