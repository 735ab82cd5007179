/**
 * The secret scanner: used by add, check, observe (redaction before anything reaches disk) and export.
 * Pure and synchronous; the rules live in secret-rules.ts.
 */
import { buildKeywordMatcher, scanKeywords } from './keyword-scan.js'
import { SECRET_RULES, type SecretRule } from './secret-rules.js'

export interface SecretFinding {
  /** Rule id, e.g. 'aws-access-key-id', 'github-token', 'private-key', 'url-credentials', 'jwt', 'generic-assignment'. */
  rule: string
  /** Human text: "AWS access key id". */
  description: string
  /** 1-based. */
  line: number
  /** 1-based, in UTF-16 code units. */
  column: number
  /** Offset of the secret value in the text. */
  start: number
  end: number
  /** The value masked; never the full value. */
  masked: string
  /** Stable id of the value for the `secrets.allow` list: `<rule>:<16 hex digits of FNV-1a 64>`. */
  fingerprint: string
  /** Found in a frontmatter value as YAML decodes it (core/agent-safety.ts decodedFrontmatter), not in the text as written. */
  decoded?: true
}

export interface ScanOptions {
  /** Fingerprints of reviewed findings to ignore. */
  allow?: readonly string[]
}

interface Candidate {
  rule: SecretRule
  start: number
  end: number
}

/** Texts longer than this are scanned in newline-aligned chunks so no rule ever sees more than a chunk. */
const CHUNK_SIZE = 256 * 1024
/** Chunks overlap by this much so a secret (a private-key block) cut by a boundary is seen whole by the next one. */
const CHUNK_OVERLAP = 32 * 1024

/** Finds secrets in `text`, most specific rule first when two overlap; allowed fingerprints are dropped. */
export function scanSecrets(text: string, options: ScanOptions = {}): SecretFinding[] {
  const candidates: Candidate[] = []
  if (text.length <= CHUNK_SIZE) {
    collectCandidates(text, 0, candidates)
  } else {
    for (const [from, to] of planChunks(text)) collectCandidates(text.slice(from, to), from, candidates)
  }
  const picked = resolveOverlaps(candidates)
  const allow = options.allow?.length ? new Set(options.allow) : undefined
  const findings: SecretFinding[] = []
  let line = 1
  let lineStart = 0
  let nextNewline = text.indexOf('\n')
  for (const candidate of picked) {
    while (nextNewline !== -1 && nextNewline < candidate.start) {
      line++
      lineStart = nextNewline + 1
      nextNewline = text.indexOf('\n', lineStart)
    }
    const value = text.slice(candidate.start, candidate.end)
    const fingerprint = buildFingerprint(candidate.rule.id, value)
    if (allow?.has(fingerprint)) continue
    findings.push({
      rule: candidate.rule.id,
      description: candidate.rule.description,
      line,
      column: candidate.start - lineStart + 1,
      start: candidate.start,
      end: candidate.end,
      masked: maskSecret(value),
      fingerprint,
    })
  }
  return findings
}

/** Replaces each finding's value with `[REDACTED:<rule>]`. */
export function redactSecrets(text: string, options: ScanOptions = {}): string {
  return redactRanges(text, scanSecrets(text, options))
}

/** A secret's place in a text: what `redactRanges` needs of a finding. */
export interface SecretRange {
  rule: string
  start: number
  end: number
}

/**
 * Replaces each range with `[REDACTED:<rule>]`. Ranges may come from several scans of one text and overlap: ranges
 * that overlap are redacted as one, named by the rule of the one that starts first.
 */
export function redactRanges(text: string, ranges: readonly SecretRange[]): string {
  if (ranges.length === 0) return text
  const sorted = ranges.length === 1 ? ranges : [...ranges].sort((a, b) => a.start - b.start || b.end - a.end)
  let out = ''
  let cursor = 0
  for (const range of sorted) {
    if (range.start < cursor) {
      // Overlaps the range just redacted: whatever of it runs past that one goes with it.
      cursor = Math.max(cursor, range.end)
      continue
    }
    out += text.slice(cursor, range.start) + `[REDACTED:${range.rule}]`
    cursor = range.end
  }
  return out + text.slice(cursor)
}

/** First 4 characters + '…' + last 2, or all '*' when the value is too short to show any of it. */
export function maskSecret(value: string): string {
  if (value.length < 12) return '*'.repeat(value.length)
  return `${value.slice(0, 4)}…${value.slice(-2)}`
}

/** `<rule>:<FNV-1a 64 of the UTF-8 value, 16 hex digits>`, the form `secrets.allow` takes. */
export function buildFingerprint(rule: string, value: string): string {
  return `${rule}:${fnv1a64(value)}`
}

/**
 * FNV-1a 64 over the UTF-8 bytes of `value`, as 16 hex digits. Computed on two 32-bit halves: the prime is
 * 2^40 + 0x1b3, so h * prime = h * 0x1b3 + (h << 40), and (h << 40) only adds lo << 8 to the high half.
 */
export function fnv1a64(value: string): string {
  let hi = 0xcbf29ce4
  let lo = 0x84222325
  const step = (byte: number): void => {
    lo ^= byte
    const product = (lo >>> 0) * 0x1b3
    const carry = Math.floor(product / 0x100000000)
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0
    lo = product >>> 0
  }
  for (let i = 0; i < value.length; i++) {
    let code = value.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
      const low = value.charCodeAt(i + 1)
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00)
        i++
      }
    }
    if (code < 0x80) step(code)
    else if (code < 0x800) {
      step(0xc0 | (code >> 6))
      step(0x80 | (code & 0x3f))
    } else if (code < 0x10000) {
      step(0xe0 | (code >> 12))
      step(0x80 | ((code >> 6) & 0x3f))
      step(0x80 | (code & 0x3f))
    } else {
      step(0xf0 | (code >> 18))
      step(0x80 | ((code >> 12) & 0x3f))
      step(0x80 | ((code >> 6) & 0x3f))
      step(0x80 | (code & 0x3f))
    }
  }
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0')
}

/** Every rule keyword once (its id is its position), with the positions of the rules it belongs to. */
const KEYWORD_IDS = new Map<string, number>()
const RULES_BY_KEYWORD: number[][] = []
SECRET_RULES.forEach((rule, i) => {
  for (const keyword of rule.keywords) {
    let id = KEYWORD_IDS.get(keyword)
    if (id === undefined) {
      id = RULES_BY_KEYWORD.push([]) - 1
      KEYWORD_IDS.set(keyword, id)
    }
    ;(RULES_BY_KEYWORD[id] as number[]).push(i)
  }
})
const KEYWORD_MATCHER = buildKeywordMatcher([...KEYWORD_IDS.keys()])

/** 1 for each rule (by position) without keywords: it runs on every text. */
const RUN_ALWAYS = Uint8Array.from(SECRET_RULES, (rule) => (rule.keywords.length ? 0 : 1))

/**
 * Runs each rule whose keywords occur in the lower-cased text (or that has none). No regex is compiled for a rule
 * that cannot match, which keeps the first scan of a process (a hook) cheap, and one keyword pass per text is
 * cheaper than running every rule (a check of 10,000 files).
 */
function collectCandidates(text: string, offset: number, out: Candidate[]): void {
  const run = RUN_ALWAYS.slice()
  scanKeywords(KEYWORD_MATCHER, text.toLowerCase(), (ids) => {
    for (const id of ids) for (const i of RULES_BY_KEYWORD[id] as number[]) run[i] = 1
  })
  for (let i = 0; i < SECRET_RULES.length; i++) if (run[i]) runRule(SECRET_RULES[i] as SecretRule, text, offset, out)
}

/**
 * One rule's matches as candidates. A function of its own: a closure over a `const rule` of the loop above made V8
 * allocate a context at every turn of the loop, run or not (~5 KB a text, a quarter of a full check's garbage).
 */
function runRule(rule: SecretRule, text: string, offset: number, out: Candidate[]): void {
  rule.find(text, (start, end) => out.push({ rule, start: start + offset, end: end + offset }))
}

/** Newline-aligned [from, to) chunks of at most CHUNK_SIZE, each starting CHUNK_OVERLAP before the last one ended. */
function planChunks(text: string): Array<[number, number]> {
  const chunks: Array<[number, number]> = []
  let from = 0
  for (;;) {
    let to = Math.min(text.length, from + CHUNK_SIZE)
    if (to < text.length) {
      const newline = text.lastIndexOf('\n', to)
      if (newline > from + CHUNK_SIZE / 2) to = newline + 1
    }
    chunks.push([from, to])
    if (to >= text.length) return chunks
    let next = to - CHUNK_OVERLAP
    const newline = text.indexOf('\n', next)
    if (newline !== -1 && newline < to) next = newline + 1
    from = Math.max(next, from + 1)
  }
}

/**
 * Where findings overlap (a GitHub token that is also a `TOKEN=` assignment), keeps the higher priority, then the
 * longer match. Candidates are grouped into runs of transitively overlapping ranges, so the quadratic choice only
 * ever sees a handful at once.
 */
function resolveOverlaps(candidates: Candidate[]): Candidate[] {
  candidates.sort((a, b) => a.start - b.start || b.end - a.end)
  const picked: Candidate[] = []
  let group: Candidate[] = []
  let groupEnd = -1
  const flush = (): void => {
    if (group.length === 1) picked.push(...group)
    else if (group.length > 1) {
      const chosen: Candidate[] = []
      group.sort(
        (a, b) => b.rule.priority - a.rule.priority || b.end - b.start - (a.end - a.start) || a.start - b.start,
      )
      for (const candidate of group) {
        if (chosen.every((other) => candidate.end <= other.start || candidate.start >= other.end))
          chosen.push(candidate)
      }
      chosen.sort((a, b) => a.start - b.start)
      picked.push(...chosen)
    }
    group = []
  }
  for (const candidate of candidates) {
    if (candidate.start >= groupEnd) {
      flush()
      groupEnd = candidate.end
    } else {
      groupEnd = Math.max(groupEnd, candidate.end)
    }
    group.push(candidate)
  }
  flush()
  return picked
}
