/** The status dashboard's data: counts, active learnings by domain with confidence and use, stale, prune, pending. */
import type { Config } from './config-schema.js'
import { baseConfidence, effectiveConfidence } from './confidence.js'
import { buildSupersededBy, daysSince, planPrune } from './prune.js'
import type { PruneFacts } from './prune.js'
import type { CatalogEntry } from './search.js'
import type { UsageSummary } from './usage.js'
import { EMPTY_USAGE } from './usage.js'
import { compareCodeUnits } from './compare.js'
import type { LearningState } from './errors.js'
import { parseStorePath } from './layout.js'

export interface StatusLearning {
  name: string
  tier: string
  domain: string
  confidence: number
  matches: number
  /** Times recall or search handed it out (the matches), and what the agent's next run of the call made of it. */
  uses: number
  successes: number
  failures: number
  /** successes / (successes + failures), null before the first outcome. */
  success_rate: number | null
  lastUsed: string | null
}

export interface StatusReport {
  counts: { pending: number; active: number; archived: number }
  tiers: Record<string, { pending: number; active: number; archived: number }>
  domains: { domain: string; learnings: StatusLearning[] }[]
  stale: { name: string; paths: string[] }[]
  prune: { name: string; reason: string }[]
  pending: { name: string; description: string }[]
}

/** What status reads of each learning (the adapter keeps these columns apart from the full catalog). */
export type StatusEntry = Pick<
  CatalogEntry,
  'name' | 'tier' | 'state' | 'domain' | 'confidence' | 'created' | 'description' | 'evidenceCommit'
> & {
  /** Read-only: the cache reader shares one frozen empty list among the entries that have none. */
  supersedes: readonly string[]
  evidencePaths: readonly string[]
  tags: readonly string[]
}

/** A move between state folders staged in the index and never committed (`git mv` by hand, not `git learn approve`). */
export interface StagedMove {
  from: string
  to: string
}

/**
 * The project's entries where their commits have them: a learning moved between state folders and staged, never
 * committed, is still in the state HEAD has it in (nothing approved, rejected or archived it), so it counts there, as
 * the warning about the move says. `describe` gives the description of one that counts as pending again (the status
 * cache keeps the pending ones' only). A move out of or into anything but a state folder is left as it is.
 */
export function asCommitted(
  entries: readonly StatusEntry[],
  moves: readonly StagedMove[],
  describe: (path: string) => string,
): StatusEntry[] {
  const back = new Map<string, { state: LearningState; path: string }>()
  for (const m of moves) {
    const from = parseStorePath(m.from)
    const to = parseStorePath(m.to)
    if (from && to && from.state !== to.state) back.set(`${to.state}/${to.name}`, { state: from.state, path: m.to })
  }
  if (!back.size) return entries as StatusEntry[]
  return entries.map((e) => {
    const was = e.tier === 'project' ? back.get(`${e.state}/${e.name}`) : undefined
    if (!was) return e
    const description = was.state === 'pending' && !e.description ? describe(was.path) : e.description
    return { ...e, state: was.state, description }
  })
}

/**
 * Build the report; `stale` comes from the adapter (it asks git). Project learnings only are proposed for prune.
 * One pass over the catalog (it is read for every `status`, 10,000 entries and more): counts, rows of the active
 * ones, the pending list, and prune facts only for the learnings prune could propose (superseded, or active for
 * `prune.after_days`); planPrune proposes none of the others. test/unit/core/status.test.ts holds it to the
 * plain several-pass version on random catalogs.
 */
export function buildStatus(
  catalog: readonly StatusEntry[],
  usage: ReadonlyMap<string, UsageSummary>,
  stale: readonly { name: string; paths: string[] }[],
  now: Date,
  config: Pick<Config, 'confidence' | 'prune'>,
): StatusReport {
  const counts = { pending: 0, active: 0, archived: 0 }
  const tiers: StatusReport['tiers'] = {}
  const byDomain = new Map<string, StatusLearning[]>()
  const project: StatusEntry[] = []
  const pending: StatusReport['pending'] = []
  let tierName: string | undefined
  let tierCounts = counts
  let supersedes = false
  for (const e of catalog) {
    counts[e.state]++
    if (e.tier !== tierName) {
      tierName = e.tier
      tierCounts = tiers[e.tier] ??= { pending: 0, active: 0, archived: 0 }
    }
    tierCounts[e.state]++
    if (e.state === 'pending') {
      pending.push({ name: e.name, description: e.description })
      continue
    }
    if (e.state !== 'active') continue
    const u = usage.get(e.name) ?? EMPTY_USAGE
    const domain = e.domain ?? 'other'
    const row: StatusLearning = {
      name: e.name,
      tier: e.tier,
      domain,
      confidence: effectiveConfidence(baseConfidence(e.confidence), u, now, config.confidence, e.created),
      matches: u.matches,
      uses: u.matches,
      successes: u.successes,
      failures: u.failures,
      success_rate: successRate(u.successes, u.failures),
      lastUsed: u.lastUsed,
    }
    const rows = byDomain.get(domain)
    if (rows) rows.push(row)
    else byDomain.set(domain, [row])
    if (e.tier === 'project') {
      project.push(e)
      if (e.supersedes.length) supersedes = true
    }
  }
  const domains = [...byDomain.entries()]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([domain, learnings]) => ({ domain, learnings: byConfidenceThenName(learnings) }))
  const supersededBy = supersedes
    ? buildSupersededBy(project.map((e) => ({ name: e.name, supersedes: e.supersedes })))
    : new Map<string, string[]>()
  const facts: PruneFacts[] = []
  for (const e of project) {
    const by = supersededBy.get(e.name)
    if (!by && !(e.created !== null && (daysSince(e.created, now) ?? -1) >= config.prune.after_days)) continue
    const u = usage.get(e.name) ?? EMPTY_USAGE
    facts.push({
      name: e.name,
      activeSince: e.created,
      activeSinceFrom: e.created ? 'created' : 'unknown',
      lastUsed: u.lastUsed,
      matches: u.matches,
      supersededBy: by ?? [],
    })
  }
  const prune = planPrune(facts, config.prune, now).map((c) => ({ name: c.name, reason: c.reason }))
  return {
    counts,
    tiers,
    domains,
    stale: [...stale].sort((a, b) => compareCodeUnits(a.name, b.name)),
    prune,
    pending: pending.sort(byName),
  }
}

/** The share of decided outcomes that were successes, to 3 decimals; null when none was decided. */
export function successRate(successes: number, failures: number): number | null {
  const n = successes + failures
  return n ? Math.round((successes / n) * 1000) / 1000 : null
}

/**
 * Sort rows by confidence (highest first), then name. Rows that already come in name order (the catalog's order)
 * need only the stable sort by confidence, which keeps equal ones as they are: the same order, without comparing
 * names for every tie (most rows tie at a store's few confidence values).
 */
export function byConfidenceThenName(rows: StatusLearning[]): StatusLearning[] {
  let named = true
  for (let i = 1; i < rows.length && named; i++)
    named = byName(rows[i - 1] as StatusLearning, rows[i] as StatusLearning) <= 0
  return rows.sort(
    named ? (a, b) => b.confidence - a.confidence : (a, b) => b.confidence - a.confidence || byName(a, b),
  )
}

/** Stable order by name (code units); a list already in that order (the catalog's, most often) costs one pass. */
const byName = (a: { name: string }, b: { name: string }) => compareCodeUnits(a.name, b.name)

/** A confidence bar of `width` cells: `█░` on UTF-8 terminals, `#-` otherwise. */
export function formatBar(value: number, utf8: boolean, width = 10): string {
  const full = Math.round(Math.min(1, Math.max(0, value)) * width)
  const [on, off] = utf8 ? ['█', '░'] : ['#', '-']
  return on.repeat(full) + off.repeat(width - full)
}
