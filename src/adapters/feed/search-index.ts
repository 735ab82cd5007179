/**
 * The feed cache, under `<common dir>/learn/cache/`. search, recall, context, status and feedback read learnings
 * from it, never from the 10,000 files themselves.
 *
 * The key (src/adapters/feed-key.ts). `git ls-files -s` gives the blob id of every learning in the index, `git
 * status --porcelain --ignored` the paths whose work-tree file differs from it (edited, added, deleted, untracked,
 * gitignored: the rebuild reads the store's directories, so an ignored learning is indexed like any other); those
 * few are stat'ed (size, mtime, ctime, inode). With the bytes of config.yaml (tier pins and weights) and a stamp of
 * this code, that is the key; on most runs the index file's stat stands in for ls-files. git stats the files in C
 * with its index's stat cache, and no learning is read. Without git's answer the key falls back to stat'ing every
 * file.
 *
 * The files of one key, written by a rebuild (feed-<key>.json last: it marks the set complete):
 * - `feed-<key>.json`: problems (unreadable learnings), tiers, per document [name, state, type, tier], and the byte
 *   offset of each row in the catalog file;
 * - `catalog-<key>.json`: every catalog entry, one JSON object a line (status and context parse it all; search
 *   reads only the rows of its hits);
 * - `terms-<key>.json`, `postings-<key>.txt` and `docs-<key>.bin`: the minisearch index cut by term (src/core/search.ts
 *   splitIndex): a query loads the postings of the terms it can reach, not the whole index, and ranks exactly as
 *   the whole index would; docs-<key>.bin holds each document's id and field lengths by short id, as fixed-width
 *   little-endian uint32 records, so only the documents of those postings are read;
 * - `project-<key>.json`: every readable file of the project store, unfolded, as a listing row (list, prune),
 *   and the project's problems.
 *
 * A rebuild re-parses only the files whose blob id changed: `parsed.json` keeps each file's catalog entry, search
 * document and content hash by path and blob id (git's own id for clean files; computed the same way for the
 * others). A corrupt, torn or foreign cache file is a miss, never an error.
 */
import { createHash } from 'node:crypto'
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import type MiniSearch from 'minisearch'
import type { AsPlainObject } from 'minisearch'
import type { LearningState } from '../../core/errors.js'
import { STATES, STORE_DIR, TIER_REF_PREFIX } from '../../core/layout.js'
import type { LearningSummary } from '../../core/query.js'
import type { CatalogEntry, CatalogView, DocMeta, IndexDoc, IndexHeader, IndexParts, SearchDoc, SearchFilter, SearchHit } from '../../core/search.js'
import type { RecallIndex, RecallPostings } from '../../core/recall-rank.js'
import { invertRecall } from '../../core/recall-rank.js'
import type { StatusEntry } from '../../core/status.js'
import { writeAtomic, writeCacheFile } from '../state/cache-file.js'
import { CACHE_FORMAT, cacheDir, codeStamp, keyingFor, storeFiles } from './feed-key.js'
import type { Keying, StoreState } from './feed-key.js'

export interface Problem {
  path: string
  reason: string
}

interface FeedBase {
  root: string
  commonDir: string
  /** Files that could not be read as learnings (reported once per command as a warning). */
  problems: Problem[]
  /** Whether the cache was used (false: rebuilt now). */
  cached: boolean
}

export interface Feed extends FeedBase {
  catalog: CatalogEntry[]
}

export interface SearchFeed extends FeedBase {
  /** Rank learnings for a query (src/core/search.ts rankLearnings over the cached index). */
  rank(query: string, filter?: SearchFilter, limit?: number): Promise<SearchHit[]>
}

// ---------------------------------------------------------------------------------------------------------------
// Cache files

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

/** Per document, by column (one array of strings parses faster than 30,000 small arrays): name, state, type, tier. */
interface DocColumns {
  names: string[]
  states: LearningState[]
  types: string[]
  /** Position in FeedFile.tiers. */
  tiers: number[]
}

interface FeedFile {
  format: number
  key: string
  problems: Problem[]
  tiers: { tier: string; weight: number }[]
  docs: DocColumns
  /** Byte offset of each catalog row, and one past the last row's separator (docs.names.length + 1 values). */
  rows: number[]
  /** Size of catalog-<key>.json. */
  catalogBytes: number
  /** A tier could not be read for a reason the key does not see (its commit not fetched yet): rebuild next time. */
  volatile?: boolean
}

interface TermsFile {
  format: number
  header: IndexHeader
  terms: string[]
  /** Byte offset of each term's postings in postings-<key>.txt (terms.length + 1 values). */
  offsets: number[]
}

const files = (dir: string, key: string) => ({
  feed: join(dir, `feed-${key}.json`),
  catalog: join(dir, `catalog-${key}.json`),
  terms: join(dir, `terms-${key}.json`),
  postings: join(dir, `postings-${key}.txt`),
  docs: join(dir, `docs-${key}.bin`),
  recall: join(dir, `recall-${key}.json`),
  project: join(dir, `project-${key}.json`),
  status: join(dir, `status-${key}.json`),
})

function readFeedFile(dir: string, key: string): FeedFile | undefined {
  const f = readJson(files(dir, key).feed)
  if (!isObject(f) || f['format'] !== CACHE_FORMAT || f['key'] !== key || f['volatile']) return undefined
  const docs = isObject(f['docs']) ? f['docs'] : {}
  const n = Array.isArray(docs['names']) ? docs['names'].length : -1
  if (!['states', 'types', 'tiers'].every((c) => Array.isArray(docs[c]) && docs[c].length === n)) return undefined
  const rows = f['rows']
  if (!Array.isArray(rows) || rows.length !== n + 1 || !Array.isArray(f['problems']) || !Array.isArray(f['tiers'])) return undefined
  return f as unknown as FeedFile
}

/** Bytes [start, start + length) of an open file. */
function readSlice(fd: number, start: number, length: number): string {
  const buf = Buffer.allocUnsafe(length)
  let got = 0
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, start + got)
    if (n <= 0) throw new Error('the cache file is shorter than its offsets')
    got += n
  }
  return buf.toString('utf8')
}

/** The catalog rows of the cache (every entry), or undefined when the file is missing or does not match. */
function readCatalogFile(dir: string, key: string, feed: FeedFile): CatalogEntry[] | undefined {
  const rows = readJson(files(dir, key).catalog)
  return Array.isArray(rows) && rows.length === feed.docs.names.length && rows.every(isObject) ? (rows as unknown as CatalogEntry[]) : undefined
}

// ---------------------------------------------------------------------------------------------------------------
// Rebuild

interface ParsedFile {
  oid: string
  entry?: CatalogEntry
  /** The file as a listing row (src/core/query.ts summarize). */
  row?: LearningSummary
  doc?: Omit<SearchDoc, 'id'>
  hash?: string
  problem?: string
  /** Why it is kept from agents (a credential, a directive: core/agent-safety.ts); listed, never fed. */
  withheld?: string
}

interface Built {
  catalog: CatalogEntry[]
  problems: Problem[]
  index: MiniSearch<SearchDoc>
  recall: RecallIndex
  /** The catalog position of each recall entry. */
  recallIds: number[]
  /** Every readable project file, unfolded, in store order, and the project's problems. */
  project: ProjectFile
}

/** A project learning as list and prune need it. */
export interface ProjectRow {
  row: LearningSummary
  created: string | null
  supersedes: string[]
}

interface ProjectFile {
  rows: ProjectRow[]
  problems: Problem[]
}

interface RecallFile extends RecallPostings {
  format: number
  key: string
  /** [start, end) of each recall entry's row in catalog-<key>.json. */
  rows: [number, number][]
  catalogBytes: number
}

/** Git's blob id of some bytes: sha1("blob <size>\0" + bytes). */
function blobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

/** `git ls-files -s -z` records as path → {mode, oid}. Sample: "100644 3f2c…e1 0\t.learnings/active/x.md\0". */
function parseLsFiles(out: string | undefined): Map<string, { mode: string; oid: string }> {
  const map = new Map<string, { mode: string; oid: string }>()
  for (const rec of (out ?? '').split('\0')) {
    const tab = rec.indexOf('\t')
    if (tab < 0) continue
    const [mode = '', oid = '', stage = '0'] = rec.slice(0, tab).split(' ')
    if (stage === '0') map.set(rec.slice(tab + 1), { mode, oid })
  }
  return map
}

function readParseCache(dir: string): Map<string, ParsedFile> {
  const f = readJson(join(dir, 'parsed.json'))
  const map = new Map<string, ParsedFile>()
  if (!isObject(f) || f['format'] !== CACHE_FORMAT || f['stamp'] !== codeStamp(createHash) || !isObject(f['files'])) return map
  for (const [path, v] of Object.entries(f['files'])) if (isObject(v) && typeof v['oid'] === 'string') map.set(path, v as unknown as ParsedFile)
  return map
}

/** Why a learning is kept from agents, in one line. */
function withheldReason(hazards: readonly { kind: string; line: number }[]): string {
  const kinds = [...new Set(hazards.map((h) => (h.kind === 'secret' ? 'a credential' : 'an instruction aimed at agents')))].join(' and ')
  return `withheld from agents: it holds ${kinds} (line ${hazards[0]?.line}); run \`git learn check\` for the finding`
}

/** Read every source (re-parsing only changed project files), fold, index, and write the cache files of `state.key`. */

async function rebuild(root: string, commonDir: string, state: StoreState): Promise<Built> {
  const [store, learning, search, sources, { buildRecallIndex }, { summarize }] = await Promise.all([
    import('../store/store.js'),
    import('../../core/learning.js'),
    import('../../core/search.js'),
    import('../store/sources.js'),
    import('../../core/recall-rank.js'),
    import('../../core/query.js'),
  ])
  const dir = cacheDir(commonDir)
  const previous = readParseCache(dir)
  const indexed = parseLsFiles(state.lsFiles ?? (await state.lsLater?.()))
  const parsed = new Map<string, ParsedFile>()
  const problems: Problem[] = []
  const config = await (await import('../store/config.js')).readConfig(root, commonDir)
  const { findAgentHazards } = await import('../../core/agent-safety.js')
  let overrides: Set<string> | undefined
  const screen = async (name: string, text: string): Promise<string | undefined> => {
    let hazards = findAgentHazards(text, { allow: config.secrets.allow })
    if (hazards.some((h) => h.kind === 'directive')) {
      if (!overrides) {
        const [{ readDirectiveOverrides }, { parseDirectivesAllowed }] = await Promise.all([import('../git/index-reader.js'), import('../../core/directives.js')])
        overrides = parseDirectivesAllowed(readDirectiveOverrides(root, process.env))
      }
      hazards = findAgentHazards(text, { allow: config.secrets.allow, directivesAllowed: overrides.has(name) })
    }
    return hazards.length ? withheldReason(hazards) : undefined
  }
  type Item = { entry: CatalogEntry; doc: Omit<SearchDoc, 'id'>; hash: string }
  const project: Item[] = []
  const projectFile: ProjectFile = { rows: [], problems: [] }
  for (const st of STATES) {
    for (const file of storeFiles(root, st)) {
      const path = `${STORE_DIR}/${st}/${file}`
      let result: ParsedFile
      try {
        const clean = state.dirty && !state.dirty.has(path) ? indexed.get(path) : undefined
        let bytes: Buffer | undefined
        let oid: string
        if (clean) {
          if (clean.mode === '120000') throw new Error('is a symbolic link; the store holds only regular files')
          oid = clean.oid
        } else {
          if (lstatSync(join(root, path)).isSymbolicLink()) throw new Error('is a symbolic link; the store holds only regular files')
          bytes = readFileSync(join(root, path))
          oid = blobId(bytes)
        }
        const hit = previous.get(path)
        // A withheld file is screened again (secrets.allow may have taken its finding since).
        if (hit && hit.oid === oid && !hit.withheld && (hit.problem !== undefined || hit.row)) result = hit
        else {
          try {
            const text = store.decodeLearningBytes(bytes ?? readFileSync(join(root, path)), path)
            const l = learning.parseLearning(text, path)
            const { id: _id, ...doc } = search.buildSearchDoc(0, l)
            result = { oid, entry: search.buildCatalogEntry(l, sources.PROJECT_TIER, 1), row: summarize(l), doc, hash: sources.contentHash(l) }
            // The trust boundary (core/agent-safety.ts): what holds a credential or an unaccepted directive is
            // listed but never fed to an agent (search, context, recall), cached with its blob like the rest.
            const withheld = await screen(l.name, text)
            if (withheld) result.withheld = withheld
          } catch (err) {
            const e = err as { reason?: string; message?: string }
            result = { oid, problem: e.reason ?? e.message ?? String(err) }
          }
        }
      } catch (err) {
        result = { oid: '', problem: (err as Error).message }
      }
      if (result.oid) parsed.set(path, result)
      if (result.withheld) {
        problems.push({ path, reason: result.withheld })
        if (result.row) projectFile.rows.push({ row: result.row, created: result.entry?.created ?? null, supersedes: result.entry?.supersedes ?? [] })
      } else if (result.entry && result.doc && result.hash) {
        project.push({ entry: result.entry, doc: result.doc, hash: result.hash })
        if (result.row) projectFile.rows.push({ row: result.row, created: result.entry.created, supersedes: result.entry.supersedes })
      } else {
        problems.push({ path, reason: result.problem ?? 'unreadable' })
        projectFile.problems.push({ path, reason: result.problem ?? 'unreadable' })
      }
    }
  }

  // Tiers (section 9): active learnings read from each pinned commit's git objects. A commit never changes, so its
  // entries, index documents and content hashes are cached under its id (tier-items-<commit>-<stamp>.json) and a
  // rebuild after a project change does not parse, normalize or hash the tier's learnings again.
  const groups: { tier: string; weight: number; items: Item[] }[] = [{ tier: sources.PROJECT_TIER, weight: 1, items: project }]
  let volatile = false
  if (config.tiers.length) {
    const [{ openRepo }, tiers, { loadLearningValidator }] = await Promise.all([import('../store/repo.js'), import('./tiers.js'), import('../store/validators.js')])
    const repo = await openRepo(root)
    const onWarning = (w: { path: string; reason: string }) => {
      const p = tiers.tierProblem(w)
      problems.push({ path: p.path, reason: p.reason })
      if (w.path.startsWith(TIER_REF_PREFIX)) volatile = true
    }
    const pins = await tiers.readTierPins(repo, onWarning)
    const keep = new Set<string>()
    for (const pin of pins) {
      const file = join(dir, `tier-items-${pin.commit}-${codeStamp(createHash).slice(0, 12)}.json`)
      keep.add(file)
      let cached = readTierItems(file, pin.commit)
      if (!cached) {
        const scan = await tiers.readTierLearningsCached(repo.git, pin.tier, pin.commit, loadLearningValidator)
        cached = {
          items: scan.learnings.map((l) => {
            const { id: _id, ...doc } = search.buildSearchDoc(0, l)
            return { entry: { ...search.buildCatalogEntry(l, '', 1), path: l.path }, doc, hash: sources.contentHash(l) }
          }),
          warnings: scan.warnings.map((w) => ({ path: w.path.slice(w.path.indexOf(':') + 1), reason: w.reason })),
        }
        writeTierItems(file, pin.commit, cached)
      }
      for (const w of cached.warnings) onWarning({ path: `${pin.tier}:${w.path}`, reason: w.reason })
      groups.push({
        tier: pin.tier,
        weight: pin.weight,
        // Entries are cached without their tier: its name and weight come from config.yaml, not from the commit.
        items: cached.items.map((it) => ({ ...it, entry: { ...it.entry, tier: pin.tier, weight: pin.weight, path: `${pin.tier}:${it.entry.path}` } })),
      })
    }
    try {
      for (const name of readdirSync(dir)) if (name.startsWith('tier-items-') && !keep.has(join(dir, name))) unlinkSync(join(dir, name))
    } catch {
      // The cache is an optimisation only.
    }
  }

  // Each content once, in the heaviest source (the project on ties), as sources.ts foldSources does.
  const order = [...groups.keys()].sort((a, b) => (groups[b] as (typeof groups)[number]).weight - (groups[a] as (typeof groups)[number]).weight || a - b)
  const seen = new Set<string>()
  const keptByGroup = new Map<number, Item[]>()
  for (const g of order)
    keptByGroup.set(
      g,
      (groups[g] as (typeof groups)[number]).items.filter((it) => {
        if (seen.has(it.hash)) return false
        seen.add(it.hash)
        return true
      }),
    )
  const catalog: CatalogEntry[] = []
  const docs: SearchDoc[] = []
  const columns: DocColumns = { names: [], states: [], types: [], tiers: [] }
  groups.forEach((_g, gi) => {
    for (const it of keptByGroup.get(gi) ?? []) {
      docs.push({ id: catalog.length, ...it.doc })
      catalog.push(it.entry)
      columns.names.push(it.entry.name)
      columns.states.push(it.entry.state)
      columns.types.push(it.entry.type)
      columns.tiers.push(gi)
    }
  })
  const index = search.buildIndex(docs)
  const { index: recall, ids: recallIds } = buildRecallIndex(catalog)
  const built: Built = { catalog, problems, index, recall, recallIds, project: projectFile }
  writeCache(dir, state.key, { ...built, columns, tiers: groups.map((g) => ({ tier: g.tier, weight: g.weight })), volatile, parsed }, search.splitIndex)
  return built
}

interface TierItems {
  items: { entry: CatalogEntry; doc: Omit<SearchDoc, 'id'>; hash: string }[]
  /** Paths inside the tier (without the tier's name). */
  warnings: Problem[]
}

function readTierItems(file: string, commit: string): TierItems | undefined {
  const f = readJson(file)
  if (!isObject(f) || f['format'] !== CACHE_FORMAT || f['commit'] !== commit || !Array.isArray(f['items']) || !Array.isArray(f['warnings'])) return undefined
  if (!(f['items'] as unknown[]).every((it) => isObject(it) && isObject(it['entry']) && isObject(it['doc']) && typeof it['hash'] === 'string')) return undefined
  return f as unknown as TierItems
}

function writeTierItems(file: string, commit: string, t: TierItems): void {
  writeCacheFile(file, JSON.stringify({ format: CACHE_FORMAT, commit, ...t }))
}

function writeCache(
  dir: string,
  key: string,
  b: Built & { columns: DocColumns; tiers: FeedFile['tiers']; volatile: boolean; parsed: Map<string, ParsedFile> },
  splitIndex: typeof import('../../core/search.js').splitIndex,
): void {
  try {
    mkdirSync(dir, { recursive: true })
    const f = files(dir, key)
    // The catalog: "[\n" row ",\n" row … "\n]\n"; rows[i] is where row i starts.
    const rows: number[] = []
    let pos = 2
    const texts = b.catalog.map((e) => {
      const t = JSON.stringify(e)
      rows.push(pos)
      pos += Buffer.byteLength(t) + 2
      return t
    })
    rows.push(pos)
    const catalogText = `[\n${texts.join(',\n')}\n]\n`
    const parts = splitIndex(b.index)
    const offsets: number[] = []
    let at = 0
    for (const p of parts.postings) {
      offsets.push(at)
      at += Buffer.byteLength(p)
    }
    offsets.push(at)
    for (const name of readdirSync(dir)) if (/^(feed|catalog|terms|postings|docs|search|project|recall|status)-/.test(name) && !name.includes(key)) unlinkSync(join(dir, name))
    writeAtomic(f.postings, parts.postings.join(''))
    writeAtomic(f.docs, docTable(parts))
    writeAtomic(f.terms, JSON.stringify({ format: CACHE_FORMAT, header: parts.header, terms: parts.terms, offsets } satisfies TermsFile))
    writeAtomic(f.catalog, catalogText)
    const recallFile: RecallFile = {
      format: CACHE_FORMAT,
      key,
      ...invertRecall(b.recall),
      rows: b.recallIds.map((id) => [rows[id] as number, (rows[id + 1] as number) - 2]),
      catalogBytes: Buffer.byteLength(catalogText),
    }
    writeAtomic(f.recall, JSON.stringify(recallFile))
    writeAtomic(f.project, JSON.stringify({ format: CACHE_FORMAT, key, ...b.project }))
    writeAtomic(f.status, JSON.stringify(statusFile(key, b.catalog, b.problems)))
    writeAtomic(f.feed, JSON.stringify({ format: CACHE_FORMAT, key, problems: b.problems, tiers: b.tiers, docs: b.columns, rows, catalogBytes: Buffer.byteLength(catalogText), ...(b.volatile ? { volatile: true } : {}) } satisfies FeedFile))
    writeAtomic(join(dir, 'last-key'), key)
    writeAtomic(join(dir, 'parsed.json'), JSON.stringify({ format: CACHE_FORMAT, stamp: codeStamp(createHash), files: Object.fromEntries(b.parsed) }))
  } catch {
    // A read-only git dir only costs speed: the next command rebuilds again.
  }
}

const ABSENT = 0xffffffff

/** docs-<key>.bin: per short id, the document's id (ABSENT: none) and its field lengths, uint32 little-endian. */
function docTable(parts: IndexParts): Buffer {
  const width = 1 + Object.keys(parts.header.fieldIds).length
  const buf = Buffer.alloc(parts.docs.length * width * 4)
  parts.docs.forEach((d, short) => {
    buf.writeUInt32LE(d ? d[0] : ABSENT, short * width * 4)
    for (let f = 1; f < width; f++) buf.writeUInt32LE(d?.[1][f - 1] ?? 0, (short * width + f) * 4)
  })
  return buf
}

// ---------------------------------------------------------------------------------------------------------------
// Readers
//
// Each reader starts the two git processes of the key, then, while they run, reads the cache files of the last key
// written (most often still current); if git's answer gives another key, it reads that key's files instead.

function lastKey(dir: string): string | undefined {
  try {
    const k = readFileSync(join(dir, 'last-key'), 'utf8')
    return /^[0-9a-f]{20}$/.test(k) ? k : undefined
  } catch {
    return undefined
  }
}

/** `read(key)` for the key of the store now, read for the last key while git computes the current one. */
async function readWhileKeying<T>(k: Keying, read: (dir: string, key: string) => T | undefined): Promise<{ state: StoreState; hit: T | undefined }> {
  const dir = cacheDir(k.commonDir)
  const guess = lastKey(dir)
  const early = guess ? read(dir, guess) : undefined
  const state = await k.state
  return { state, hit: guess === state.key ? early : read(dir, state.key) }
}

/**
 * status-<key>.json: what `status` reads of every learning, by column, with the rare fields kept sparse (by row):
 * at 10,000 learnings about a tenth of the catalog, which status would otherwise parse whole.
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

function statusFile(key: string, catalog: readonly CatalogEntry[], problems: Problem[]): StatusFile {
  const tiers = [...new Set(catalog.map((e) => e.tier))]
  const f: StatusFile = { format: CACHE_FORMAT, key, problems, tiers, name: [], tier: [], state: [], domain: [], confidence: [], created: [], supersedes: {}, evidence: {}, description: {} }
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

function readStatusFile(dir: string, key: string): { entries: StatusEntry[]; problems: Problem[] } | undefined {
  const f = readJson(files(dir, key).status)
  if (!isObject(f) || f['format'] !== CACHE_FORMAT || f['key'] !== key) return undefined
  const s = f as unknown as StatusFile
  const n = Array.isArray(s.name) ? s.name.length : -1
  const columns = [s.tier, s.state, s.domain, s.confidence, s.created]
  if (!columns.every((c) => Array.isArray(c) && c.length === n) || !Array.isArray(s.tiers) || !Array.isArray(s.problems)) return undefined
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

export interface StatusFeed extends FeedBase {
  entries: StatusEntry[]
}

/** What status needs of every learning, from the cache when it is current (status-<key>.json). */
export async function readStatusFeed(cwd: string): Promise<StatusFeed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  const { state, hit } = await readWhileKeying(k, readStatusFile)
  if (hit) return { root, commonDir, entries: hit.entries, problems: hit.problems, cached: true }
  const built = await rebuild(root, commonDir, state)
  return { root, commonDir, entries: built.catalog, problems: built.problems, cached: false }
}

/** The catalog of every learning in every source and state, from the cache when it is current. */
export async function readFeed(cwd: string): Promise<Feed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  const { state, hit } = await readWhileKeying(k, (dir, key) => {
    const feed = readFeedFile(dir, key)
    const catalog = feed && readCatalogFile(dir, key, feed)
    return feed && catalog ? { feed, catalog } : undefined
  })
  if (hit) return { root, commonDir, catalog: hit.catalog, problems: hit.feed.problems, cached: true }
  const built = await rebuild(root, commonDir, state)
  return { root, commonDir, catalog: built.catalog, problems: built.problems, cached: false }
}

/** The cached index of one key, read lazily: the terms a query reaches, and the rows of its hits. */
class CachedIndex implements CatalogView {
  /** The record of each document, made when ranking first asks for it. */
  private readonly metas = new Map<number, DocMeta>()
  private readonly entries = new Map<number, CatalogEntry>()

  constructor(
    private readonly f: ReturnType<typeof files>,
    readonly feed: FeedFile,
    private readonly terms: TermsFile,
  ) {}

  meta(id: number): DocMeta | undefined {
    let m = this.metas.get(id)
    if (!m) {
      const { names, states, types, tiers } = this.feed.docs
      const name = names[id]
      const state = states[id]
      const type = types[id]
      if (name === undefined || state === undefined || type === undefined) return undefined
      const t = this.feed.tiers[tiers[id] ?? -1]
      m = { name, state, type, tier: t?.tier ?? '?', weight: t?.weight ?? 1 }
      this.metas.set(id, m)
    }
    return m
  }

  entry(id: number): CatalogEntry | undefined {
    const start = this.feed.rows[id]
    const end = this.feed.rows[id + 1]
    if (start === undefined || end === undefined) return undefined
    let e = this.entries.get(id)
    if (!e) {
      const fd = openSync(this.f.catalog, 'r')
      try {
        e = JSON.parse(readSlice(fd, start, end - start - 2)) as CatalogEntry
      } finally {
        closeSync(fd)
      }
      this.entries.set(id, e)
    }
    return e
  }

  /** An index holding the postings of the terms `query` can reach. */
  indexFor(query: string, search: typeof import('../../core/search.js')): MiniSearch<SearchDoc> {
    const { terms, offsets, header } = this.terms
    const picked = search.selectIndexTerms(terms, search.buildQueryTerms(query))
    const fd = openSync(this.f.postings, 'r')
    try {
      if (fstatSync(fd).size !== offsets[offsets.length - 1]) throw new Error('the postings file does not match its offsets')
      const entries: AsPlainObject['index'] = picked.map((i) => [terms[i] as string, JSON.parse(readSlice(fd, offsets[i] as number, (offsets[i + 1] as number) - (offsets[i] as number))) as AsPlainObject['index'][number][1]])
      const table = readFileSync(this.f.docs)
      const width = 1 + Object.keys(header.fieldIds).length
      if (table.length !== header.nextId * width * 4) throw new Error('the document table does not match the index')
      const doc = (short: number): IndexDoc | undefined => {
        if (!Number.isInteger(short) || short < 0 || short >= header.nextId) return undefined
        const at = short * width * 4
        const id = table.readUInt32LE(at)
        if (id === ABSENT) return undefined
        const lengths: number[] = []
        for (let f = 1; f < width; f++) lengths.push(table.readUInt32LE(at + f * 4))
        return [id, lengths]
      }
      return search.joinIndex(header, entries, doc)
    } finally {
      closeSync(fd)
    }
  }
}

function readCachedIndex(dir: string, key: string): CachedIndex | undefined {
  const feed = readFeedFile(dir, key)
  if (!feed) return undefined
  const f = files(dir, key)
  const t = readJson(f.terms)
  if (!isObject(t) || t['format'] !== CACHE_FORMAT || !isObject(t['header']) || !Array.isArray(t['terms']) || !Array.isArray(t['offsets'])) return undefined
  const terms = t as unknown as TermsFile
  if (terms.offsets.length !== terms.terms.length + 1) return undefined
  const catalogSize = statSync(f.catalog, { throwIfNoEntry: false })?.size
  if (catalogSize !== feed.catalogBytes) return undefined
  return new CachedIndex(f, feed, terms)
}

/** The learnings ready to rank, from the cache when it is current. */
export async function readSearchFeed(cwd: string): Promise<SearchFeed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  const [{ state, hit: cached }, search] = await Promise.all([readWhileKeying(k, readCachedIndex), import('../../core/search.js')])
  let built: Built | undefined
  const fresh = async () => (built ??= await rebuild(root, commonDir, state))
  const rankFresh = async (query: string, filter?: SearchFilter, limit?: number) => {
    const b = await fresh()
    return search.rankLearnings(b.index, b.catalog, query, filter, limit)
  }
  if (cached) {
    return {
      root,
      commonDir,
      problems: cached.feed.problems,
      cached: true,
      async rank(query, filter, limit) {
        if (built) return rankFresh(query, filter, limit)
        try {
          return search.rankLearnings(cached.indexFor(query, search), cached, query, filter, limit)
        } catch {
          // A torn or foreign cache file: rebuild, and answer from the fresh index.
          return rankFresh(query, filter, limit)
        }
      },
    }
  }
  const b = await fresh()
  return { root, commonDir, problems: b.problems, cached: false, rank: rankFresh }
}

export interface RecallFeed {
  commonDir: string
  index: RecallIndex | RecallPostings
  /** The catalog entry of recall entry `i`. */
  entry(i: number): CatalogEntry | undefined
}

function readRecallFile(dir: string, key: string): { recall: RecallFile; catalog: string } | undefined {
  const f = files(dir, key)
  const r = readJson(f.recall)
  if (!isObject(r) || r['format'] !== CACHE_FORMAT || r['key'] !== key) return undefined
  const { names, weights, totals, terms, postings, rows } = r as Partial<Record<keyof RecallFile, unknown>>
  const n = Array.isArray(names) ? names.length : -1
  const ok =
    [weights, totals, rows].every((c) => Array.isArray(c) && c.length === n) &&
    Array.isArray(terms) &&
    Array.isArray(postings) &&
    postings.length === terms.length &&
    postings.every((p) => Array.isArray(p) && p.every((d) => Number.isInteger(d) && d >= 0 && d < n)) &&
    statSync(f.catalog, { throwIfNoEntry: false })?.size === r['catalogBytes']
  return ok ? { recall: r as unknown as RecallFile, catalog: f.catalog } : undefined
}

export async function readRecallFeed(cwd: string): Promise<RecallFeed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  const { state, hit } = await readWhileKeying(k, readRecallFile)
  if (hit) {
    const { recall, catalog } = hit
    return {
      commonDir,
      index: recall,
      entry(i) {
        const row = recall.rows[i]
        if (!row) return undefined
        const fd = openSync(catalog, 'r')
        try {
          return JSON.parse(readSlice(fd, row[0], row[1] - row[0])) as CatalogEntry
        } finally {
          closeSync(fd)
        }
      },
    }
  }
  const built = await rebuild(root, commonDir, state)
  return { commonDir, index: built.recall, entry: (i) => built.catalog[built.recallIds[i] as number] }
}

function readProjectFile(dir: string, key: string): ProjectFile | undefined {
  const f = readJson(files(dir, key).project)
  if (!isObject(f) || f['format'] !== CACHE_FORMAT || f['key'] !== key || !Array.isArray(f['rows']) || !Array.isArray(f['problems'])) return undefined
  if (!(f['rows'] as unknown[]).every((r) => isObject(r) && isObject(r['row']) && Array.isArray(r['supersedes']))) return undefined
  return f as unknown as ProjectFile
}

export interface ProjectFeed extends ProjectFile {
  root: string
  commonDir: string
  cached: boolean
}

/**
 * Every readable learning file of the project store (all states, not folded with tiers) as a listing row, and
 * the files that could not be read, from the cache when it is current (else the cache is rebuilt).
 */
export async function readProjectFeed(cwd: string): Promise<ProjectFeed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  const { state, hit } = await readWhileKeying(k, readProjectFile)
  if (hit) return { root, commonDir, ...hit, cached: true }
  const built = await rebuild(root, commonDir, state)
  return { root, commonDir, ...built.project, cached: false }
}

// ---------------------------------------------------------------------------------------------------------------
// Configuration

