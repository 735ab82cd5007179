/** The status dashboard's data: counts, active learnings by domain with confidence and use, stale, prune, pending. */
import type { Config } from './config-schema.js'
import { baseConfidence, effectiveConfidence } from './confidence.js'
import { buildSupersededBy, planPrune } from './prune.js'
import type { CatalogEntry } from './search.js'
import type { UsageSummary } from './usage.js'
import { EMPTY_USAGE } from './usage.js'
import { compareCodeUnits } from './compare.js'

export interface StatusLearning {
  name: string
  tier: string
  domain: string
  confidence: number
  matches: number
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
export type StatusEntry = Pick<CatalogEntry, 'name' | 'tier' | 'state' | 'domain' | 'confidence' | 'created' | 'supersedes' | 'description' | 'evidenceCommit' | 'evidencePaths'>

/** Build the report; `stale` comes from the adapter (it asks git). Project learnings only are proposed for prune. */
export function buildStatus(
  catalog: readonly StatusEntry[],
  usage: ReadonlyMap<string, UsageSummary>,
  stale: readonly { name: string; paths: string[] }[],
  now: Date,
  config: Pick<Config, 'confidence' | 'prune'>,
): StatusReport {
  const counts = { pending: 0, active: 0, archived: 0 }
  const tiers: StatusReport['tiers'] = {}
  for (const e of catalog) {
    counts[e.state]++
    const t = (tiers[e.tier] ??= { pending: 0, active: 0, archived: 0 })
    t[e.state]++
  }
  const active = catalog.filter((e) => e.state === 'active')
  const byDomain = new Map<string, StatusLearning[]>()
  for (const e of active) {
    const u = usage.get(e.name) ?? EMPTY_USAGE
    const row: StatusLearning = {
      name: e.name,
      tier: e.tier,
      domain: e.domain ?? 'other',
      confidence: effectiveConfidence(baseConfidence(e.confidence), u, now, config.confidence, e.created),
      matches: u.matches,
      lastUsed: u.lastUsed,
    }
    const rows = byDomain.get(row.domain)
    if (rows) rows.push(row)
    else byDomain.set(row.domain, [row])
  }
  const domains = [...byDomain.entries()]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([domain, learnings]) => ({ domain, learnings: learnings.sort((a, b) => b.confidence - a.confidence || compareCodeUnits(a.name, b.name)) }))
  const project = active.filter((e) => e.tier === 'project')
  const supersededBy = buildSupersededBy(project.map((e) => ({ name: e.name, supersedes: e.supersedes })))
  const prune = planPrune(
    project.map((e) => {
      const u = usage.get(e.name) ?? EMPTY_USAGE
      return { name: e.name, activeSince: e.created, activeSinceFrom: e.created ? 'created' : 'unknown', lastUsed: u.lastUsed, matches: u.matches, supersededBy: supersededBy.get(e.name) ?? [] }
    }),
    config.prune,
    now,
  ).map((c) => ({ name: c.name, reason: c.reason }))
  const pending = catalog
    .filter((e) => e.state === 'pending')
    .map((e) => ({ name: e.name, description: e.description }))
    .sort((a, b) => compareCodeUnits(a.name, b.name))
  return { counts, tiers, domains, stale: [...stale].sort((a, b) => compareCodeUnits(a.name, b.name)), prune, pending }
}

/** A confidence bar of `width` cells: `█░` on UTF-8 terminals, `#-` otherwise. */
export function formatBar(value: number, utf8: boolean, width = 10): string {
  const full = Math.round(Math.min(1, Math.max(0, value)) * width)
  const [on, off] = utf8 ? ['█', '░'] : ['#', '-']
  return on.repeat(full) + off.repeat(width - full)
}
