/**
 * The rows of catalog-<key>.deflate and project-<key>.json.deflate as they are written (before compression): one JSON array a row, fields by position,
 * and what most rows share (the project tier and its weight, no evidence, no superseded names, one trigger, the path
 * `.learnings/<state>/<name>.md`) left out. At 100,000 learnings the keys and those defaults were about half of the
 * two files (96 MB of the local state). A row that does not read back (a torn or foreign file) is undefined: the
 * caller's miss.
 *
 *   catalog: [name, state, type, domain, tags, description, trigger, confidence, created, fix, rest?]
 *   project: [name, state, type, domain, tags, description, created, rest?]
 *
 * where `rest` holds only the fields that differ from the defaults: tier, weight, triggers, evidencePaths,
 * evidenceCommit, supersedes, path.
 */
import type { CatalogEntry } from '../../core/search.js'
import type { ProjectRow } from './cache-files.js'

const PROJECT_TIER = 'project'

const defaultPath = (state: string, name: string) => `.learnings/${state}/${name}.md`
const isString = (v: unknown): v is string => typeof v === 'string'
const isStringOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string'
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString)
const isRest = (v: unknown): v is Record<string, unknown> =>
  v === undefined || (!!v && typeof v === 'object' && !Array.isArray(v))
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

/** The catalog entry as one row. */
export function packCatalogEntry(e: CatalogEntry): unknown[] {
  const rest: Record<string, unknown> = {}
  if (e.tier !== PROJECT_TIER) rest['tier'] = e.tier
  if (e.weight !== 1) rest['weight'] = e.weight
  if (!sameList(e.triggers, e.trigger === null ? [] : [e.trigger])) rest['triggers'] = e.triggers
  if (e.evidencePaths.length) rest['evidencePaths'] = e.evidencePaths
  if (e.evidenceCommit !== null) rest['evidenceCommit'] = e.evidenceCommit
  if (e.supersedes.length) rest['supersedes'] = e.supersedes
  if (e.path !== defaultPath(e.state, e.name)) rest['path'] = e.path
  const row: unknown[] = [
    e.name,
    e.state,
    e.type,
    e.domain,
    e.tags,
    e.description,
    e.trigger,
    e.confidence,
    e.created,
    e.fix,
  ]
  if (Object.keys(rest).length) row.push(rest)
  return row
}

/** A catalog row read back, or undefined when it is not one. */
export function unpackCatalogEntry(v: unknown): CatalogEntry | undefined {
  if (!Array.isArray(v) || (v.length !== 10 && v.length !== 11)) return undefined
  const [name, state, type, domain, tags, description, trigger, confidence, created, fix, rest = {}] = v as unknown[]
  if (
    !isString(name) ||
    !isString(state) ||
    !isString(type) ||
    !isStringOrNull(domain) ||
    !isStrings(tags) ||
    !isString(description) ||
    !isStringOrNull(trigger) ||
    !(confidence === null || typeof confidence === 'number') ||
    !isStringOrNull(created) ||
    !isString(fix) ||
    !isRest(rest)
  )
    return undefined
  const r = rest as Record<string, unknown>
  const tier = r['tier'] ?? PROJECT_TIER
  const weight = r['weight'] ?? 1
  const triggers = r['triggers'] ?? (trigger === null ? [] : [trigger])
  const evidencePaths = r['evidencePaths'] ?? []
  const evidenceCommit = r['evidenceCommit'] ?? null
  const supersedes = r['supersedes'] ?? []
  const path = r['path'] ?? defaultPath(state, name)
  if (
    !isString(tier) ||
    typeof weight !== 'number' ||
    !isStrings(triggers) ||
    !isStrings(evidencePaths) ||
    !isStringOrNull(evidenceCommit) ||
    !isStrings(supersedes) ||
    !isString(path)
  )
    return undefined
  // The order of buildCatalogEntry (src/core/search.ts), so an entry reads the same whether rebuilt or read back.
  return {
    name,
    tier,
    weight,
    state: state as CatalogEntry['state'],
    type,
    domain,
    tags,
    description,
    trigger,
    triggers,
    confidence,
    created,
    evidencePaths,
    evidenceCommit,
    supersedes,
    fix,
    path,
  }
}

/** A project row (list, prune) as one row. */
export function packProjectRow(p: ProjectRow): unknown[] {
  const { name, state, type, domain, tags, description, path } = p.row
  const rest: Record<string, unknown> = {}
  if (p.supersedes.length) rest['supersedes'] = p.supersedes
  if (path !== defaultPath(state, name)) rest['path'] = path
  const row: unknown[] = [name, state, type, domain, tags, description, p.created]
  if (Object.keys(rest).length) row.push(rest)
  return row
}

/** A project row read back, or undefined when it is not one. */
export function unpackProjectRow(v: unknown): ProjectRow | undefined {
  if (!Array.isArray(v) || (v.length !== 7 && v.length !== 8)) return undefined
  const [name, state, type, domain, tags, description, created, rest = {}] = v as unknown[]
  if (
    !isString(name) ||
    !isString(state) ||
    !isString(type) ||
    !isStringOrNull(domain) ||
    !isStrings(tags) ||
    !isString(description) ||
    !isStringOrNull(created) ||
    !isRest(rest)
  )
    return undefined
  const r = rest as Record<string, unknown>
  const supersedes = r['supersedes'] ?? []
  const path = r['path'] ?? defaultPath(state, name)
  if (!isStrings(supersedes) || !isString(path)) return undefined
  return { row: { name, state, type, domain, tags, description, path }, created, supersedes }
}
