/** Selecting and summarising learnings for listings. */
import type { Learning } from './learning.js'
import { compareCodeUnits } from './compare.js'

export interface LearningSummary {
  name: string
  state: string
  type: string
  domain: string | null
  tags: string[]
  description: string
  path: string
}

/** A learning as one listing row. */
export function summarize(l: Learning): LearningSummary {
  const d = l.data
  return {
    name: l.name,
    state: l.state,
    type: typeof d.type === 'string' ? d.type : '?',
    domain: typeof d['domain'] === 'string' ? (d['domain'] as string) : null,
    tags: Array.isArray(d.tags) ? d.tags.map(String) : [],
    description: typeof d.description === 'string' ? d.description : '',
    path: l.path,
  }
}

/** The learnings that match a type and a tag (either optional), as rows sorted by state then name. */
export function filterLearnings(
  learnings: readonly Learning[],
  f: { type?: string | undefined; tag?: string | undefined },
): LearningSummary[] {
  return filterSummaries(learnings.map(summarize), f)
}

/** The rows that match a type and a tag (either optional), sorted by state then name. */
export function filterSummaries(
  rows: readonly LearningSummary[],
  f: { type?: string | undefined; tag?: string | undefined },
): LearningSummary[] {
  const order = { active: 0, pending: 1, archived: 2 } as Record<string, number>
  return rows
    .filter((r) => (!f.type || r.type === f.type) && (!f.tag || r.tags.includes(f.tag)))
    .sort((a, b) => (order[a.state] ?? 9) - (order[b.state] ?? 9) || compareCodeUnits(a.name, b.name))
}
