/**
 * Duplicates (DESIGN section 4). An exact duplicate has the same normalized description and solution (compared by
 * a content hash). Similarity is the cosine of term-frequency vectors over the normalized description, trigger
 * and solution, stop words removed: 1 for the same words in the same proportions, 0 for no shared word.
 */
import type { Learning } from './learning.js'
import { sectionText, triggersOf } from './learning.js'
import type { LearningType } from './learning-schema.js'
import { fnv1a64 } from './secrets.js'

/** The section that holds a learning's fix or rule, per type. */
export const SOLUTION_SECTION: Record<LearningType, string> = {
  'error-solution': 'Solution',
  skill: 'Solution',
  pattern: 'Correct pattern',
  'anti-pattern': 'Correct pattern',
  decision: 'Decision',
  instinct: 'Action',
}

// Not terms.ts's tokenizer on purpose: similarity keeps numbers and paths (`v2`, `src/x.ts`), and the duplicate
// thresholds (DESIGN section 4) were set with these words and this stop list.
const STOP = new Set(
  'a an and are as at be but by can do does for from has have how if in into is it its not of on or so such that the their then there these this to use used uses using was when where which while will with you your we our after before'.split(
    ' ',
  ),
)

/** Lower-case words, markdown and punctuation dropped, numbers kept. */
export function normalizeText(text: string): string {
  return text
    .toLowerCase()
    .replace(/```[a-z]*\n?/g, ' ')
    .replace(/[^\p{L}\p{N}_$./-]+/gu, ' ')
    .replace(/(^|\s)[./-]+|(?<![./-])[./-]+(?=\s|$)/g, ' ') // from a run's start only: linear
    .replace(/\s+/g, ' ')
    .trim()
}

export function tokenize(text: string): string[] {
  return normalizeText(text)
    .split(' ')
    .filter((w) => w.length > 1 && !STOP.has(w))
}

export type TermVector = Map<string, number>

export function termVector(text: string): TermVector {
  const v: TermVector = new Map()
  for (const w of tokenize(text)) v.set(w, (v.get(w) ?? 0) + 1)
  return v
}

/** Cosine similarity of two term vectors, in [0, 1]. */
export function cosine(a: TermVector, b: TermVector): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (const [, x] of a) na += x * x
  for (const [, y] of b) nb += y * y
  const [small, big] = a.size < b.size ? [a, b] : [b, a]
  for (const [w, x] of small) dot += x * (big.get(w) ?? 0)
  return na && nb ? dot / Math.sqrt(na * nb) : 0
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

/** The solution text of a learning (the section its type keeps the fix in). */
export function solutionOf(l: Learning): string {
  const type = str(l.data.type) as LearningType
  return sectionText(l.body, SOLUTION_SECTION[type] ?? 'Solution') ?? ''
}

/** The text similarity is measured on: description (the title), trigger and solution. */
export function comparableText(l: Learning): string {
  return [str(l.data.description), triggersOf(l.data).join('\n'), solutionOf(l)].join('\n')
}

/** The content hash of a learning: FNV-1a 64 of its normalized description and solution. */
export function contentHash(l: Learning): string {
  return fnv1a64(`${normalizeText(str(l.data.description))}\n${normalizeText(solutionOf(l))}`)
}

/** Something a new learning is compared with: another learning, or a row of a NOTES.md table. */
export interface DedupeEntry {
  /** A learning's name, or `NOTES.md:<line>`. */
  id: string
  path: string
  /** The text shown in a diff. */
  text: string
  vector: TermVector
  /** Only learnings have one; NOTES.md rows are never exact duplicates. */
  hash?: string
  isLearning: boolean
}

export function learningEntry(l: Learning, fileText: string): DedupeEntry {
  return {
    id: l.name,
    path: l.path,
    text: fileText,
    vector: termVector(comparableText(l)),
    hash: contentHash(l),
    isLearning: true,
  }
}

export interface DedupeVerdict {
  exact?: DedupeEntry
  /** The most similar entry at or above `similar`. */
  near?: { entry: DedupeEntry; similarity: number }
  /** Learnings between `related` and `similar`, most similar first. */
  related: { entry: DedupeEntry; similarity: number }[]
}

/** Compare a candidate with every entry: exact by hash, near at or above `similar`, related at or above `related`. */
export function findDuplicates(
  candidate: Learning,
  entries: readonly DedupeEntry[],
  thresholds: { similar: number; related: number },
): DedupeVerdict {
  const hash = contentHash(candidate)
  const vector = termVector(comparableText(candidate))
  const verdict: DedupeVerdict = { related: [] }
  let best: { entry: DedupeEntry; similarity: number } | undefined
  for (const entry of entries) {
    if (entry.hash !== undefined && entry.hash === hash) {
      verdict.exact ??= entry
      continue
    }
    const similarity = cosine(vector, entry.vector)
    if (similarity >= thresholds.similar) {
      if (!best || similarity > best.similarity) best = { entry, similarity }
    } else if (similarity >= thresholds.related && entry.isLearning) verdict.related.push({ entry, similarity })
  }
  if (best) verdict.near = best
  verdict.related.sort((a, b) => b.similarity - a.similarity)
  return verdict
}

/**
 * The rows of the decision-log and technical-debt tables of a NOTES.md: markdown tables under a heading that says
 * "decision" or "debt" (all tables when no heading does). Header and separator rows are skipped.
 */
export function parseNotesRows(markdown: string, path = 'NOTES.md'): DedupeEntry[] {
  const lines = markdown.split('\n')
  const anyHeading = lines.some((l) => /^#{1,6}\s.*(decision|debt)/i.test(l))
  const out: DedupeEntry[] = []
  let inScope = !anyHeading
  let tableRow = 0
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim()
    const h = /^#{1,6}\s+(.*)$/.exec(line)
    if (h) {
      inScope = !anyHeading || /(decision|debt)/i.test(h[1] as string)
      tableRow = 0
      continue
    }
    if (!line.startsWith('|')) {
      tableRow = 0
      continue
    }
    tableRow++
    if (!inScope || tableRow === 1 || /^\|[\s:|-]+\|?$/.test(line)) continue
    const cells = line
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim())
      .filter(Boolean)
    const text = cells.join(' — ')
    if (tokenize(text).length < 3) continue
    out.push({ id: `${path}:${i + 1}`, path, text: `${line}\n`, vector: termVector(text), isLearning: false })
  }
  return out
}

/**
 * findDuplicates over many candidates against a store that grows as they are admitted (an import of 10,000): the
 * same verdicts, but each candidate meets only the entries that share a term with it (an inverted index of the term
 * vectors), and exact twins are found by their hash. Counts are integers, so the dot products, and the verdicts,
 * equal findDuplicates' exactly.
 */
export class DedupeIndex {
  private readonly entries: DedupeEntry[] = []
  private readonly norms: number[] = []
  private readonly postings = new Map<string, number[]>()
  private readonly byHash = new Map<string, number[]>()
  private dot = new Float64Array(0)
  private touched = new Int32Array(0)

  constructor(entries: readonly DedupeEntry[] = []) {
    for (const e of entries) this.add(e)
  }

  add(e: DedupeEntry): void {
    const i = this.entries.length
    this.entries.push(e)
    let n = 0
    for (const [w, x] of e.vector) {
      n += x * x
      const list = this.postings.get(w)
      if (list) list.push(i)
      else this.postings.set(w, [i])
    }
    this.norms.push(n)
    if (e.hash !== undefined) {
      const list = this.byHash.get(e.hash)
      if (list) list.push(i)
      else this.byHash.set(e.hash, [i])
    }
  }

  /** The verdict of findDuplicates(candidate, entries without those in `skip`, thresholds). */
  find(
    candidate: Learning,
    thresholds: { similar: number; related: number },
    skip: ReadonlySet<string> = new Set(),
  ): DedupeVerdict {
    const hash = contentHash(candidate)
    const vector = termVector(comparableText(candidate))
    const verdict: DedupeVerdict = { related: [] }
    const exactAt = new Set<number>()
    for (const i of this.byHash.get(hash) ?? []) {
      const e = this.entries[i] as DedupeEntry
      if (skip.has(e.id)) continue
      verdict.exact ??= e
      exactAt.add(i)
    }
    let na = 0
    // Dot products accumulated in a reused array over the entries that share a term (listed once in `touched`).
    if (this.dot.length < this.entries.length) {
      this.dot = new Float64Array(Math.max(this.entries.length, this.dot.length * 2, 64))
      this.touched = new Int32Array(this.dot.length)
    }
    const dot = this.dot
    const touched = this.touched
    let nt = 0
    for (const [w, x] of vector) {
      na += x * x
      const list = this.postings.get(w)
      if (!list) continue
      for (const i of list) {
        if (dot[i] === 0) touched[nt++] = i
        dot[i] = (dot[i] as number) + x * ((this.entries[i] as DedupeEntry).vector.get(w) ?? 0)
      }
    }
    let best: { entry: DedupeEntry; similarity: number; at: number } | undefined
    const related: { entry: DedupeEntry; similarity: number; at: number }[] = []
    for (let k = 0; k < nt; k++) {
      const i = touched[k] as number
      const d = dot[i] as number
      dot[i] = 0
      const e = this.entries[i] as DedupeEntry
      if (exactAt.has(i) || skip.has(e.id)) continue
      const nb = this.norms[i] as number
      const similarity = na && nb ? d / Math.sqrt(na * nb) : 0
      if (similarity >= thresholds.similar) {
        if (!best || similarity > best.similarity || (similarity === best.similarity && i < best.at))
          best = { entry: e, similarity, at: i }
      } else if (similarity >= thresholds.related && e.isLearning) related.push({ entry: e, similarity, at: i })
    }
    if (best) verdict.near = { entry: best.entry, similarity: best.similarity }
    related.sort((a, b) => b.similarity - a.similarity || a.at - b.at)
    verdict.related = related.map(({ entry, similarity }) => ({ entry, similarity }))
    return verdict
  }
}
