/**
 * The search index in the parts the cache holds: the header, the sorted terms, each term's postings in binary
 * (src/core/search-postings.ts), and the documents by short id. It holds what minisearch's own index over the same
 * documents holds (its `toJSON`), without building one: at 100,000 learnings minisearch's `add` (a radix tree insert
 * per token), its `toJSON` and the garbage they leave took ~12 s of a 38 s rebuild; this reads each document once and
 * keeps one flat array of numbers per term and field.
 *
 * The tokenizer, term processing and fields are those of `indexOptions()`; test/unit/core/search-parts.test.ts holds
 * the parts equal to minisearch's serialized index.
 */
import type { CatalogEntry, IndexDoc, IndexHeader, SearchDoc } from './search.js'
import { buildCatalogEntry, buildSearchDoc, indexOptions } from './search.js'
import type { Learning } from './learning.js'
import { decodePostings } from './search-postings.js'
import { owned } from './owned.js'
import { processTerm } from './terms.js'
import type { ScoringIndex } from './search-score.js'

/** The index in parts; the postings are encoded one term at a time (the writer streams them to the cache file). */
export interface BuiltParts {
  header: IndexHeader
  terms: string[]
  /** The postings of `terms[i]` in binary (src/core/search-postings.ts). */
  postingsBytes(i: number): Uint8Array
  docs: (IndexDoc | undefined)[]
}

/**
 * One posting list while the index is built: its (short-id gap, count) pairs as interleaved unsigned LEB128 varints
 * in a byte array that doubles when full. A posting takes about two bytes here where a pair of 32-bit numbers took
 * eight: at 100,000 learnings the lists were ~60 MB of a rebuild's peak.
 */
interface List {
  bytes: Uint8Array
  length: number
  /** Postings held. */
  n: number
  /** The last short id pushed. */
  last: number
}

function pushVarint(list: List, value: number): void {
  let v = value >>> 0
  while (v >= 0x80) {
    list.bytes[list.length++] = (v & 0x7f) | 0x80
    v >>>= 7
  }
  list.bytes[list.length++] = v
}

function push(list: List, short: number, count: number): void {
  // Two varints of at most five bytes each.
  if (list.length + 10 > list.bytes.length) {
    const bigger = new Uint8Array(list.bytes.length * 2)
    bigger.set(list.bytes.subarray(0, list.length))
    list.bytes = bigger
  }
  pushVarint(list, short - list.last)
  pushVarint(list, count)
  list.last = short
  list.n++
}

/**
 * One term's postings in the cache's binary form (src/core/search-postings.ts: per field its count n, its n gaps,
 * its n counts) straight from the lists' interleaved varints: each field's varints copied, gaps first, then counts,
 * with no number decoded. `lists[f]` undefined: the term is not in field f.
 */
function encodeLists(lists: readonly (List | undefined)[], fieldCount: number): Uint8Array {
  let size = 0
  for (let f = 0; f < fieldCount; f++) size += 5 + (lists[f]?.length ?? 0)
  const out = new Uint8Array(size)
  let at = 0
  for (let f = 0; f < fieldCount; f++) {
    const list = lists[f]
    let n = list?.n ?? 0
    while (n >= 0x80) {
      out[at++] = (n & 0x7f) | 0x80
      n >>>= 7
    }
    out[at++] = n
    if (!list) continue
    // Two passes over the pairs: the first copies every first varint (the gaps), the second every second (the counts).
    for (const second of [false, true]) {
      let odd = false
      for (let i = 0; i < list.length; i++) {
        const b = list.bytes[i] as number
        if (odd === second) out[at++] = b
        if (b < 0x80) odd = !odd
      }
    }
  }
  return out.subarray(0, at)
}

/**
 * One document as the index counts it, field by field (undefined: no such field): its length (the number of distinct
 * tokens, before term processing) and each processed term with how often it occurs. Plain arrays of strings and
 * numbers, so that a worker thread can count a document and hand over this instead of its text (parse-file.ts).
 */
export type CountedDoc = ({ length: number; terms: string[]; counts: number[] } | undefined)[]

/** The term counts of `doc` (without its id), field by field, as the index's `add` would count them. */
export function countDoc(doc: Omit<SearchDoc, 'id'>): CountedDoc {
  const { fields, tokenize } = indexOptions()
  return fields.map((field) => {
    const value = doc[field]
    if (value == null) return undefined
    const tokens = tokenize(String(value))
    return tokens.length > MAX_SLOTS ? countByMaps(tokens) : countBySlots(tokens)
  })
}

/**
 * The tokens countDoc has met in this process, each with a slot, and the slot's term (its processTerm) as a term id: a
 * store's documents say the same tokens again and again, and a token met before costs one lookup here where counting
 * it in maps of the document's own took five (its count, its term, the term's count) and regrew the maps at every
 * field. Per field, a stamp tells the slots and terms met in it. Bounded: the table starts again when a field would
 * fill it; a token is kept as a copy of its own (core/owned.ts: a slice keeps its whole text alive).
 */
const MAX_SLOTS = 65_536
const slotOf = new Map<string, number>()
const termOfSlot = new Int32Array(MAX_SLOTS)
const slotStamp = new Int32Array(MAX_SLOTS)
const termIdOf = new Map<string, number>()
const terms: string[] = []
const termStamp = new Int32Array(MAX_SLOTS)
const termCount = new Int32Array(MAX_SLOTS)
let stamp = 0

/**
 * A token longer than this gets no slot, and is counted in the field's own set: the table would keep it whole until it
 * starts again (a body's token can be 64 KB: 65,536 of them were gigabytes a hostile tier could make cheaply).
 */
const MAX_SLOT_CHARS = 64

function countBySlots(tokens: readonly string[]): { length: number; terms: string[]; counts: number[] } {
  // A long token's term takes a term id without a slot: the terms, not only the slots, must fit the tables.
  if (Math.max(slotOf.size, terms.length) + tokens.length > MAX_SLOTS || stamp >= 0x7fffffff) {
    slotOf.clear()
    termIdOf.clear()
    terms.length = 0
    slotStamp.fill(0)
    termStamp.fill(0)
    stamp = 0
  }
  stamp++
  let length = 0
  const order: number[] = []
  let long: Set<string> | undefined
  const idOf = (term: string | null) => {
    let id = term === null ? -1 : termIdOf.get(term)
    if (id === undefined) termIdOf.set(term as string, (id = terms.push(term as string) - 1))
    return id
  }
  for (const token of tokens) {
    let id: number
    if (token.length > MAX_SLOT_CHARS) {
      if (!(long ??= new Set()).has(token)) {
        long.add(token)
        length++
      }
      id = idOf(processTerm(token))
    } else {
      let slot = slotOf.get(token)
      if (slot === undefined) {
        slot = slotOf.size
        slotOf.set(owned(token), slot)
        termOfSlot[slot] = idOf(processTerm(token))
      }
      if (slotStamp[slot] !== stamp) {
        slotStamp[slot] = stamp
        length++
      }
      id = termOfSlot[slot] as number
    }
    if (id < 0) continue
    if (termStamp[id] !== stamp) {
      termStamp[id] = stamp
      termCount[id] = 0
      order.push(id)
    }
    termCount[id] = (termCount[id] as number) + 1
  }
  return { length, terms: order.map((id) => terms[id] as string), counts: order.map((id) => termCount[id] as number) }
}

/** countBySlots for a field of more tokens than its table holds: each distinct token counted, then processed, in maps. */
function countByMaps(tokens: readonly string[]): { length: number; terms: string[]; counts: number[] } {
  const raw = new Map<string, number>()
  for (const token of tokens) raw.set(token, (raw.get(token) ?? 0) + 1)
  const counts = new Map<string, number>()
  for (const [token, n] of raw) {
    const processed = processTerm(token)
    if (processed) counts.set(processed, (counts.get(processed) ?? 0) + n)
  }
  return { length: raw.size, terms: [...counts.keys()], counts: [...counts.values()] }
}

/**
 * The index built one document at a time (a rebuild drops each document's text once it is added): the n-th document
 * added gets short id n, as minisearch numbers them. Mirrors minisearch 7's `add`: a field's length is the number of
 * distinct tokens (before term processing), the average field length is updated incrementally in the same order of
 * operations, and each processed term counts once per occurrence in the field.
 */
export class IndexBuilder {
  private readonly fieldCount = indexOptions().fields.length
  private readonly averageFieldLength: number[] = []
  /** term → its posting list per field. */
  private readonly postings = new Map<string, (List | undefined)[]>()
  private readonly docs: (IndexDoc | undefined)[] = []

  add(doc: SearchDoc): void {
    this.addCounted(doc.id, countDoc(doc))
  }

  /** Adds the document of catalog id `id` from its term counts (countDoc, here or in a worker). */
  addCounted(id: number, counted: CountedDoc): void {
    const { averageFieldLength, postings } = this
    const short = this.docs.length
    const lengths: number[] = []
    for (let fieldId = 0; fieldId < this.fieldCount; fieldId++) {
      const field = counted[fieldId]
      if (!field) continue
      const { length, terms, counts } = field
      lengths[fieldId] = length
      const avg = averageFieldLength[fieldId] || 0
      averageFieldLength[fieldId] = (avg * short + length) / (short + 1)
      for (let i = 0; i < terms.length; i++) {
        const term = terms[i] as string
        let byField = postings.get(term)
        if (!byField) postings.set(term, (byField = []))
        push((byField[fieldId] ??= { bytes: new Uint8Array(16), length: 0, n: 0, last: 0 }), short, counts[i] as number)
      }
    }
    this.docs.push([id, lengths])
  }

  /** The parts of the index over the documents added. */
  finish(): BuiltParts {
    const { fields } = indexOptions()
    const fieldIds: Record<string, number> = {}
    fields.forEach((f, i) => (fieldIds[f] = i))
    const terms = [...this.postings.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    return {
      header: {
        documentCount: this.docs.length,
        nextId: this.docs.length,
        fieldIds,
        averageFieldLength: this.averageFieldLength,
        dirtCount: 0,
        serializationVersion: 2,
      },
      terms,
      postingsBytes: (i) => encodeLists(this.postings.get(terms[i] as string) ?? [], fields.length),
      docs: this.docs,
    }
  }
}

/** The parts of the index over `docs`, the i-th document getting short id i. */
export function buildIndexParts(docs: readonly SearchDoc[]): BuiltParts {
  const b = new IndexBuilder()
  for (const d of docs) b.add(d)
  return b.finish()
}

/** Parts built in memory as an index to score. */
export function partsIndex(parts: BuiltParts): ScoringIndex {
  const { header } = parts
  const fieldCount = Object.keys(header.fieldIds).length
  return {
    documentCount: header.documentCount,
    nextId: header.nextId,
    averageFieldLength: header.averageFieldLength,
    terms: parts.terms,
    postings: (i) => decodePostings(parts.postingsBytes(i), fieldCount, header.nextId),
    docId: (short) => parts.docs[short]?.[0],
    fieldLength: (short, fieldId) => parts.docs[short]?.[1][fieldId] ?? 0,
  }
}

/** Catalog and index of learnings held in memory (`git learn eval --learnings <dir>`), every one in the project tier. */
export function buildFeed(learnings: readonly Learning[]): { catalog: CatalogEntry[]; index: ScoringIndex } {
  const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
  return { catalog, index: partsIndex(buildIndexParts(learnings.map((l, id) => buildSearchDoc(id, l)))) }
}
