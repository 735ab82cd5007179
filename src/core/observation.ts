/**
 * Observation records: one line of `<git-common-dir>/learn/observations.jsonl` per agent hook event. Pure: the
 * adapter maps an agent's payload to an `ObservedEvent`; this module bounds every field (as JSON that still
 * parses), redacts every string through the function it is given, and parses the `observe` settings.
 *
 * Why over 300 lines: bounding, redaction and salvage of a record are one contract, tested as one; the settings
 * parser is the rest.
 */
import { redactRanges } from './secrets.js'
import type { SecretRange } from './secrets.js'

/** An agent hook event mapped to the common shape, before bounding and redaction. */
export interface ObservedEvent {
  agent: string
  session: string | null
  event: string
  tool: string | null
  tool_use_id: string | null
  input?: unknown
  output?: unknown
  error?: unknown
  /** true: the call succeeded; false: it failed; null: not a tool result (a prompt, a session event, a PreToolUse). */
  ok: boolean | null
  cwd: string | null
  /** The subagent's type or id when the event came from a subagent. */
  subagent?: string | null
}

/** One line of observations.jsonl: the event, stamped, its subagent null-free. */
export interface ObservationRecord extends Omit<ObservedEvent, 'subagent'> {
  v: 1
  ts: string
  subagent?: string
  /** Some field was cut to observe.max_field_bytes (its strings end with the truncation marker). */
  truncated?: true
  /** The payload was not JSON (or too large to parse): what could be salvaged is kept, with this reason. */
  parse_error?: string
}

export interface ObserveSettings {
  enabled: boolean
  max_field_bytes: number
  rotate_bytes: number
  ignore_tools: string[]
  skip_subagents: boolean
  /** secrets.allow: fingerprints of reviewed exceptions, passed to the redactor. */
  secrets_allow: string[]
}

export const DEFAULT_OBSERVE_SETTINGS: ObserveSettings = {
  enabled: true,
  max_field_bytes: 5120,
  rotate_bytes: 10485760,
  ignore_tools: [],
  skip_subagents: false,
  secrets_allow: [],
}

/** Short identifiers (session, tool, cwd) are cut to this many characters. */
const MAX_SHORT = 512
/** Characters read past a cut before redacting, so a secret that straddles the cut is still recognised whole. */
const REDACT_OVERLAP = 4096
const MAX_DEPTH = 16
const MAX_KEY = 200

/** The UTF-8 length of a string, without Buffer (core is runtime-neutral). */
export function utf8Length(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4
        i++
      } else n += 3
    } else n += 3
  }
  return n
}

/** The marker that ends a cut string. */
export function truncationMarker(droppedBytes: number): string {
  return `…[truncated ${droppedBytes} bytes]`
}

/** The longest prefix of `s` (already redacted) within `maxBytes` UTF-8 bytes. */
function cutToBytes(s: string, maxBytes: number): string {
  if (s.length <= maxBytes / 3) return s
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : 3
    if (n + w > maxBytes) return s.slice(0, i)
    n += w
    if (w === 4) i++
  }
  return s
}

interface Shrunk {
  value: unknown
  cut: boolean
}

/** Where the secrets of one text are: the scanner of add and check (`scanSecrets` with secrets.allow). */
export type SecretScan = (text: string) => readonly SecretRange[]

/**
 * Redacts one string of a record. With `key`, the string is the value of that key (an object's, or of each string of
 * an array under it): the rules that know a secret by its name (an AWS secret access key, a password assigned) see
 * the name too.
 */
export type Redact = (s: string, key?: string) => string

/**
 * The redaction of a record's strings. Each string is scanned on its own, never joined with others: some rules weigh
 * the words around a value (a hex key beside "wallet" but not "transaction"), and another field's words must not
 * change the verdict. A value under a key is scanned alone and also, as an assignment reads, with its key on its
 * line: `"key": "<the value's first line>"`; what either scan finds in the value is redacted.
 */
export function buildRedactor(scan: SecretScan): Redact {
  // A record repeats short strings (the keys of an array of objects, a tool result's text in two of its fields, every
  // string again when a field is bounded at a smaller limit): each distinct one is scanned once. Same text, same scan.
  const seen = new Map<string, readonly SecretRange[]>()
  const scanOnce: SecretScan = (text) => {
    if (text.length > MEMO_CHARS) return scan(text)
    let found = seen.get(text)
    if (found === undefined) seen.set(text, (found = scan(text)))
    return found
  }
  return (s, key) => {
    const alone = scanOnce(s)
    if (key === undefined) return redactRanges(s, alone)
    const paired = rangesWithKey(scanOnce, key, s)
    return redactRanges(s, paired.length ? [...alone, ...paired] : alone)
  }
}

/** Texts up to this many characters have their scans remembered for the rest of the record. */
const MEMO_CHARS = 4096

/**
 * What a scan of `"key": "<first line of value>"` finds in that line, as ranges of `value`. Only the first line:
 * an assignment names the value on its own line, and a tool's output or a file's text under a key (most of what a
 * record holds) is then scanned a second time for one line only. `"` and `\` are escaped, so the line reads as one
 * quoted string whatever it holds.
 */
function rangesWithKey(scan: SecretScan, key: string, value: string): SecretRange[] {
  const eol = value.search(/[\r\n]/)
  const line = eol === -1 ? value : value.slice(0, eol)
  const k = escapeQuoted((key.length > MAX_KEY ? key.slice(0, MAX_KEY) : key).replace(/\s+/g, ' ').trim()).body
  const v = escapeQuoted(line)
  const from = k.length + 5 // "key": "
  const to = from + v.body.length
  const out: SecretRange[] = []
  for (const r of scan(`"${k}": "${v.body}"`)) {
    const start = Math.max(r.start, from) - from
    const end = Math.min(r.end, to) - from
    if (start >= end) continue
    out.push(
      v.at
        ? { rule: r.rule, start: lastAtOrBefore(v.at, start), end: firstAtOrAfter(v.at, end) }
        : { rule: r.rule, start, end },
    )
  }
  return out
}

/** `s` with `"` and `\` escaped, and for each of its characters its offset in the result when one was escaped. */
function escapeQuoted(s: string): { body: string; at: Int32Array | undefined } {
  if (!/["\\]/.test(s)) return { body: s, at: undefined }
  const at = new Int32Array(s.length + 1)
  let body = ''
  for (let i = 0; i < s.length; i++) {
    at[i] = body.length
    const c = s.charAt(i)
    body += c === '"' || c === '\\' ? `\\${c}` : c
  }
  at[s.length] = body.length
  return { body, at }
}

/** The largest i with at[i] <= offset (at is ascending, at[0] = 0). */
function lastAtOrBefore(at: Int32Array, offset: number): number {
  let lo = 0
  let hi = at.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if ((at[mid] as number) <= offset) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** The smallest i with at[i] >= offset (offset at most the last entry). */
function firstAtOrAfter(at: Int32Array, offset: number): number {
  let lo = 0
  let hi = at.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((at[mid] as number) >= offset) hi = mid
    else lo = mid + 1
  }
  return lo
}

function shrink(value: unknown, limit: number, redact: Redact, depth: number, key?: string): Shrunk {
  if (typeof value === 'string') {
    if (value.length <= limit / 3 || (value.length <= limit && utf8Length(value) <= limit)) {
      const r = redact(value, key)
      return utf8Length(r) <= limit ? { value: r, cut: false } : cutString(r, limit, utf8Length(value))
    }
    return cutString(redact(value.slice(0, limit + REDACT_OVERLAP), key), limit, utf8Length(value))
  }
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return { value, cut: false }
  if (typeof value !== 'object') return { value: null, cut: true }
  if (depth >= MAX_DEPTH) return { value: '…[truncated: nested too deep]', cut: true }
  const maxItems = Math.max(1, Math.floor(limit / 8))
  if (Array.isArray(value)) {
    const out: unknown[] = []
    let cut = false
    for (let i = 0; i < value.length && i < maxItems; i++) {
      const s = shrink(value[i], limit, redact, depth + 1, key)
      out.push(s.value)
      cut ||= s.cut
    }
    if (value.length > maxItems) {
      out.push(`…[truncated ${value.length - maxItems} items]`)
      cut = true
    }
    return { value: out, cut }
  }
  const out: Record<string, unknown> = {}
  let cut = false
  let i = 0
  const keys = Object.keys(value)
  for (const name of keys) {
    if (i++ >= maxItems) {
      out['…'] = `[truncated ${keys.length - maxItems} keys]`
      cut = true
      break
    }
    const k = boundKey(name, redact, out)
    const s = shrink((value as Record<string, unknown>)[name], limit, redact, depth + 1, name)
    out[k.key] = s.value
    cut ||= s.cut || k.cut
  }
  return { value: out, cut }
}

/**
 * An object's key as the record keeps it: redacted (a payload can name a credential by itself, `{"AKIA…": "x"}`),
 * cut to MAX_KEY characters, and told apart from a key already kept (two keys redacted alike stay two).
 */
function boundKey(name: string, redact: Redact, kept: Record<string, unknown>): { key: string; cut: boolean } {
  const head = name.length > MAX_KEY + REDACT_OVERLAP ? name.slice(0, MAX_KEY + REDACT_OVERLAP) : name
  const r = redact(head)
  const cut = head !== name || r.length > MAX_KEY
  let key = cut ? `${r.slice(0, MAX_KEY)}…` : r
  if (key !== name && Object.hasOwn(kept, key)) {
    let n = 2
    while (Object.hasOwn(kept, `${key} (${n})`)) n++
    key = `${key} (${n})`
  }
  return { key, cut }
}

function cutString(redacted: string, limit: number, originalBytes: number): Shrunk {
  const kept = cutToBytes(redacted, Math.max(0, limit))
  return { value: `${kept}${truncationMarker(Math.max(1, originalBytes - utf8Length(kept)))}`, cut: true }
}

/**
 * A JSON value bounded to `maxBytes` of serialized JSON, every string redacted. Strings are cut with a marker,
 * long arrays and objects lose their tail; the per-string limit halves until the whole fits. The result always
 * serializes to valid JSON, so the line still parses.
 */
export function boundJsonValue(
  value: unknown,
  maxBytes: number,
  redact: Redact,
): { value: unknown; truncated: boolean } {
  if (value === undefined) return { value: undefined, truncated: false }
  const fitsIn = (json: string) => json.length <= maxBytes && utf8Length(json) <= maxBytes
  const fits = (v: unknown) => fitsIn(JSON.stringify(v) ?? 'null')
  let whole: string
  let deep = false
  try {
    whole = JSON.stringify(value) ?? 'null'
  } catch (err) {
    if (!(err instanceof RangeError)) throw err
    // Nested deeper than JSON.stringify's recursion reaches (a hostile payload): shrink stops at MAX_DEPTH.
    value = shrink(value, maxBytes, keepAsIs, 0).value
    whole = JSON.stringify(value) ?? 'null'
    deep = true
  }
  let limit = maxBytes
  // A value that must be cut has its limit sought first without redaction, then is redacted at it (and cut further if
  // the markers made it grow): scanning is the cost, and a payload of many strings would otherwise be scanned whole at
  // every halving only to keep a few of them.
  if (!fitsIn(whole))
    while (limit >= 32 && !fits(shrink(value, limit, keepAsIs, 0).value)) limit = Math.floor(limit / 2)
  for (; limit >= 32; limit = Math.floor(limit / 2)) {
    const s = shrink(value, limit, redact, 0)
    if (fits(s.value)) return { value: s.value, truncated: s.cut || deep }
  }
  // Too many small leaves to fit at any per-string limit: keep an excerpt of the whole as one string.
  const marker = truncationMarker(0).length + 12
  const head = cutToBytes(
    redact(whole.slice(0, maxBytes + REDACT_OVERLAP)),
    Math.max(0, Math.floor((maxBytes - marker) / 2)),
  )
  return { value: `${head}${truncationMarker(utf8Length(whole) - utf8Length(head))}`, truncated: true }
}

const keepAsIs: Redact = (s) => s

function shortString(v: unknown, redact: Redact): string | null {
  if (v === null || v === undefined) return null
  const s = redact(typeof v === 'string' ? v : String(v))
  return s.length > MAX_SHORT ? `${s.slice(0, MAX_SHORT)}…` : s
}

/** The record of one event: every field bounded to `maxFieldBytes`, every string (and key) redacted. */
export function buildObservationRecord(
  ev: ObservedEvent,
  opts: { ts: string; maxFieldBytes: number; scan: SecretScan; parseError?: string },
): ObservationRecord {
  const { maxFieldBytes } = opts
  const redact = buildRedactor(opts.scan)
  const rec: ObservationRecord = {
    v: 1,
    ts: opts.ts,
    agent: shortString(ev.agent, redact) ?? 'unknown',
    session: shortString(ev.session, redact),
    event: shortString(ev.event, redact) ?? 'unknown',
    tool: shortString(ev.tool, redact),
    tool_use_id: shortString(ev.tool_use_id, redact),
    ok: ev.ok,
    cwd: shortString(ev.cwd, redact),
  }
  let truncated = false
  for (const field of ['input', 'output', 'error'] as const) {
    if (ev[field] === undefined) continue
    const b = boundJsonValue(ev[field], maxFieldBytes, redact)
    rec[field] = b.value
    truncated ||= b.truncated
  }
  if (ev.subagent) rec.subagent = shortString(ev.subagent, redact) ?? ''
  if (truncated) rec.truncated = true
  // A JSON parser's message quotes the payload: it is redacted like every other string that reaches the file.
  if (opts.parseError) rec.parse_error = redact(opts.parseError)
  return rec
}

/** One JSONL line (with its newline) for a record. */
export function formatObservationLine(rec: ObservationRecord): string {
  return `${JSON.stringify(rec)}\n`
}

/** Does `tool` match an entry of observe.ignore_tools (exact, or a prefix ending in `*` such as `mcp__*`)? */
export function isIgnoredTool(tool: string | null, ignore: readonly string[]): boolean {
  if (!tool) return false
  return ignore.some((p) => (p.endsWith('*') ? tool.startsWith(p.slice(0, -1)) : p === tool))
}

/**
 * The observe settings from a parsed config.yaml mapping: only `observe` and `secrets.allow` are read. A wrong
 * value falls back to its default and is reported (observe never fails on config; `git learn check` does).
 */
export function parseObserveSettings(config: unknown): { settings: ObserveSettings; problems: string[] } {
  const settings: ObserveSettings = { ...DEFAULT_OBSERVE_SETTINGS, ignore_tools: [], secrets_allow: [] }
  const problems: string[] = []
  const root = isRecord(config) ? config : {}
  const o = isRecord(root['observe']) ? root['observe'] : {}
  const int = (k: 'max_field_bytes' | 'rotate_bytes', min: number) => {
    const v = o[k]
    if (v === undefined) return
    if (typeof v === 'number' && Number.isInteger(v) && v >= min) settings[k] = v
    else problems.push(`observe.${k} must be an integer of at least ${min}; using ${settings[k]}`)
  }
  const bool = (k: 'enabled' | 'skip_subagents') => {
    const v = o[k]
    if (v === undefined) return
    if (typeof v === 'boolean') settings[k] = v
    else problems.push(`observe.${k} must be true or false; using ${settings[k]}`)
  }
  bool('enabled')
  bool('skip_subagents')
  int('max_field_bytes', 256)
  int('rotate_bytes', 1024)
  const strings = (v: unknown, what: string): string[] => {
    if (v === undefined) return []
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[]
    problems.push(`${what} must be a list of strings; ignoring it`)
    return []
  }
  settings.ignore_tools = strings(o['ignore_tools'], 'observe.ignore_tools')
  const secrets = isRecord(root['secrets']) ? root['secrets'] : {}
  settings.secrets_allow = strings(secrets['allow'], 'secrets.allow')
  return { settings, problems }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const SALVAGE_FIELDS = [
  'hook_event_name',
  'hookEventName',
  'session_id',
  'sessionId',
  'tool_name',
  'toolName',
  'tool_use_id',
  'cwd',
] as const

/**
 * What can be read from a payload that is not JSON (or was cut at the stdin limit): the first occurrence of each
 * well-known string field, and an excerpt. The excerpt is redacted and bounded like any field.
 */
export function salvagePayload(
  text: string,
  excerptBytes: number,
): { fields: Record<string, string>; excerpt: string } {
  const head = text.slice(0, 256 * 1024)
  const fields: Record<string, string> = {}
  for (const f of SALVAGE_FIELDS) {
    const m = new RegExp(`"${f}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){0,512})"`).exec(head)
    if (!m) continue
    try {
      fields[f] = JSON.parse(`"${m[1] as string}"`) as string
    } catch {
      fields[f] = m[1] as string
    }
  }
  return { fields, excerpt: text.slice(0, excerptBytes + REDACT_OVERLAP) }
}

/**
 * Why a payload is not JSON, without the payload: V8's message quotes the text around the fault (`Unexpected token
 * 'x', "…" is not valid JSON`), and that text can hold anything the agent saw. Only the position is kept.
 */
export function describeJsonError(message: string): string {
  const at = /position (\d+)|line (\d+) column (\d+)/.exec(message)
  if (at?.[1] !== undefined) return `payload is not JSON (at position ${at[1]})`
  if (at?.[2] !== undefined) return `payload is not JSON (at line ${at[2]} column ${at[3]})`
  return /end of (?:JSON )?input/i.test(message) ? 'payload is not JSON (it ends too early)' : 'payload is not JSON'
}

/** What planObservation is given besides the payload: the agent mapping and the secret redaction it applies. */
export interface ObservationPlanning {
  /** The agent's payload mapped to the common shape (src/adapters/agents/agent-payloads.ts). */
  mapPayload: (payload: unknown) => ObservedEvent
  /** Finds the secrets in one string (the scanner of add and check, with secrets.allow). */
  scan: SecretScan
  /** Bytes of a payload that are read; a longer one is treated as cut. */
  maxBytes: number
}

/**
 * The record for a hook payload, or undefined when the settings skip it (an ignored tool, a subagent). A payload
 * that is not JSON, or cut, is recorded with what can be salvaged and `parse_error`.
 */
export function planObservation(
  bytes: Buffer,
  settings: ObserveSettings,
  ts: string,
  p: ObservationPlanning,
): ObservationRecord | undefined {
  const opts = { ts, maxFieldBytes: settings.max_field_bytes, scan: p.scan }
  const cut = bytes.length > p.maxBytes
  const text = bytes.subarray(0, p.maxBytes).toString('utf8')
  let payload: unknown
  let parseError: string | undefined
  if (cut) parseError = `payload larger than ${p.maxBytes} bytes; only its first bytes were read`
  else {
    try {
      payload = JSON.parse(text)
    } catch (err) {
      parseError = describeJsonError((err as Error).message)
    }
  }
  if (parseError !== undefined) {
    const { fields, excerpt } = salvagePayload(text, Math.min(1024, settings.max_field_bytes))
    return buildObservationRecord(
      {
        agent: 'unknown',
        session: fields['session_id'] ?? fields['sessionId'] ?? null,
        event: fields['hook_event_name'] ?? fields['hookEventName'] ?? 'unknown',
        tool: fields['tool_name'] ?? fields['toolName'] ?? null,
        tool_use_id: fields['tool_use_id'] ?? null,
        input: excerpt,
        ok: null,
        cwd: fields['cwd'] ?? null,
      },
      { ...opts, maxFieldBytes: Math.min(1024, settings.max_field_bytes), parseError },
    )
  }
  const ev = p.mapPayload(payload)
  if (isIgnoredTool(ev.tool, settings.ignore_tools)) return undefined
  if (settings.skip_subagents && ev.subagent) return undefined
  return buildObservationRecord(ev, opts)
}
