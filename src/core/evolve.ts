/**
 * evolve: clusters of related active learnings, and the `type: skill` draft that consolidates each one
 * (DESIGN section 9). Deterministic: the same store gives the same clusters, names and bytes.
 */
import { formatDate } from './draft.js'
import type { Frontmatter } from './learning.js'
import { sectionText, triggersOf } from './learning.js'
import { NAME_MAX, slugify } from './names.js'

export interface EvolveInput {
  name: string
  data: Frontmatter
  body: string
}

export interface Cluster {
  /** Member names, sorted. */
  members: string[]
  /** Tags shared by at least two members, most shared first. */
  sharedTags: string[]
  domain: string | null
}

export interface EvolveSettings {
  /** Smallest cluster that becomes a skill. */
  minSize: number
  /** Pair score (0..1) at or above which two learnings are related. */
  threshold: number
}

export const EVOLVE_DEFAULTS: EvolveSettings = { minSize: 3, threshold: 0.4 }

// Not dedupe's or terms' tokenizer on purpose: clustering compares word sets of 3+ ASCII characters, and the
// default threshold (0.4) was set with this list; another tokenizer moves the clusters.
const STOP = new Set(
  'the and for with when use that this from into are was were not but you your has have had its can will then than they them what which while after before also just only more most some such'.split(
    ' ',
  ),
)

/** Lower-case word tokens of at least three characters, stop words dropped. */
export function tokenize(text: string): Set<string> {
  const out = new Set<string>()
  for (const w of text.toLowerCase().split(/[^a-z0-9]+/))
    if (w.length >= 3 && !STOP.has(w) && !/^\d+$/.test(w)) out.add(w)
  return out
}

/** |a ∩ b| / |a ∪ b|; 0 for two empty sets. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size && !b.size) return 0
  let inter = 0
  for (const x of a) if (b.has(x)) inter++
  return inter / (a.size + b.size - inter)
}

interface Features {
  name: string
  tags: Set<string>
  domain: string | null
  trigger: Set<string>
  text: Set<string>
  /** The text's words weighted by their rarity in the pool (idf), as a unit vector: cosine is a dot product. */
  vector: Map<string, number>
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')
const tagsOf = (d: Frontmatter): string[] =>
  Array.isArray(d.tags) ? d.tags.filter((t): t is string => typeof t === 'string').map((t) => t.toLowerCase()) : []

function features(l: EvolveInput): Features {
  const triggers = triggersOf(l.data).join('\n')
  return {
    name: l.name,
    tags: new Set(tagsOf(l.data)),
    domain: typeof l.data['domain'] === 'string' ? (l.data['domain'] as string) : null,
    trigger: tokenize(triggers),
    text: tokenize(`${str(l.data.description)} ${triggers} ${l.body}`),
    vector: new Map(),
  }
}

/** Each learning's text as an idf-weighted unit vector over the pool: words most learnings use weigh little. */
function weighText(pool: Features[]): void {
  const df = new Map<string, number>()
  for (const f of pool) for (const w of f.text) df.set(w, (df.get(w) ?? 0) + 1)
  for (const f of pool) {
    let norm = 0
    for (const w of f.text) {
      const v = Math.log(1 + pool.length / (df.get(w) as number))
      f.vector.set(w, v)
      norm += v * v
    }
    norm = Math.sqrt(norm) || 1
    for (const [w, v] of f.vector) f.vector.set(w, v / norm)
  }
}

function cosine(a: Features, b: Features): number {
  const [small, large] = a.vector.size <= b.vector.size ? [a.vector, b.vector] : [b.vector, a.vector]
  let dot = 0
  for (const [w, v] of small) dot += v * (large.get(w) ?? 0)
  return dot
}

/** |a ∩ b| / min(|a|, |b|): two learnings tagged [jest, esm] and [jest, esm, typescript, babel] share all they can. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size || !b.size) return 0
  let inter = 0
  for (const x of a) if (b.has(x)) inter++
  return inter / Math.min(a.size, b.size)
}

/**
 * How related two learnings are, 0..1: half the tags they share (of the fewer tags), a fifth trigger words, and
 * three tenths the cosine of their texts with words weighted by rarity (so "error", "module" and "fix" do not make
 * two learnings alike). Two learnings with no tag in common, or in different domains, are not related at all.
 */
export function scoreRelated(a: Features, b: Features): number {
  if (a.domain && b.domain && a.domain !== b.domain) return 0
  const tags = overlap(a.tags, b.tags)
  if (tags === 0) return 0
  return 0.5 * tags + 0.2 * jaccard(a.trigger, b.trigger) + 0.3 * cosine(a, b)
}

/**
 * Clusters of related learnings: connected groups of pairs scoring at or above the threshold, of at least
 * `minSize` members. Skills and learnings some skill already supersedes (`exclude`) take no part. Sorted by
 * their first member's name.
 */
export function planClusters(
  learnings: readonly EvolveInput[],
  exclude: ReadonlySet<string> = new Set(),
  settings: EvolveSettings = EVOLVE_DEFAULTS,
): Cluster[] {
  const pool = learnings
    .filter((l) => l.data.type !== 'skill' && !exclude.has(l.name))
    .map(features)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  weighText(pool)
  const parent = pool.map((_, i) => i)
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number
    return i
  }
  // Only pairs that share a tag can score above zero: an inverted index of tags gives the candidate pairs.
  const byTag = new Map<string, number[]>()
  pool.forEach((f, i) => f.tags.forEach((t) => byTag.set(t, [...(byTag.get(t) ?? []), i])))
  const seen = new Set<number>()
  for (const members of byTag.values())
    for (let x = 0; x < members.length; x++)
      for (let y = x + 1; y < members.length; y++) {
        const i = members[x] as number
        const j = members[y] as number
        const key = i * pool.length + j
        if (seen.has(key)) continue
        seen.add(key)
        if (scoreRelated(pool[i] as Features, pool[j] as Features) >= settings.threshold) {
          const ri = find(i)
          const rj = find(j)
          if (ri !== rj) parent[Math.max(ri, rj)] = Math.min(ri, rj)
        }
      }
  const groups = new Map<number, number[]>()
  pool.forEach((_, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), i]))
  const out: Cluster[] = []
  for (const idx of [...groups.values()].filter((g) => g.length >= settings.minSize)) {
    const fs = idx.map((i) => pool[i] as Features)
    const count = new Map<string, number>()
    for (const f of fs) for (const t of f.tags) count.set(t, (count.get(t) ?? 0) + 1)
    const sharedTags = [...count.entries()]
      .filter(([, n]) => n >= 2)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([t]) => t)
    const domains = [...new Set(fs.map((f) => f.domain).filter((d): d is string => d !== null))]
    out.push({
      members: fs.map((f) => f.name),
      sharedTags,
      domain: domains.length === 1 ? (domains[0] as string) : null,
    })
  }
  return out.sort((a, b) => ((a.members[0] as string) < (b.members[0] as string) ? -1 : 1))
}

/** A free name for the skill of a cluster: its top shared tags and "skill", with -2, -3… when taken. */
export function buildSkillName(cluster: Cluster, taken: ReadonlySet<string>): string {
  const base = slugify(`${cluster.sharedTags.slice(0, 3).join(' ') || cluster.domain || 'related'} skill`)
    .slice(0, NAME_MAX - 3)
    .replace(/-+$/, '')
  if (!taken.has(base)) return base
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`
}

/** The sections that say what was tried, in the members (a pattern's Rationale included). */
const INVESTIGATION = ['Root Cause', 'Evidence', 'Rationale'] as const
/** The skill's investigation sections (those the depth gate reads for a skill), and the members' sections they merge. */
const SKILL_INVESTIGATION: readonly (readonly [string, readonly string[]])[] = [
  ['Root Cause', ['Root Cause', 'Rationale']],
  ['Evidence', ['Evidence']],
]
/** The schema's limit on a list of triggers. */
const MAX_TRIGGERS = 20

const indent = (text: string) => text.replace(/\n/g, '\n  ')
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** The `type: skill` draft of a cluster: frontmatter merged from its members, body sections merged from theirs. */
export function buildSkillDraft(
  cluster: Cluster,
  members: readonly EvolveInput[],
  name: string,
  today: Date,
): { data: Frontmatter; body: string } {
  const ms = [...members].sort((a, b) => (a.name < b.name ? -1 : 1))
  const triggers = [...new Set(ms.flatMap((m) => triggersOf(m.data)))]
  const tags = [...new Set(ms.flatMap((m) => tagsOf(m.data)))].sort().slice(0, 50)
  const confidences = ms.map((m) => m.data['confidence']).filter((c): c is number => typeof c === 'number')
  const gates = ms.map((m) =>
    m.data['gates'] && typeof m.data['gates'] === 'object' ? (m.data['gates'] as Record<string, unknown>) : {},
  )
  // The depth of the deepest member that says what was tried (a written Root Cause, Evidence or Rationale counts as
  // moderate, 2, as the depth gate assumes), so the skill carries its members' investigations, not a bare 0.
  const investigated = (m: EvolveInput) => INVESTIGATION.some((h) => sectionText(m.body, h)?.trim())
  const depth = Math.max(
    0,
    ...ms.map((m, i) =>
      typeof gates[i]?.['discovery_depth'] === 'number'
        ? (gates[i]?.['discovery_depth'] as number)
        : investigated(m)
          ? 2
          : 0,
    ),
  )
  const reuse = [
    ...new Set(
      gates.flatMap((g) =>
        Array.isArray(g['reusability']) ? g['reusability'].filter((x): x is string => typeof x === 'string') : [],
      ),
    ),
  ].sort()
  const topic = cluster.sharedTags.slice(0, 3).join(', ') || tags.slice(0, 3).join(', ') || 'related problems'
  const description = cut(
    `Consolidated ${cluster.domain ? `${cluster.domain} ` : ''}skill for ${topic}, merged from ${ms.length} learnings (${ms.map((m) => m.name).join(', ')}). ` +
      `Use when any of their triggers appears: ${triggers.map((t) => cut(t, 120)).join('; ')}`,
    1024,
  )
  const data: Frontmatter = {
    name,
    description,
    type: 'skill',
    ...(triggers.length ? { trigger: triggers.slice(0, MAX_TRIGGERS).map((t) => cut(t, 2000)) } : {}),
    ...(cluster.domain ? { domain: cluster.domain } : {}),
    tags,
    ...(confidences.length
      ? { confidence: Math.round((confidences.reduce((a, b) => a + b, 0) / confidences.length) * 100) / 100 }
      : {}),
    gates: {
      discovery_depth: depth,
      reusability: reuse.length ? reuse.slice(0, 50) : tags.slice(0, 50),
      verification: `each merged learning records its own verification (${ms.map((m) => m.name).join(', ')})`,
    },
    source: { kind: 'evolve' },
    supersedes: ms.map((m) => m.name),
    created: formatDate(today),
    version: '1.0.0',
  }
  const part = (m: EvolveInput, heading: string, fallback: string) => sectionText(m.body, heading) || fallback
  const body = [
    '## Problem',
    ...ms.map((m) => `- **${m.name}**: ${indent(part(m, 'Problem', str(m.data.description)))}`),
    '',
    '## Trigger Conditions',
    ...ms.map(
      (m) =>
        `- **${m.name}**: ${indent(part(m, 'Trigger Conditions', triggersOf(m.data)[0] ?? str(m.data.description)))}`,
    ),
    '',
    ...SKILL_INVESTIGATION.flatMap(([heading, from]) => {
      const written = ms
        .map((m) => ({ m, text: from.map((h) => sectionText(m.body, h)?.trim()).find(Boolean) }))
        .filter((x) => x.text)
      return written.length
        ? [`## ${heading}`, ...written.map(({ m, text }) => `- **${m.name}**: ${indent(text as string)}`), '']
        : []
    }),
    '## Solution',
    ...ms.flatMap((m) => [
      `### ${m.name}`,
      part(m, 'Solution', part(m, 'Correct pattern', part(m, 'Action', part(m, 'Decision', str(m.data.description))))),
      '',
    ]),
    '## Verification',
    ...ms.map((m) => `- **${m.name}**: ${indent(part(m, 'Verification', part(m, 'Evidence', 'not recorded')))}`),
    '',
    '## Related Memory',
    ...ms.map((m) => `- ${m.name}: ${str(m.data.description).replace(/\s+/g, ' ')}`),
    '',
  ].join('\n')
  return { data, body }
}
