/**
 * status-<key>.json.deflate: the few columns `status` reads of every learning, written with the rest of the feed cache.
 */
import { STATES } from '../../core/layout.js'
import type { CatalogEntry } from '../../core/search.js'
import type { StatusEntry } from '../../core/status.js'
import { files, isObject, readDeflatedJson } from './cache-files.js'
import type { Problem } from './cache-files.js'
import { CACHE_FORMAT } from './feed-key.js'

/**
 * status-<key>.json.deflate (deflated JSON): what `status` reads of every learning, by column, with the rare fields
 * kept sparse (by row): at 10,000 learnings about a tenth of the catalog, which status would otherwise read whole.
 */
interface StatusFile {
  format: number
  key: string
  problems: Problem[]
  tiers: string[]
  name: string[]
  /** Position in `tiers`, and in STATES. */
  tier: number[]
  state: number[]
  domain: (string | null)[]
  confidence: (number | null)[]
  created: (string | null)[]
  supersedes: Record<string, string[]>
  evidence: Record<string, [string | null, string[]]>
  /** Pending learnings only (the others' are not shown). */
  description: Record<string, string>
}

export function statusFile(key: string, catalog: readonly CatalogEntry[], problems: Problem[]): StatusFile {
  const tiers = [...new Set(catalog.map((e) => e.tier))]
  const f: StatusFile = {
    format: CACHE_FORMAT,
    key,
    problems,
    tiers,
    name: [],
    tier: [],
    state: [],
    domain: [],
    confidence: [],
    created: [],
    supersedes: {},
    evidence: {},
    description: {},
  }
  catalog.forEach((e, i) => {
    f.name.push(e.name)
    f.tier.push(tiers.indexOf(e.tier))
    f.state.push(STATES.indexOf(e.state))
    f.domain.push(e.domain)
    f.confidence.push(e.confidence)
    f.created.push(e.created)
    if (e.supersedes.length) f.supersedes[i] = e.supersedes
    if (e.evidenceCommit || e.evidencePaths.length) f.evidence[i] = [e.evidenceCommit, e.evidencePaths]
    if (e.state === 'pending') f.description[i] = e.description
  })
  return f
}

/** The empty list every entry without supersedes or evidence paths shares. */
const NONE: readonly string[] = Object.freeze([])

export function readStatusFile(dir: string, key: string): { entries: StatusEntry[]; problems: Problem[] } | undefined {
  const f = readDeflatedJson(files(dir, key).status)
  if (!isObject(f) || f['format'] !== CACHE_FORMAT || f['key'] !== key) return undefined
  const s = f as unknown as StatusFile
  const n = Array.isArray(s.name) ? s.name.length : -1
  const columns = [s.tier, s.state, s.domain, s.confidence, s.created]
  if (
    !columns.every((c) => Array.isArray(c) && c.length === n) ||
    !Array.isArray(s.tiers) ||
    !Array.isArray(s.problems)
  )
    return undefined
  if (![s.supersedes, s.evidence, s.description].every(isObject)) return undefined
  // The rare fields are set from their sparse maps afterwards; the rest share one empty list (nothing mutates them).
  const entries: StatusEntry[] = []
  for (let i = 0; i < n; i++) {
    const state = STATES[s.state[i] as number]
    const tier = s.tiers[s.tier[i] as number]
    if (state === undefined || tier === undefined) return undefined
    entries.push({
      name: s.name[i] as string,
      tier,
      state,
      domain: s.domain[i] ?? null,
      confidence: s.confidence[i] ?? null,
      created: s.created[i] ?? null,
      supersedes: NONE,
      description: '',
      evidenceCommit: null,
      evidencePaths: NONE,
    })
  }
  for (const [i, v] of Object.entries(s.supersedes)) {
    const e = entries[Number(i)]
    if (!e || !Array.isArray(v)) return undefined
    e.supersedes = v
  }
  for (const [i, v] of Object.entries(s.evidence)) {
    const e = entries[Number(i)]
    if (!e || !Array.isArray(v) || !Array.isArray(v[1])) return undefined
    e.evidenceCommit = v[0] ?? null
    e.evidencePaths = v[1]
  }
  for (const [i, v] of Object.entries(s.description)) {
    const e = entries[Number(i)]
    if (!e || typeof v !== 'string') return undefined
    e.description = v
  }
  return { entries, problems: s.problems }
}
