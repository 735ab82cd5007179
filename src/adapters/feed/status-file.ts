/**
 * status-<key>.json.deflate: the few columns `status` and `context` read of every learning, written with the rest of the
 * feed cache.
 */
import { STATES } from '../../core/layout.js'
import { lineLengths } from '../../core/context.js'
import type { CatalogEntry } from '../../core/search.js'
import type { StatusEntry } from '../../core/status.js'
import { files, isObject, readDeflatedJson, readSized } from './cache-files.js'
import type { Problem } from './cache-files.js'
import { CACHE_FORMAT } from './feed-key.js'

/**
 * status-<key>.json.deflate (deflated JSON): what `status` and `context` read of every learning, by column, with the
 * rare fields kept sparse (by row): at 10,000 learnings about a tenth of the catalog, which they would otherwise read
 * whole. A column whose values repeat (tier, state, domain, date, set of tags) holds each row's position in a table of
 * its values, so a row is a few small numbers and the entries read back share their strings and lists.
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
  /** Position in `domains`. */
  domain: number[]
  domains: (string | null)[]
  confidence: (number | null)[]
  /** Position in `dates`. */
  created: number[]
  dates: (string | null)[]
  supersedes: Record<string, string[]>
  evidence: Record<string, [string | null, string[]]>
  /** Pending learnings only (the others' are not shown). */
  description: Record<string, string>
  /** Position in `tagSets`, each a list of positions in `tagNames` (context ranks by tags). */
  tags: number[]
  tagSets: number[][]
  tagNames: string[]
}

/** Each value's position in `values`, added when first met. */
function table<T>(): { values: T[]; at(v: T, key?: string): number } {
  const values: T[] = []
  const seen = new Map<unknown, number>()
  return {
    values,
    at(v, key) {
      let at = seen.get(key ?? v)
      if (at === undefined) seen.set(key ?? v, (at = values.push(v) - 1))
      return at
    },
  }
}

export function statusFile(key: string, catalog: readonly CatalogEntry[], problems: Problem[]): StatusFile {
  const tiers = [...new Set(catalog.map((e) => e.tier))]
  const domains = table<string | null>()
  const dates = table<string | null>()
  const tagNames = table<string>()
  const tagSets = table<number[]>()
  const f: StatusFile = {
    format: CACHE_FORMAT,
    key,
    problems,
    tiers,
    name: [],
    tier: [],
    state: [],
    domain: [],
    domains: domains.values,
    confidence: [],
    created: [],
    dates: dates.values,
    supersedes: {},
    evidence: {},
    description: {},
    tags: [],
    tagSets: tagSets.values,
    tagNames: tagNames.values,
  }
  catalog.forEach((e, i) => {
    f.name.push(e.name)
    f.tier.push(tiers.indexOf(e.tier))
    f.state.push(STATES.indexOf(e.state))
    f.domain.push(domains.at(e.domain))
    f.confidence.push(e.confidence)
    f.created.push(dates.at(e.created))
    const set = e.tags.map((t) => tagNames.at(t))
    f.tags.push(tagSets.at(set, set.join(',')))
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
  const columns = [s.tier, s.state, s.domain, s.confidence, s.created, s.tags]
  const tables = [s.tiers, s.problems, s.domains, s.dates, s.tagSets, s.tagNames]
  if (!columns.every((c) => Array.isArray(c) && c.length === n) || !tables.every(Array.isArray)) return undefined
  if (![s.supersedes, s.evidence, s.description].every(isObject)) return undefined
  const isText = (v: unknown) => typeof v === 'string'
  const isTexts = (v: unknown) => Array.isArray(v) && v.every(isText)
  const textOrNull = (v: unknown) => v === null || typeof v === 'string'
  if (
    !s.name.every(isText) ||
    !s.tiers.every(isText) ||
    !s.tagNames.every(isText) ||
    !s.domains.every(textOrNull) ||
    !s.dates.every(textOrNull)
  )
    return undefined
  // A position names an entry of its table, nothing else (not "length", not "__proto__").
  const at = <T>(table: readonly T[], pos: unknown): T | undefined =>
    Number.isInteger(pos) && (pos as number) >= 0 && (pos as number) < table.length ? table[pos as number] : undefined
  // Each set of tags read once, shared (frozen) by its rows, as the empty list is by the entries without supersedes.
  const tagSets: (readonly string[])[] = []
  for (const set of s.tagSets) {
    const tags = Array.isArray(set) ? set.map((pos) => at(s.tagNames, pos)) : undefined
    if (!tags?.every(isText)) return undefined
    tagSets.push(tags.length ? Object.freeze(tags as string[]) : NONE)
  }
  const entries: StatusEntry[] = []
  for (let i = 0; i < n; i++) {
    const state = at(STATES, s.state[i])
    const tier = at(s.tiers, s.tier[i])
    const domain = at(s.domains, s.domain[i])
    const created = at(s.dates, s.created[i])
    const tags = at(tagSets, s.tags[i])
    const confidence = s.confidence[i]
    if (
      state === undefined ||
      tier === undefined ||
      domain === undefined ||
      created === undefined ||
      !tags ||
      (confidence !== null && typeof confidence !== 'number')
    )
      return undefined
    entries.push({
      name: s.name[i] as string,
      tier,
      state,
      domain,
      confidence: confidence ?? null,
      created,
      supersedes: NONE,
      description: '',
      evidenceCommit: null,
      evidencePaths: NONE,
      tags,
    })
  }
  for (const [i, v] of Object.entries(s.supersedes)) {
    const e = at(entries, Number(i))
    if (!e || !isTexts(v)) return undefined
    e.supersedes = v
  }
  for (const [i, v] of Object.entries(s.evidence)) {
    const e = at(entries, Number(i))
    if (!e || !Array.isArray(v) || !textOrNull(v[0]) || !isTexts(v[1])) return undefined
    e.evidenceCommit = v[0] ?? null
    e.evidencePaths = v[1]
  }
  for (const [i, v] of Object.entries(s.description)) {
    const e = at(entries, Number(i))
    if (!e || !isText(v)) return undefined
    e.description = v
  }
  return { entries, problems: s.problems }
}

/**
 * lines-<key>.bin: the lengths of each active learning's two context lines (formatDirective, formatIndexLine), uint16
 * little-endian pairs by row (0 for the others; a longer line is said to be 65,535, which only makes context read
 * its entry to find it does not fit). context decides what fits by them and reads the catalog entries of the lines it
 * takes only. Kept apart from the status rows, which status reads too: they are numbers that do not compress. `known`
 * gives those counted before (a tier's, once per pinned commit, with its name's length added), by row.
 */
export function packLineLengths(
  catalog: readonly CatalogEntry[],
  known: readonly (readonly [number, number] | undefined)[] = [],
): Buffer {
  const out = Buffer.alloc(catalog.length * 4)
  catalog.forEach((e, i) => {
    if (e.state !== 'active') return
    const [directive, index] = known[i] ?? lineLengths(e)
    out.writeUInt16LE(Math.min(0xffff, directive), i * 4)
    out.writeUInt16LE(Math.min(0xffff, index), i * 4 + 2)
  })
  return out
}

/** A row's line lengths: [directive, index line]. */
export type LineLengths = (row: number) => readonly [number, number]

/** The line lengths of a key's `count` rows, or undefined when the file is missing or not their size. */
export function readLineLengths(path: string, count: number): LineLengths | undefined {
  const buf = readSized(path, count * 4)
  return buf && ((row) => [buf.readUInt16LE(row * 4), buf.readUInt16LE(row * 4 + 2)])
}
