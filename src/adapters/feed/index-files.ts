/**
 * The three files of a search index (the project's, `terms|postings|docs-<key>`, or a pinned tier commit's,
 * `tier-index-<commit>-<code>.terms.json|.postings.bin|.docs.bin`): written from built parts, checked when read, and
 * opened as an index whose postings are read when scoring asks for a term.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { crc32 } from 'node:zlib'
import type { BuiltParts } from '../../core/search-parts.js'
import { decodePostings } from '../../core/search-postings.js'
import type { ScoringIndex } from '../../core/search-score.js'
import type { EarlierIndex } from '../../core/search-update.js'
import { writeAtomic, writeAtomicPieces } from '../state/cache-file.js'
import { ABSENT, isObject, readJson } from './cache-files.js'
import type { TermsFile } from './cache-files.js'
import { CACHE_FORMAT } from './feed-key.js'

export interface IndexFiles {
  terms: string
  postings: string
  docs: string
}

/** The files of a pinned tier commit's index, by their common prefix (a path without extension). */
export const tierIndexFiles = (prefix: string): IndexFiles => ({
  terms: `${prefix}.terms.json`,
  postings: `${prefix}.postings.bin`,
  docs: `${prefix}.docs.bin`,
})

/** Write the index's files (postings and documents first, the terms file last); `extra` goes into the terms file. */
export function writeIndexFiles(f: IndexFiles, parts: BuiltParts, extra: Record<string, unknown> = {}): void {
  const offsets: number[] = [0]
  let postings = 0
  writeAtomicPieces(f.postings, (write) =>
    parts.terms.forEach((_t, i) => {
      const bytes = parts.postingsBytes(i)
      postings = crc32(bytes, postings)
      offsets.push((offsets[i] as number) + write(bytes))
    }),
  )
  const table = docTable(parts)
  writeAtomic(f.docs, table)
  const crc = { postings, docs: crc32(table) }
  writeAtomic(
    f.terms,
    JSON.stringify({ format: CACHE_FORMAT, ...extra, header: parts.header, terms: parts.terms, offsets, crc }),
  )
}

/** docs file: per short id, the document's id (ABSENT: none) and its field lengths, uint32 little-endian. */
function docTable(parts: BuiltParts): Buffer {
  const width = 1 + Object.keys(parts.header.fieldIds).length
  const buf = Buffer.alloc(parts.docs.length * width * 4)
  parts.docs.forEach((d, short) => {
    buf.writeUInt32LE(d ? d[0] : ABSENT, short * width * 4)
    for (let f = 1; f < width; f++) buf.writeUInt32LE(d?.[1][f - 1] ?? 0, (short * width + f) * 4)
  })
  return buf
}

/** The terms file of an index, or undefined when it is missing, of another format or does not hold together. */
export function readIndexTerms(file: string): (TermsFile & Record<string, unknown>) | undefined {
  const t = readJson(file)
  if (
    !isObject(t) ||
    t['format'] !== CACHE_FORMAT ||
    !isObject(t['header']) ||
    !Array.isArray(t['terms']) ||
    !Array.isArray(t['offsets']) ||
    !isObject(t['crc']) ||
    !Number.isInteger(t['crc']['postings']) ||
    !Number.isInteger(t['crc']['docs'])
  )
    return undefined
  const terms = t as unknown as TermsFile & Record<string, unknown>
  const h = terms.header
  const fieldCount = isObject(h.fieldIds) ? Object.keys(h.fieldIds).length : -1
  if (
    !Number.isInteger(h.nextId) ||
    h.nextId < 0 ||
    typeof h.documentCount !== 'number' ||
    !Array.isArray(h.averageFieldLength) ||
    h.averageFieldLength.length > fieldCount ||
    !h.averageFieldLength.every((a) => typeof a === 'number')
  )
    return undefined
  if (
    terms.offsets.length !== terms.terms.length + 1 ||
    !terms.offsets.every((o, i) => Number.isInteger(o) && o >= (terms.offsets[i - 1] ?? 0))
  )
    return undefined
  return terms
}

/**
 * The index of its files, to score: the postings are read from the postings file when scoring asks for a term. A
 * document id at or above `ids` (or none) means a foreign or damaged file. Throws when the files do not match (the
 * caller rebuilds): sizes, the document table's CRC (a table zero-filled by a power loss has the right length, and
 * would name document 0 for every hit), and with `verifyPostings` the postings file's CRC (read whole: a rebuild
 * reusing a tier's index, where no caller would catch a damaged term later).
 */
export function openIndex(f: IndexFiles, t: TermsFile, ids: number, verifyPostings = false): ScoringIndex {
  const { terms, offsets, header } = t
  const postingsSize = statSync(f.postings, { throwIfNoEntry: false })?.size
  if (postingsSize !== offsets[offsets.length - 1]) throw new Error('the postings file does not match its offsets')
  if (verifyPostings && crc32(readFileSync(f.postings)) !== t.crc.postings)
    throw new Error('the postings file is damaged')
  const { view, width, fieldCount } = documentTable(f, t)
  return {
    documentCount: header.documentCount,
    nextId: header.nextId,
    averageFieldLength: header.averageFieldLength,
    terms,
    postings(i) {
      const start = offsets[i] as number
      const bytes = Buffer.allocUnsafe((offsets[i + 1] as number) - start)
      const fd = openSync(f.postings, 'r')
      try {
        for (let got = 0; got < bytes.length;) {
          const n = readSync(fd, bytes, got, bytes.length - got, start + got)
          if (n <= 0) throw new Error('the postings file is shorter than its offsets')
          got += n
        }
      } finally {
        closeSync(fd)
      }
      return decodePostings(bytes, fieldCount, header.nextId)
    },
    docId(short) {
      // Every short id of a table we wrote names a document: anything else is a foreign or damaged file.
      const id = view.getUint32(short * width * 4, true)
      if (id === ABSENT || id >= ids) throw new Error('the document table names no document')
      return id
    },
    fieldLength: (short, fieldId) => view.getUint32((short * width + 1 + fieldId) * 4, true),
  }
}

/** The document table of an index's files, checked against its terms file (size and CRC). */
function documentTable(f: IndexFiles, t: TermsFile): { view: DataView; width: number; fieldCount: number } {
  const table = readFileSync(f.docs)
  const fieldCount = Object.keys(t.header.fieldIds).length
  const width = 1 + fieldCount
  if (table.length !== t.header.nextId * width * 4) throw new Error('the document table does not match the index')
  if (crc32(table) !== t.crc.docs) throw new Error('the document table is damaged')
  return { view: new DataView(table.buffer, table.byteOffset, table.byteLength), width, fieldCount }
}

/**
 * An index's files read whole, for an update to build on (core/search-update.ts): the postings file checked
 * against its offsets and CRC, the document table against its CRC; throws when they do not hold together.
 */
export function readEarlierIndex(f: IndexFiles, t: TermsFile): EarlierIndex {
  const { terms, offsets, header } = t
  const postings = readFileSync(f.postings)
  if (postings.length !== offsets[offsets.length - 1]) throw new Error('the postings file does not match its offsets')
  if (crc32(postings) !== t.crc.postings) throw new Error('the postings file is damaged')
  const { view, width } = documentTable(f, t)
  return {
    terms,
    nextId: header.nextId,
    postingsBytes: (i) => postings.subarray(offsets[i] as number, offsets[i + 1] as number),
    fieldLength: (short, fieldId) => view.getUint32((short * width + 1 + fieldId) * 4, true),
  }
}
