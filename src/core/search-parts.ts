/**
 * The search index written straight into its cached parts (IndexParts: header, sorted terms, each term's postings as
 * JSON, and the documents by short id), byte for byte what `splitIndex(buildIndex(docs))` gives, without building a
 * minisearch index first. At 100,000 learnings minisearch's `add` (a radix tree insert per token), its `toJSON`
 * (a Map of Maps per term, turned into objects) and the garbage they leave took ~12 s of a 38 s rebuild; this reads
 * each document once and keeps one flat array of numbers per term and field.
 *
 * The tokenizer, term processing and fields are those of `indexOptions()`, so a change to them changes both alike;
 * test/unit/core/search-parts.test.ts holds the two outputs equal.
 */
import type { IndexDoc, IndexParts, SearchDoc } from './search.js'
import { indexOptions } from './search.js'

/** IndexParts whose postings are made into JSON one term at a time (the writer streams them to the cache file). */
export interface BuiltParts extends Omit<IndexParts, 'postings'> {
  /** The postings of `terms[i]` as splitIndex writes them. */
  postingsJson(i: number): string
}

/** One posting list: [short, count, short, count, …] in a typed array that doubles when full. */
interface List {
  data: Int32Array
  n: number
}

function push(list: List, short: number, count: number): void {
  if (list.n + 2 > list.data.length) {
    const bigger = new Int32Array(list.data.length * 2)
    bigger.set(list.data)
    list.data = bigger
  }
  list.data[list.n++] = short
  list.data[list.n++] = count
}

/**
 * The parts of the index over `docs`, the i-th document getting short id i (as minisearch numbers them).
 * Mirrors minisearch 7's `add`: a field's length is the number of distinct tokens (before term processing), the
 * average field length is updated incrementally in the same order of operations, and each processed term counts once
 * per occurrence in the field.
 */
export function buildIndexParts(docs: readonly SearchDoc[]): BuiltParts {
  const options = indexOptions()
  const fields = options.fields
  const tokenize = options.tokenize as (text: string, field?: string) => string[]
  const processTerm = options.processTerm as (
    term: string,
    field?: string,
  ) => string | string[] | null | undefined | false
  const fieldIds: Record<string, number> = {}
  fields.forEach((f, i) => (fieldIds[f] = i))
  const averageFieldLength: number[] = []
  /** term → its posting list per field. */
  const postings = new Map<string, (List | undefined)[]>()
  const out: (IndexDoc | undefined)[] = []
  const counts = new Map<string, number>()
  docs.forEach((doc, short) => {
    const lengths: number[] = []
    fields.forEach((field, fieldId) => {
      const value = (doc as unknown as Record<string, unknown>)[field]
      if (value == null) return
      const tokens = tokenize(String(value), field)
      const length = new Set(tokens).size
      lengths[fieldId] = length
      const avg = averageFieldLength[fieldId] || 0
      averageFieldLength[fieldId] = (avg * short + length) / (short + 1)
      counts.clear()
      for (const token of tokens) {
        const processed = processTerm(token, field)
        if (Array.isArray(processed)) for (const t of processed) counts.set(t, (counts.get(t) ?? 0) + 1)
        else if (processed) counts.set(processed, (counts.get(processed) ?? 0) + 1)
      }
      for (const [term, n] of counts) {
        let byField = postings.get(term)
        if (!byField) postings.set(term, (byField = []))
        push((byField[fieldId] ??= { data: new Int32Array(4), n: 0 }), short, n)
      }
    })
    out.push([doc.id, lengths])
  })
  const terms = [...postings.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return {
    header: {
      documentCount: docs.length,
      nextId: docs.length,
      fieldIds,
      averageFieldLength,
      dirtCount: 0,
      serializationVersion: 2,
    },
    terms,
    postingsJson: (i) => postingsJson(postings.get(terms[i] as string) ?? []),
    docs: out,
  }
}

/** `{"<fieldId>":{"<short>":count,…},…}`, keys ascending, as JSON.stringify writes an object of integer keys. */
function postingsJson(byField: readonly (List | undefined)[]): string {
  const parts: string[] = []
  byField.forEach((list, fieldId) => {
    if (!list) return
    const pairs: string[] = []
    for (let i = 0; i < list.n; i += 2) pairs.push(`"${list.data[i]}":${list.data[i + 1]}`)
    parts.push(`"${fieldId}":{${pairs.join(',')}}`)
  })
  return `{${parts.join(',')}}`
}
