/**
 * The reviewer's view of a pull request (`check --base … --format github`): for each learning added, moved or edited
 * since the merge base, its gates, near-duplicates among the other learnings, secrets and staleness from the check's
 * own findings, written as markdown (core/review-summary.ts) where GitHub shows it: the job summary file.
 */
import { appendFileSync } from 'node:fs'
import type { DiffEntry } from '../core/check-diff.js'
import type { Finding } from '../core/check.js'
import type { Config } from '../core/config-schema.js'
import { findDuplicates, learningEntry } from '../core/dedupe.js'
import { evaluateGates } from '../core/gates.js'
import type { Learning } from '../core/learning.js'
import { parseStorePath } from '../core/learning.js'
import { buildReviewSummary } from '../core/review-summary.js'
import type { ReviewItem } from '../core/review-summary.js'
import { createTwoFilesPatch } from '../vendor/diff.js'

export interface ReviewInput {
  base: string
  /** The changes under .learnings/ since the merge base. */
  changes: readonly DiffEntry[]
  /** Every learning of the work tree, with the text of its file. */
  learnings: readonly { learning: Learning; text: string }[]
  findings: readonly Finding[]
  config: Pick<Config, 'gates' | 'dedupe'>
}

/** The markdown of the learnings the pull request adds, moves or edits. */
export function reviewSummary(input: ReviewInput): string {
  const byPath = new Map(input.learnings.map((l) => [l.learning.path, l]))
  const items: ReviewItem[] = []
  for (const c of input.changes) {
    const to = parseStorePath(c.path)
    const here = byPath.get(c.path)
    if (!to || !here || c.status === 'D') continue
    const from = c.oldPath ? parseStorePath(c.oldPath) : undefined
    const change =
      from && from.state !== to.state
        ? `${from.state} → ${to.state}`
        : c.status === 'A'
          ? `added to ${to.state}`
          : `edited in ${to.state}`
    const l = here.learning
    const others = input.learnings
      .filter((o) => o.learning.name !== l.name)
      .map((o) => learningEntry(o.learning, o.text))
    const verdict = findDuplicates(l, others, input.config.dedupe)
    const near = [
      ...(verdict.exact ? [{ entry: verdict.exact, similarity: 1 }] : []),
      ...(verdict.near ? [verdict.near] : []),
      ...verdict.related,
    ].slice(0, 3)
    items.push({
      name: l.name,
      path: l.path,
      change,
      type: typeof l.data.type === 'string' ? l.data.type : '?',
      trigger:
        typeof l.data.trigger === 'string'
          ? l.data.trigger
          : Array.isArray(l.data.trigger)
            ? l.data.trigger.join(' · ')
            : null,
      gates: evaluateGates(l, input.config.gates),
      duplicates: near.map((d) => ({
        name: d.entry.id,
        similarity: d.similarity,
        diff: createTwoFilesPatch(d.entry.path, l.path, d.entry.text, here.text, '', '', { context: 1 })
          .split('\n')
          .slice(2)
          .join('\n'),
      })),
      secrets: input.findings.filter((f) => f.rule === 'secrets' && f.path === l.path).map((f) => f.message),
      stale: input.findings.find((f) => f.rule === 'stale' && f.path === l.path)?.message ?? null,
    })
  }
  return buildReviewSummary(items, input.base)
}

/** Append the summary to GitHub's job summary file (other steps may have written theirs there first). */
export function writeReviewSummary(file: string, input: ReviewInput): void {
  appendFileSync(file, `${reviewSummary(input)}\n`)
}
