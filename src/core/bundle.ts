/**
 * Bundles of learnings for export and import (DESIGN section 9): what is stripped before a learning travels,
 * and the shape check a received bundle must pass before anything of it is used. Pure.
 */
import type { Frontmatter } from './learning.js'
import { MAX_LEARNING_BYTES } from './learning.js'
import { explainBadName } from './names.js'
import { redactSecrets, scanSecrets } from './secrets.js'
import { TRAILING_BLANKS } from './text-lines.js'

export const BUNDLE_FORMAT = 'git-learn-bundle'
export const BUNDLE_VERSION = 1
/** Most entries a bundle may hold. */
export const MAX_BUNDLE_ENTRIES = 10_000
/** Deepest nesting of frontmatter values accepted from a bundle (real frontmatter is 2–3 levels deep). */
export const MAX_FRONTMATTER_DEPTH = 16

export interface BundleEntry {
  name: string
  frontmatter: Frontmatter
  body: string
}

export interface Bundle {
  format: typeof BUNDLE_FORMAT
  version: typeof BUNDLE_VERSION
  exported: string
  learnings: BundleEntry[]
}

export type StripKind = 'codeBlocks' | 'absolutePaths' | 'sessionIds' | 'emails' | 'timestamps' | 'secrets'
/** How many of each kind were stripped: every kind, 0 included (export --json lists them all). */
export type StripCounts = Record<StripKind, number>

export interface StripOptions {
  keepCode: boolean
  now: Date
  /** Reviewed secret fingerprints (`secrets.allow`). */
  allow?: readonly string[]
  /** Session ids known to belong to the learning (its `source.session`): removed wherever they occur. */
  sessions?: readonly string[]
}

const WEEK = 7 * 86_400_000
const FENCE = /^[ \t]*(`{3,}|~{3,})/
// Absolute paths under the roots where machines keep users' and builds' files; the file name is kept.
const UNIX_PATH =
  /(?<![\w.~$}/:-])\/(?:home|Users|root|tmp|var|opt|usr|etc|mnt|srv|private|Volumes|workspace|work|builds|runner|data|snap|nix)(?:\/[\w.@+%-]+)+/g
const WINDOWS_PATH = /(?<![\w])[A-Za-z]:\\(?:[^\\\s'"`<>|*?]+\\)*[^\\\s'"`<>|*?]*/g
// The local part at most 64 characters (RFC 5321): unbounded, every start in a long run without `@` scanned the rest of
// it, in quadratic time (`%.` repeated, 40 KB: 0.7 s).
const EMAIL = /(?<![\w.+-])(?!git@)[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b/g
// `session: 8c1f…`, `session_id=…`, `"sessionId": "…"`, `session 0f3a…`: an id named as a session's (a digit in it).
const NAMED_SESSION =
  /\b(session(?:[ _-]?id)?)(["']?[ \t]{0,3}[:=][ \t]{0,3}["']?|[ \t]{1,3})(?=[A-Za-z0-9._:-]{0,127}\d)([A-Za-z0-9][A-Za-z0-9._:-]{7,127})/gi
export const CODE_PLACEHOLDER = '_(code block removed on export)_'
export const SESSION_PLACEHOLDER = '<session>'

function bump(counts: StripCounts, kind: StripKind, n = 1): void {
  if (n > 0) counts[kind] += n
}

/** Fenced code blocks replaced by one placeholder line each (an unclosed fence runs to the end). */
export function stripCodeBlocks(text: string): { text: string; count: number } {
  const out: string[] = []
  let fence: string | undefined
  let count = 0
  for (const line of text.split('\n')) {
    const f = FENCE.exec(line)
    if (fence) {
      if (f && (f[1] as string)[0] === fence[0] && (f[1] as string).length >= fence.length && line.trim() === f[1])
        fence = undefined
      continue
    }
    if (f) {
      fence = f[1] as string
      count++
      out.push(CODE_PLACEHOLDER)
      continue
    }
    out.push(line)
  }
  return { text: out.join('\n'), count }
}

/** Strip one string: secrets, absolute paths, e-mails and timestamps older than a week (code blocks are the body's). */
export function stripText(text: string, opts: StripOptions, counts: StripCounts): string {
  const findings = scanSecrets(text, { allow: opts.allow ?? [] })
  if (findings.length) {
    bump(counts, 'secrets', findings.length)
    text = redactSecrets(text, { allow: opts.allow ?? [] })
  }
  const keep = (re: RegExp, kind: StripKind, to: (m: string) => string) => {
    text = text.replace(re, (m) => {
      const r = to(m)
      if (r !== m) bump(counts, kind)
      return r
    })
  }
  for (const session of opts.sessions ?? []) {
    if (session.length < 4) continue
    const parts = text.split(session)
    if (parts.length > 1) {
      bump(counts, 'sessionIds', parts.length - 1)
      text = parts.join(SESSION_PLACEHOLDER)
    }
  }
  text = text.replace(NAMED_SESSION, (m, name: string, separator: string, id: string) => {
    if (id === SESSION_PLACEHOLDER.slice(1, -1) || /^[a-z]+$/i.test(id)) return m
    bump(counts, 'sessionIds')
    return `${name}${separator}${SESSION_PLACEHOLDER}`
  })
  keep(UNIX_PATH, 'absolutePaths', (m) => `<path>/${m.split('/').pop() ?? ''}`)
  keep(WINDOWS_PATH, 'absolutePaths', (m) => `<path>/${m.split('\\').pop() ?? ''}`)
  keep(EMAIL, 'emails', () => '<email>')
  const cutoff = opts.now.getTime() - WEEK
  keep(TIMESTAMP, 'timestamps', (m) => {
    const t = Date.parse(m.replace(' ', 'T'))
    return !Number.isNaN(t) && t < cutoff ? '<timestamp>' : m
  })
  return text
}

/** A string kept as written but for its secrets: an identifier's value, a key. */
function redactOnly(text: string, opts: StripOptions, counts: StripCounts): string {
  const found = scanSecrets(text, { allow: opts.allow ?? [] }).length
  if (!found) return text
  bump(counts, 'secrets', found)
  return redactSecrets(text, { allow: opts.allow ?? [] })
}

/** Every string of a value stripped (`strip`), and every key of its objects redacted. */
function stripValue(
  value: unknown,
  opts: StripOptions,
  counts: StripCounts,
  strip: (text: string, opts: StripOptions, counts: StripCounts) => string = stripText,
): unknown {
  if (typeof value === 'string') return strip(value, opts, counts)
  if (Array.isArray(value)) return value.map((v) => stripValue(v, opts, counts, strip))
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [redactOnly(k, opts, counts), stripValue(v, opts, counts, strip)]),
    )
  return value
}

// Frontmatter keys that are identifiers, never free text: left as they are, but for a secret (a learning committed past
// the hooks can hold anything there).
const VERBATIM = new Set(['name', 'type', 'domain', 'created', 'version', 'confidence', 'related', 'supersedes'])

/** A learning as it may travel: what must not leave the repository stripped, with a count per kind. */
export function stripLearning(
  learning: { name: string; data: Frontmatter; body: string },
  opts: StripOptions,
): { entry: BundleEntry; stripped: StripCounts } {
  const counts: StripCounts = { codeBlocks: 0, absolutePaths: 0, sessionIds: 0, emails: 0, timestamps: 0, secrets: 0 }
  const frontmatter: Frontmatter = {}
  const source = learning.data['source']
  const session =
    source && typeof source === 'object' && !Array.isArray(source)
      ? (source as Record<string, unknown>)['session']
      : undefined
  opts = {
    ...opts,
    sessions: [...(opts.sessions ?? []), ...(typeof session === 'string' && session.trim() ? [session.trim()] : [])],
  }
  for (const [k, v] of Object.entries(learning.data)) {
    const key = redactOnly(k, opts, counts)
    if (k === 'source' && v && typeof v === 'object' && !Array.isArray(v)) {
      const { session, ...rest } = v as Record<string, unknown>
      if (session !== undefined) bump(counts, 'sessionIds')
      frontmatter[key] = stripValue(rest, opts, counts)
    } else frontmatter[key] = stripValue(v, opts, counts, VERBATIM.has(k) ? redactOnly : stripText)
  }
  let body = learning.body
  if (!opts.keepCode) {
    const code = stripCodeBlocks(body)
    bump(counts, 'codeBlocks', code.count)
    body = code.text
  }
  body = stripText(body, opts, counts)
  return { entry: { name: learning.name, frontmatter, body }, stripped: counts }
}

/** A bundle document of stripped entries. */
export function buildBundle(entries: readonly BundleEntry[], now: Date): Bundle {
  return { format: BUNDLE_FORMAT, version: BUNDLE_VERSION, exported: now.toISOString(), learnings: [...entries] }
}

function depthOf(value: unknown, limit: number): number {
  // Bounded: stops counting at `limit`, so a hostile nesting cannot exhaust the stack.
  let max = 0
  const walk = (v: unknown, d: number) => {
    if (d > max) max = d
    if (max > limit || !v || typeof v !== 'object') return
    for (const x of Object.values(v)) walk(x, d + 1)
  }
  walk(value, 0)
  return max
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

/**
 * The entries of a received bundle, or the list of reasons it is refused as a whole: a wrong format or
 * version, too many entries, or any entry that is not {name, frontmatter, body} with a plain kebab-case name
 * (a name like "../x" is an attack, not a typo), a body over 1 MB, or frontmatter nested absurdly deep.
 */
export function parseBundle(value: unknown): { entries: BundleEntry[]; problems: string[] } {
  const problems: string[] = []
  if (!isPlainObject(value)) return { entries: [], problems: ['the bundle is not a JSON or YAML mapping'] }
  if (value['format'] !== BUNDLE_FORMAT)
    problems.push(`"format" must be "${BUNDLE_FORMAT}", not ${JSON.stringify(value['format'] ?? null)?.slice(0, 60)}`)
  if (value['version'] !== BUNDLE_VERSION)
    problems.push(`"version" must be ${BUNDLE_VERSION}, not ${JSON.stringify(value['version'] ?? null)?.slice(0, 60)}`)
  const list = value['learnings']
  if (!Array.isArray(list)) problems.push('"learnings" must be a list of {name, frontmatter, body}')
  else if (list.length > MAX_BUNDLE_ENTRIES)
    problems.push(`the bundle holds ${list.length} learnings; the limit is ${MAX_BUNDLE_ENTRIES}`)
  if (problems.length || !Array.isArray(list)) return { entries: [], problems }
  const entries: BundleEntry[] = []
  list.forEach((e: unknown, i) => {
    const at = `learnings[${i}]`
    if (!isPlainObject(e)) return void problems.push(`${at} is not a mapping of name, frontmatter and body`)
    const { name, frontmatter, body } = e
    if (typeof name !== 'string') return void problems.push(`${at}.name is not a string`)
    const bad = explainBadName(name)
    if (bad) return void problems.push(`${at}.name: ${bad.slice(0, 200)}`)
    if (!isPlainObject(frontmatter)) return void problems.push(`${at} (${name}): frontmatter is not a mapping`)
    if (typeof body !== 'string') return void problems.push(`${at} (${name}): body is not a string`)
    if (body.length > MAX_LEARNING_BYTES)
      return void problems.push(`${at} (${name}): the body is over ${MAX_LEARNING_BYTES} bytes`)
    if (depthOf(frontmatter, MAX_FRONTMATTER_DEPTH) > MAX_FRONTMATTER_DEPTH)
      return void problems.push(`${at} (${name}): frontmatter is nested deeper than ${MAX_FRONTMATTER_DEPTH} levels`)
    if (frontmatter['name'] !== undefined && frontmatter['name'] !== name)
      return void problems.push(
        `${at}: frontmatter name ${JSON.stringify(frontmatter['name']).slice(0, 80)} differs from the entry's name "${name}"`,
      )
    entries.push({ name, frontmatter: frontmatter as Frontmatter, body })
  })
  return problems.length ? { entries: [], problems: problems.slice(0, 20) } : { entries, problems }
}

/** What is already in the store under an entry's name. */
export interface ExistingLearning {
  state: 'pending' | 'active' | 'archived'
  data: Frontmatter
  body: string
}

export type ImportDecision =
  | { kind: 'add'; entry: BundleEntry }
  | { kind: 'update-pending'; entry: BundleEntry; reason: string }
  | { kind: 'skip'; entry: BundleEntry; reason: string; proposedUpdate?: boolean }

const confidenceOf = (d: Frontmatter): number | undefined =>
  typeof d['confidence'] === 'number' ? (d['confidence'] as number) : undefined
const normBody = (b: string) => b.replace(/\r\n?/g, '\n').replace(TRAILING_BLANKS, '').trim()

/** Same learning, ignoring where it came from: type, description, trigger and body compared after normalizing. */
export function isSameContent(a: { data: Frontmatter; body: string }, b: { data: Frontmatter; body: string }): boolean {
  const key = (x: { data: Frontmatter; body: string }) =>
    JSON.stringify([x.data.type ?? null, x.data.description ?? null, x.data.trigger ?? null, normBody(x.body)])
  return key(a) === key(b)
}

/**
 * Per entry, what import does. A new name is added; the same name with the same content is skipped; a higher
 * confidence in the bundle updates a pending copy, and for an active or archived one is only reported as a
 * proposed update; anything else is skipped with its reason. Nothing already in the store is ever lost.
 */
export function planImport(
  entries: readonly BundleEntry[],
  existing: ReadonlyMap<string, ExistingLearning>,
): ImportDecision[] {
  const seen = new Set<string>()
  return entries.map((entry): ImportDecision => {
    if (seen.has(entry.name))
      return { kind: 'skip', entry, reason: 'the bundle holds this name twice; only its first entry is used' }
    seen.add(entry.name)
    const old = existing.get(entry.name)
    if (!old) return { kind: 'add', entry }
    const where = `.learnings/${old.state}/${entry.name}.md`
    if (isSameContent(old, { data: entry.frontmatter, body: entry.body }))
      return { kind: 'skip', entry, reason: `already here with the same content (${where})` }
    const mine = confidenceOf(old.data)
    const theirs = confidenceOf(entry.frontmatter)
    if (theirs !== undefined && theirs > (mine ?? 0)) {
      const c = `confidence ${theirs} in the bundle, ${mine ?? 'none'} here`
      if (old.state === 'pending')
        return {
          kind: 'update-pending',
          entry,
          reason: `${c}: the pending copy is updated (its old text stays in git history)`,
        }
      return {
        kind: 'skip',
        entry,
        reason: `${c}, but it is ${old.state} (${where}): proposed update, not applied — review it and edit the learning if it is better`,
        proposedUpdate: true,
      }
    }
    return {
      kind: 'skip',
      entry,
      reason: `a different learning of this name exists (${where}) and the bundle's confidence is not higher`,
    }
  })
}
