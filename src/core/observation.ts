/**
 * Observation records: one line of `<git-common-dir>/learn/observations.jsonl` per agent hook event. Pure: the
 * adapter maps an agent's payload to an `ObservedEvent`; this module bounds every field (as JSON that still
 * parses), redacts every string through the function it is given, and parses the `observe` settings.
 */

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

function shrink(value: unknown, limit: number, redact: (s: string) => string, depth: number): Shrunk {
  if (typeof value === 'string') {
    if (value.length <= limit / 3 || (value.length <= limit && utf8Length(value) <= limit)) {
      const r = redact(value)
      return utf8Length(r) <= limit ? { value: r, cut: false } : cutString(r, limit, utf8Length(value))
    }
    return cutString(redact(value.slice(0, limit + REDACT_OVERLAP)), limit, utf8Length(value))
  }
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return { value, cut: false }
  if (typeof value !== 'object') return { value: null, cut: true }
  if (depth >= MAX_DEPTH) return { value: '…[truncated: nested too deep]', cut: true }
  const maxItems = Math.max(1, Math.floor(limit / 8))
  if (Array.isArray(value)) {
    const out: unknown[] = []
    let cut = false
    for (let i = 0; i < value.length && i < maxItems; i++) {
      const s = shrink(value[i], limit, redact, depth + 1)
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
  for (const key of keys) {
    if (i++ >= maxItems) {
      out['…'] = `[truncated ${keys.length - maxItems} keys]`
      cut = true
      break
    }
    const k = key.length > MAX_KEY ? `${key.slice(0, MAX_KEY)}…` : key
    const s = shrink((value as Record<string, unknown>)[key], limit, redact, depth + 1)
    out[k] = s.value
    cut ||= s.cut || k !== key
  }
  return { value: out, cut }
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
  redact: (s: string) => string,
): { value: unknown; truncated: boolean } {
  if (value === undefined) return { value: undefined, truncated: false }
  for (let limit = maxBytes; limit >= 32; limit = Math.floor(limit / 2)) {
    const s = shrink(value, limit, redact, 0)
    if (utf8Length(JSON.stringify(s.value) ?? 'null') <= maxBytes) return { value: s.value, truncated: s.cut }
  }
  // Too many small leaves to fit at any per-string limit: keep an excerpt of the whole as one string.
  const marker = truncationMarker(0).length + 12
  const whole = JSON.stringify(value) ?? 'null'
  const head = cutToBytes(
    redact(whole.slice(0, maxBytes + REDACT_OVERLAP)),
    Math.max(0, Math.floor((maxBytes - marker) / 2)),
  )
  return { value: `${head}${truncationMarker(utf8Length(whole) - utf8Length(head))}`, truncated: true }
}

function shortString(v: unknown, redact: (s: string) => string): string | null {
  if (v === null || v === undefined) return null
  const s = redact(typeof v === 'string' ? v : String(v))
  return s.length > MAX_SHORT ? `${s.slice(0, MAX_SHORT)}…` : s
}

/** Joined text larger than this is not scanned in one go: each string is redacted on its own. */
const MAX_BATCH_CHARS = 1024 * 1024

function collectStrings(v: unknown, window: number, out: string[], depth: number, total: { n: number }): void {
  if (total.n > MAX_BATCH_CHARS) return
  if (typeof v === 'string') {
    const s = v.slice(0, window)
    out.push(s)
    total.n += s.length
  } else if (v && typeof v === 'object' && depth < MAX_DEPTH) {
    for (const x of Array.isArray(v) ? v : Object.values(v)) collectStrings(x, window, out, depth + 1, total)
  }
}

/**
 * A redactor for one event. Scanning costs per call, and almost every event holds no secret: every string the
 * record can keep is scanned once, joined; when nothing is found the strings are kept as they are, else each
 * string is redacted on its own.
 */
export function batchRedactor(
  ev: ObservedEvent,
  maxFieldBytes: number,
  redact: (s: string) => string,
): (s: string) => string {
  const strings: string[] = []
  const total = { n: 0 }
  for (const v of [
    ev.agent,
    ev.session,
    ev.event,
    ev.tool,
    ev.tool_use_id,
    ev.cwd,
    ev.subagent,
    ev.input,
    ev.output,
    ev.error,
  ])
    collectStrings(v, maxFieldBytes + REDACT_OVERLAP, strings, 0, total)
  if (total.n > MAX_BATCH_CHARS) return redact
  const joined = strings.join('\n\u0000\n')
  return redact(joined) === joined ? (s) => s : redact
}

/** The record of one event: every field bounded to `maxFieldBytes`, every string redacted. */
export function buildObservationRecord(
  ev: ObservedEvent,
  opts: { ts: string; maxFieldBytes: number; redact: (s: string) => string; parseError?: string },
): ObservationRecord {
  const { maxFieldBytes } = opts
  const redact = batchRedactor(ev, maxFieldBytes, opts.redact)
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
  if (opts.parseError) rec.parse_error = opts.redact(opts.parseError)
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
  /** Redacts the secrets in one string (the scanner of add and check, with secrets.allow). */
  redact: (s: string) => string
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
  const opts = { ts, maxFieldBytes: settings.max_field_bytes, redact: p.redact }
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
