/**
 * One term's postings in the cache's binary form: for each field of the index (by field id), the number of documents
 * n, then n short-id gaps (the first short id itself, then the difference to the previous), then n term counts, each
 * an unsigned LEB128 varint. Short ids ascend, so the gaps are small: at 100,000 learnings a posting takes about two
 * bytes where its JSON (`"12345":2,`) took ten, and reading it is a loop over bytes instead of JSON.parse of an
 * object with a key per document.
 */

/** One field's postings of a term: short ids ascending and the term's count in each. */
export interface FieldPostings {
  shorts: Int32Array
  counts: Int32Array
}

/** A term's postings by field id (undefined: the term is not in that field). */
export type TermPostings = readonly (FieldPostings | undefined)[]

/** Appends varints to a growing byte buffer. */
export class VarintWriter {
  private buf = new Uint8Array(64)
  length = 0

  push(value: number): void {
    if (this.length + 5 > this.buf.length) {
      const bigger = new Uint8Array(this.buf.length * 2)
      bigger.set(this.buf)
      this.buf = bigger
    }
    let v = value >>> 0
    while (v >= 0x80) {
      this.buf[this.length++] = (v & 0x7f) | 0x80
      v >>>= 7
    }
    this.buf[this.length++] = v
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length)
  }
}

/** The bytes of one term's postings; `lists[f]` is [short, count, short, count, …] (n values used). */
export function encodePostings(
  lists: readonly ({ data: Int32Array; n: number } | undefined)[],
  fieldCount: number,
): Uint8Array {
  const w = new VarintWriter()
  for (let f = 0; f < fieldCount; f++) {
    const list = lists[f]
    const n = list ? list.n / 2 : 0
    w.push(n)
    if (!list) continue
    let prev = 0
    for (let i = 0; i < list.n; i += 2) {
      const short = list.data[i] as number
      w.push(short - prev)
      prev = short
    }
    for (let i = 1; i < list.n; i += 2) w.push(list.data[i] as number)
  }
  return w.bytes()
}

/**
 * The postings of one term read back. Throws on bytes that are not a whole record of `fieldCount` fields with short
 * ids below `nextId` (a torn or foreign cache file): the reader treats that as a miss.
 */
export function decodePostings(bytes: Uint8Array, fieldCount: number, nextId: number): TermPostings {
  let at = 0
  // A varint of more than one byte (or none left: `bytes[at]` is undefined), as a loop over its bytes.
  const readLong = (): number => {
    let v = 0
    let shift = 0
    for (;;) {
      if (at >= bytes.length || shift > 28) throw new Error('the postings are cut short or malformed')
      const b = bytes[at++] as number
      v += (b & 0x7f) * 2 ** shift
      if (b < 0x80) return v
      shift += 7
    }
  }
  // Most gaps and counts take one byte: read without readLong's loop, in a function small enough to be inlined (at
  // 100,000 learnings a pasted failure's ~600,000 postings were ~30 ms of its search through readLong alone, ~20 ms
  // so; the same test written out in each loop measured no faster).
  const read = (): number => {
    const b = bytes[at]
    if (b !== undefined && b < 0x80) {
      at++
      return b
    }
    return readLong()
  }
  const out: (FieldPostings | undefined)[] = []
  for (let f = 0; f < fieldCount; f++) {
    const n = read()
    if (!n) {
      out.push(undefined)
      continue
    }
    if (n > nextId) throw new Error('the postings name more documents than the index holds')
    const shorts = new Int32Array(n)
    const counts = new Int32Array(n)
    let short = 0
    for (let i = 0; i < n; i++) {
      const gap = read()
      if (i > 0 && gap === 0) throw new Error('the postings repeat a document')
      short += gap
      shorts[i] = short
    }
    if (short >= nextId) throw new Error('the postings name a document the index does not hold')
    for (let i = 0; i < n; i++) {
      const c = read()
      if (c < 1) throw new Error('the postings hold a count below 1')
      counts[i] = c
    }
    out.push({ shorts, counts })
  }
  if (at !== bytes.length) throw new Error('the postings are longer than their fields')
  return out
}
