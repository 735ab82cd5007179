import { describe, expect, test } from 'vitest'
import type { Config } from '../../../src/core/config-schema.js'
import { baseConfidence, effectiveConfidence } from '../../../src/core/confidence.js'
import { buildSupersededBy, planPrune } from '../../../src/core/prune.js'
import type { StatusEntry, StatusLearning, StatusReport } from '../../../src/core/status.js'
import { buildStatus } from '../../../src/core/status.js'
import type { UsageSummary } from '../../../src/core/usage.js'
import { EMPTY_USAGE } from '../../../src/core/usage.js'
import { compareCodeUnits } from '../../../src/core/compare.js'
import { mulberry32 } from '../../helpers/random.js'

// buildStatus reads the catalog once and builds prune facts only for learnings prune could propose. The plain
// version it replaced (several passes, a fact for every project learning) is kept here as the reference: on random
// catalogs, usage and settings the two must give the same report, key order and row order included.
function referenceBuildStatus(
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
      uses: u.matches,
      successes: u.successes,
      failures: u.failures,
      success_rate:
        u.successes + u.failures ? Math.round((u.successes / (u.successes + u.failures)) * 1000) / 1000 : null,
      lastUsed: u.lastUsed,
    }
    const rows = byDomain.get(row.domain)
    if (rows) rows.push(row)
    else byDomain.set(row.domain, [row])
  }
  const domains = [...byDomain.entries()]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([domain, learnings]) => ({
      domain,
      learnings: learnings.sort((a, b) => b.confidence - a.confidence || compareCodeUnits(a.name, b.name)),
    }))
  const project = active.filter((e) => e.tier === 'project')
  const supersededBy = buildSupersededBy(project.map((e) => ({ name: e.name, supersedes: e.supersedes })))
  const prune = planPrune(
    project.map((e) => {
      const u = usage.get(e.name) ?? EMPTY_USAGE
      return {
        name: e.name,
        activeSince: e.created,
        activeSinceFrom: e.created ? 'created' : 'unknown',
        lastUsed: u.lastUsed,
        matches: u.matches,
        supersededBy: supersededBy.get(e.name) ?? [],
      }
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

const random = mulberry32

const NOW = Date.parse('2026-11-21T10:00:00Z')
const DAY = 86_400_000

function world(seed: number) {
  const r = random(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T
  const when = (spanDays: number) => new Date(NOW - Math.floor(r() * spanDays * DAY)).toISOString()
  const n = Math.floor(r() * 120)
  const names = Array.from({ length: 40 }, (_, i) => `learning-${String.fromCharCode(97 + (i % 26))}${i}`)
  const catalog: StatusEntry[] = []
  for (let i = 0; i < n; i++) {
    catalog.push({
      name: pick(names),
      tier: r() < 0.75 ? 'project' : pick(['team', 'org']),
      state: pick(['active', 'active', 'pending', 'archived'] as const),
      domain: pick([null, 'testing', 'build', 'git']),
      confidence: pick([null, 0.3, 0.5, 0.9, 1.4, -1]),
      created: pick([null, 'not a date', when(400).slice(0, 10), when(400)]),
      supersedes: r() < 0.2 ? [pick(names), pick(names)] : [],
      description: `about ${i}`,
      evidenceCommit: null,
      evidencePaths: [],
      tags: [],
    })
  }
  if (r() < 0.5) catalog.sort((a, b) => compareCodeUnits(a.name, b.name))
  const usage = new Map<string, UsageSummary>()
  for (const name of names)
    if (r() < 0.4) {
      const used = r() < 0.8 ? when(300) : null
      usage.set(name, {
        matches: Math.floor(r() * 4),
        helpful: Math.floor(r() * 3),
        harmful: Math.floor(r() * 2),
        applied: Math.floor(r() * 2),
        successes: Math.floor(r() * 3),
        failures: Math.floor(r() * 2),
        lastUsed: used,
        lastConfirmed: used && r() < 0.5 ? used : null,
      })
    }
  const stale =
    r() < 0.3
      ? [
          { name: pick(names), paths: ['src/b.ts'] },
          { name: pick(names), paths: ['src/a.ts'] },
        ]
      : []
  const config: Pick<Config, 'confidence' | 'prune'> = {
    confidence: { confirm: 0.05, contradict: 0.1, decay_per_week: 0.02, apply: 0.7 } as Config['confidence'],
    prune: { after_days: pick([0, 1, 30, 90, 365]), min_matches: pick([0, 1, 2, 3]) } as Config['prune'],
  }
  return { catalog, usage, stale, config, now: new Date(NOW + Math.floor(r() * 30 * DAY)) }
}

describe('buildStatus in one pass', () => {
  test('gives the report of the several-pass version on 500 random catalogs', () => {
    let proposals = 0
    for (let seed = 1; seed <= 500; seed++) {
      const w = world(seed)
      const fast = buildStatus(w.catalog, w.usage, w.stale, w.now, w.config)
      const ref = referenceBuildStatus(w.catalog, w.usage, w.stale, w.now, w.config)
      expect(JSON.stringify(fast), `seed ${seed}`).toBe(JSON.stringify(ref))
      proposals += ref.prune.length
    }
    // The worlds reach the prune paths (superseded, unused, rarely matched), not only the empty report.
    expect(proposals).toBeGreaterThan(500)
  })

  test('an empty catalog', () => {
    const w = world(1)
    expect(buildStatus([], new Map(), [], w.now, w.config)).toEqual({
      counts: { pending: 0, active: 0, archived: 0 },
      tiers: {},
      domains: [],
      stale: [],
      prune: [],
      pending: [],
    })
  })
})
