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
  'a an and are as at be but by can do does for from has have how if in into is it its not of on or so such that the their then there these this to use used uses using was when where which while will with you your we our after before'.split(' '),
)

/** Lower-case words, markdown and punctuation dropped, numbers kept. */
export function normalizeText(text: string): string {
  return text
    .toLowerCase()
    .replace(/```[a-z]*\n?/g, ' ')
    .replace(/[^\p{L}\p{N}_$./-]+/gu, ' ')
    .replace(/(^|\s)[./-]+|[./-]+(?=\s|$)/g, ' ')
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
  return { id: l.name, path: l.path, text: fileText, vector: termVector(comparableText(l)), hash: contentHash(l), isLearning: true }
}

export interface DedupeVerdict {
  exact?: DedupeEntry
  /** The most similar entry at or above `similar`. */
  near?: { entry: DedupeEntry; similarity: number }
  /** Learnings between `related` and `similar`, most similar first. */
  related: { entry: DedupeEntry; similarity: number }[]
}

/** Compare a candidate with every entry: exact by hash, near at or above `similar`, related at or above `related`. */
export function findDuplicates(candidate: Learning, entries: readonly DedupeEntry[], thresholds: { similar: number; related: number }): DedupeVerdict {
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
    const cells = line.replace(/^\||\|$/g, '').split('|').map((c) => c.trim()).filter(Boolean)
    const text = cells.join(' — ')
    if (tokenize(text).length < 3) continue
    out.push({ id: `${path}:${i + 1}`, path, text: `${line}\n`, vector: termVector(text), isLearning: false })
  }
  return out
}
