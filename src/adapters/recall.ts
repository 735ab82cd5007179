/** The failure path of the recall hook: search the cached index, apply the threshold, record the matches. */
import { termsOf, triggerCoverage, buildQueryTerms } from '../core/search.js'
import type { ToolFailure } from '../core/search-recall.js'
import { RECALL_MAX_ITEMS, passesRecall } from '../core/search-recall.js'
import { appendEvent } from './events.js'
import { readSearchFeed } from './search-index.js'

export interface HookOutput {
  hookSpecificOutput: { hookEventName: string; additionalContext: string }
}

const cut = (t: string, n: number) => {
  const x = t.replace(/\s+/g, ' ').trim()
  return x.length > n ? `${x.slice(0, n - 1)}…` : x
}

/** The hook output for a failure, or undefined when no active learning passes the threshold. */
export async function recallFailure(failure: ToolFailure, cwd: string, now: Date): Promise<HookOutput | undefined> {
  const feed = await readSearchFeed(failure.cwd ?? cwd)
  const hits = await feed.rank(failure.text, { states: ['active'], types: ['error-solution', 'anti-pattern'] }, 5)
  if (!hits.length) return undefined
  const query = new Set(buildQueryTerms(failure.text))
  const chosen = hits.filter((h) => passesRecall(triggerCoverage(h.entry, query), termsOf(h.entry.trigger ?? '').size)).slice(0, RECALL_MAX_ITEMS)
  if (!chosen.length) return undefined
  for (const h of chosen)
    appendEvent(feed.commonDir, { ts: now.toISOString(), kind: 'match', name: h.entry.name, ...(failure.session ? { session: failure.session } : {}), score: h.score })
  const lines = chosen.map((h) => `git-learn: ${h.entry.name} — ${cut(h.entry.fix || h.entry.description, 240)} (git learn show ${h.entry.name})`)
  return { hookSpecificOutput: { hookEventName: failure.event, additionalContext: lines.join('\n') } }
}
