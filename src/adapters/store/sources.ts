/**
 * Where learnings come from: the project store (tier "project", weight 1.0) and, later, the tiers of section 9
 * (read from git objects under refs/learn/tiers/<name>). The same content in several sources is kept once, in the
 * heaviest source, by a hash of its normalized frontmatter and body.
 */
import { createHash } from 'node:crypto'
import type { LearningParseError, LearningState } from '../../core/errors.js'
import type { Learning } from '../../core/learning.js'
import { TRAILING_BLANKS } from '../../core/text-lines.js'
import type { Repo } from './repo.js'
import { readStore } from './store.js'

export interface Source {
  /** 'project' or a tier name. */
  tier: string
  /** Multiplies search scores: project 1.0, a tier its configured weight (default 0.9). */
  weight: number
  learnings: Learning[]
}

export const PROJECT_TIER = 'project'

/** A stable JSON text of a value: object keys sorted at every depth (built by appending: no array per level). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '['
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i])
    return `${out}]`
  }
  if (value && typeof value === 'object') {
    let out = '{'
    const keys = Object.keys(value).sort()
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string
      out += `${i ? ',' : ''}${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`
    }
    return `${out}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** The content hash of a learning: frontmatter (keys sorted) and body (CRLF → LF, trailing blanks trimmed). */
export function contentHash(learning: Learning): string {
  const body = learning.body.replace(/\r\n?/g, '\n').replace(TRAILING_BLANKS, '').trim()
  return createHash('sha256').update(canonicalJson(learning.data)).update('\0').update(body).digest('hex')
}

/** Keep each content once, in the heaviest source (the project on ties); sources keep their order. */
export function foldSources(sources: readonly Source[]): Source[] {
  const order = [...sources.keys()].sort(
    (a, b) => (sources[b] as Source).weight - (sources[a] as Source).weight || a - b,
  )
  const seen = new Set<string>()
  const kept = new Map<number, Learning[]>()
  for (const i of order) {
    const s = sources[i] as Source
    kept.set(
      i,
      s.learnings.filter((l) => {
        const h = contentHash(l)
        if (seen.has(h)) return false
        seen.add(h)
        return true
      }),
    )
  }
  return sources.map((s, i) => ({ ...s, learnings: kept.get(i) ?? [] }))
}

/**
 * Every source of learnings in the given states, folded by content; unreadable files are reported, not thrown.
 * `texts` gets the text of each of this project's learnings by path (readStore).
 */
export async function readSources(
  repo: Repo,
  opts: { states: readonly LearningState[]; texts?: Map<string, string> },
): Promise<{ sources: Source[]; problems: LearningParseError[] }> {
  const scan = readStore(repo.root, opts.states, opts.texts)
  const sources: Source[] = [{ tier: PROJECT_TIER, weight: 1, learnings: scan.learnings }]
  const problems = [...scan.problems]
  // Tiers (section 9): active learnings read from each pinned commit's git objects; only active ones travel.
  if (opts.states.includes('active')) {
    const { readTierSources, tierProblem } = await import('../feed/tiers.js')
    sources.push(...(await readTierSources(repo, (w) => problems.push(tierProblem(w)))))
  }
  return { sources: foldSources(sources), problems }
}
