/** The failure path of the recall hook: match the error against the cached triggers, record the matches. */
import type { ToolFailure } from '../core/search-recall.js'
import { RECALL_MAX_ITEMS, rankRecall } from '../core/search-recall.js'
import { buildQueryTerms } from '../core/terms.js'
import { appendEvent } from './events.js'
import { readRecallFeed } from './search-index.js'

export interface HookOutput {
  hookSpecificOutput: { hookEventName: string; additionalContext: string }
}

const cut = (t: string, n: number) => {
  const x = t.replace(/\s+/g, ' ').trim()
  return x.length > n ? `${x.slice(0, n - 1)}…` : x
}

/** The hook output for a failure, or undefined when no active learning's trigger is in the error. */
export async function recallFailure(failure: ToolFailure, cwd: string, now: Date): Promise<HookOutput | undefined> {
  const feed = await readRecallFeed(failure.cwd ?? cwd)
  const chosen = rankRecall(feed.index, new Set(buildQueryTerms(failure.text))).slice(0, RECALL_MAX_ITEMS)
  if (!chosen.length) return undefined
  const lines: string[] = []
  for (const c of chosen) {
    const entry = feed.entry(c.doc)
    if (!entry) continue
    appendEvent(feed.commonDir, { ts: now.toISOString(), kind: 'match', name: entry.name, ...(failure.session ? { session: failure.session } : {}), score: c.score })
    lines.push(`git-learn: ${entry.name} — ${cut(entry.fix || entry.description, 240)} (git learn show ${entry.name})`)
  }
  return lines.length ? { hookSpecificOutput: { hookEventName: failure.event, additionalContext: lines.join('\n') } } : undefined
}
