/** The failure path of the recall hook: match the error against the cached triggers, record the matches. */
import type { ToolFailure } from '../../core/search-recall.js'
import { RECALL_MAX_ITEMS, rankRecall } from '../../core/recall-rank.js'
import { buildQueryTerms } from '../../core/terms.js'
import { join } from 'node:path'
import { appendEvent } from '../state/events.js'
import { addPendingRecalls } from '../state/recalls.js'
import { readRecallFeed } from './search-index.js'

export interface RecalledLearning {
  name: string
  /** "project", or the tier it comes from (labelled as such to the agent). */
  tier: string
  fix: string
  description: string
}

/** The learnings a failure matches (best first, at most RECALL_MAX_ITEMS), each recorded as a match; [] for none. */
export async function recallFailure(failure: ToolFailure, cwd: string, now: Date): Promise<RecalledLearning[]> {
  const feed = await readRecallFeed(failure.cwd ?? cwd)
  const chosen = rankRecall(feed.index, new Set(buildQueryTerms(failure.text))).slice(0, RECALL_MAX_ITEMS)
  const out: RecalledLearning[] = []
  for (const c of chosen) {
    const entry = feed.entry(c.doc)
    if (!entry) continue
    appendEvent(feed.commonDir, {
      ts: now.toISOString(),
      kind: 'match',
      name: entry.name,
      ...(failure.session ? { session: failure.session } : {}),
      score: c.score,
    })
    out.push({ name: entry.name, tier: entry.tier, fix: entry.fix, description: entry.description })
  }
  if (failure.session)
    addPendingRecalls(
      join(feed.commonDir, 'learn'),
      failure.session,
      failure.tool_use_id,
      out.map((o) => o.name),
      now,
    )
  return out
}
