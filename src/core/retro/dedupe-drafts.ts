/**
 * retro --write turns every candidate into a draft at once; the store's duplicate check cannot see drafts that
 * are not written yet, so the drafts are first compared with each other: the first of a name, or of a group of
 * near twins, is kept, the others are skipped.
 */
import { findDuplicates, learningEntry } from '../dedupe.js'
import type { DedupeEntry } from '../dedupe.js'
import type { Learning } from '../learning.js'

/** Why a draft was left out: another draft of the run has its name, or is (nearly) the same text. */
export type DraftSkip =
  { name: string; kind: 'same-name'; of: string } | { name: string; kind: 'near-twin'; of: string; similarity: number }

/** Keep the first draft of each name and of each group of drafts at or above `similar`; list the rest. */
export function dedupeDrafts(
  drafts: readonly Learning[],
  thresholds: { similar: number; related: number },
): { kept: Learning[]; skipped: DraftSkip[] } {
  const kept: Learning[] = []
  const entries: DedupeEntry[] = []
  const skipped: DraftSkip[] = []
  const names = new Set<string>()
  for (const d of drafts) {
    if (names.has(d.name)) {
      skipped.push({ name: d.name, kind: 'same-name', of: d.name })
      continue
    }
    const verdict = findDuplicates(d, entries, thresholds)
    if (verdict.exact) {
      skipped.push({ name: d.name, kind: 'near-twin', of: verdict.exact.id, similarity: 1 })
      continue
    }
    if (verdict.near) {
      skipped.push({ name: d.name, kind: 'near-twin', of: verdict.near.entry.id, similarity: verdict.near.similarity })
      continue
    }
    names.add(d.name)
    kept.push(d)
    entries.push(learningEntry(d, ''))
  }
  return { kept, skipped }
}
