/**
 * The one trust boundary in front of agents: every text that can reach an agent (a learning being added, imported
 * or approved, a tier's learnings, what context, recall and search print) passes these same two scans, secrets and
 * directives aimed at agents, through this one function.
 */
import { scanDirectives } from './directives.js'
import type { DirectiveFinding } from './directives.js'
import { scanSecrets } from './secrets.js'
import { lineOfOffset } from './text-lines.js'
import { lowerBound } from './compare.js'
import type { SecretFinding } from './secrets.js'

export interface AgentHazard {
  kind: 'secret' | 'directive'
  /** 1-based line in the text. */
  line: number
  /** One line for a message: the rule and the masked value (secrets) or the excerpt (directives). */
  detail: string
  /**
   * The same without the directive's own words, for what an agent may read (show's refusal): a directive quoted in a
   * refusal is still a directive in front of the agent.
   */
  brief: string
  /** A directive's fingerprint, what a `Learning-Directives-Allowed` trailer names to accept it. */
  fingerprint?: string
}

/** Which directives a person accepted for this learning (core/directives.ts acceptedFor: trailers). */
export type AcceptedDirective = (d: DirectiveFinding) => boolean

export interface HazardOptions {
  /** Reviewed secret fingerprints (secrets.allow). */
  allow?: readonly string[]
  /** The directives a person accepted (none when absent). */
  accepted?: AcceptedDirective
}

/** What the two scans find in one text, before reviewed fingerprints or accepted directives are applied to it. */
export interface TextScan {
  secrets: SecretFinding[]
  directives: DirectiveFinding[]
}

/** Where a finding in a decoded value is said to be. */
export const DECODED = 'in the value as YAML reads it'

/** What can make a frontmatter string decode to other characters than its lines show (see addDecoded). */
const DECODING = /[\\'&*!%]/

/**
 * Characters nobody sees (Unicode's default-ignorable code points: zero-width spaces and joiners, the soft hyphen, the
 * word joiner, a byte order mark, variation selectors, bidi marks, tag characters…). A model reads `ig\u200Bnore` as
 * "ignore", so a directive or a key with one inside a word is still one.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u
const INVISIBLES = /\p{Default_Ignorable_Code_Point}/gu

/**
 * `text` as a reader takes it in: the invisible characters left out, but the tag characters U+E0020–U+E007E, which
 * spell ASCII that no one sees and a model reads, as that ASCII. No line break is added or removed.
 */
function readerText(text: string): string {
  return text.replace(INVISIBLES, (c) => {
    const code = c.codePointAt(0) as number
    return code >= 0xe0020 && code <= 0xe007e ? String.fromCharCode(code - 0xe0000) : ''
  })
}

/** Bounds the walk of a hostile frontmatter (the parser bounds its aliases and size already). */
const MAX_VALUES = 2000
const MAX_DEPTH = 20

/**
 * A learning's frontmatter as YAML decodes it: its strings (keys and values, at any depth), each after a blank line
 * (so no directive run joins two), where each starts, and the line of its top-level key in the file. What a
 * double-quoted scalar's escapes (`\x41`, `\u0041`, a backslash before a line break) or a folded scalar's joined lines
 * decode to is what an agent reads, so it is scanned whether or not the same characters occur elsewhere in the file
 * (a copy in the body cut at a token's boundary is not the value).
 */
function decodedFrontmatter(
  text: string,
  data: Record<string, unknown>,
  read: (s: string) => string = (s) => s,
): { text: string; starts: number[]; lines: number[]; unscreened: boolean } {
  const parts: string[] = []
  let unscreened = false
  const starts: number[] = []
  const lines: number[] = []
  let at = 0
  let budget = MAX_VALUES
  const walk = (v: unknown, line: number, depth: number): void => {
    if (budget <= 0 || depth > MAX_DEPTH) {
      unscreened = true
      return
    }
    if (typeof v === 'string') {
      budget--
      const r = read(v)
      if (!r) return
      parts.push(r)
      starts.push(at)
      lines.push(line)
      at += r.length + 2
    } else if (Array.isArray(v)) for (const x of v) walk(x, line, depth + 1)
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        walk(k, line, depth + 1)
        walk(x, line, depth + 1)
      }
  }
  for (const [key, value] of Object.entries(data)) {
    const line = keyLine(text, key)
    walk(key, line, 0)
    walk(value, line, 0)
  }
  return { text: parts.join('\n\n'), starts, lines, unscreened }
}

/** The 1-based line of a top-level `key:` in a learning's text; 1 when it is not written plainly. */
function keyLine(text: string, key: string): number {
  const at = text.indexOf(`\n${key}:`)
  return at === -1 ? 1 : lineOfOffset(text, at + 1)
}

/**
 * Add to `scan` (of the file as written) what the decoded frontmatter holds: each finding at its key's line, but a
 * secret or a directive the file showed already (by its fingerprint: a plain value's sentence is the same in both).
 */
function addDecoded(
  scan: TextScan,
  text: string,
  data: Record<string, unknown>,
  allow: readonly string[],
  secrets: boolean,
  directives = true,
): void {
  // Only an escape (`\`), a single-quoted scalar's `''`, an anchor or alias, a tag or a directive makes a decoded
  // string other than characters the file shows on its lines, as the scans of the file read them (a folded scalar's
  // lines are joined by those scans as a paragraph's are, and folding cannot join a token: it puts a space between).
  // Without any of them (what `add` writes, nearly every file), the decoded scan would find only what the file's did.
  const close = text.indexOf('\n---', 3)
  if (!DECODING.test(close === -1 ? text : text.slice(0, close))) return
  const d = decodedFrontmatter(text, data)
  addDecodedScans(scan, d, allow, secrets, directives)
  // The values as a reader takes them in too, when an escape (`\u200b`) spells an invisible character.
  if (INVISIBLE.test(d.text))
    addDecodedScans(scan, decodedFrontmatter(text, data, readerText), allow, secrets, directives)
}

/** addDecoded's scans of one decoded frontmatter. */
function addDecodedScans(
  scan: TextScan,
  d: ReturnType<typeof decodedFrontmatter>,
  allow: readonly string[],
  secrets: boolean,
  directives: boolean,
): void {
  // Past the walk's bounds the rest is not read, so the learning could hide anything there: it fails closed (without
  // a fingerprint, nobody can accept it).
  if (d.unscreened && !scan.directives.some((x) => x.kind === 'unscreened'))
    scan.directives.push({
      kind: 'unscreened',
      description: `its frontmatter holds more than ${MAX_VALUES} strings or nests deeper than ${MAX_DEPTH} levels, too much to screen`,
      line: 1,
      excerpt: '',
    })
  if (!d.text) return
  const lineOf = (offset: number) => {
    const i = lowerBound(d.starts, offset)
    return d.lines[d.starts[i] === offset ? i : Math.max(0, i - 1)] as number
  }
  if (secrets)
    for (const s of scanSecrets(d.text, { allow }))
      if (!scan.secrets.some((x) => x.fingerprint === s.fingerprint))
        scan.secrets.push({ ...s, line: lineOf(s.start), column: 1, start: 0, end: 0, decoded: true })
  const found = directives ? scanDirectives(d.text) : []
  if (!found.length) return
  const lineStarts = [0]
  for (let i = d.text.indexOf('\n'); i !== -1; i = d.text.indexOf('\n', i + 1)) lineStarts.push(i + 1)
  for (const x of found) {
    const line = lineOf(lineStarts[x.line - 1] ?? 0)
    if (!scan.directives.some((y) => y.fingerprint === x.fingerprint))
      scan.directives.push({ ...x, line, decoded: true })
  }
}

/**
 * Add to `scan` what the scans of `text` as a reader takes it in (readerText) find, when that text is another one:
 * each at its line, but one of a kind (a secret's rule, a directive's kind) the scan of the file found there already.
 */
function addReaderText(scan: TextScan, text: string, allow: readonly string[], secrets: boolean, directives: boolean) {
  if (!INVISIBLE.test(text)) return
  const read = readerText(text)
  if (secrets)
    for (const s of scanSecrets(read, { allow }))
      if (!scan.secrets.some((x) => x.line === s.line && x.rule === s.rule))
        scan.secrets.push({ ...s, start: 0, end: 0 })
  if (directives)
    for (const d of scanDirectives(read))
      if (!scan.directives.some((x) => x.line === d.line && x.kind === d.kind)) scan.directives.push(d)
}

/**
 * Both scans of `text`: secrets (without the fingerprints in `allow`) and directives, of the text as written and as a
 * reader takes it in (readerText: a word with an invisible character inside is still that word); with its parsed
 * frontmatter `data`, also the frontmatter as YAML decodes it, its findings at their key's line. Pure, so it can run in
 * a worker thread (src/adapters/feed/parse-worker.ts) and give what the scans run here would.
 */
export function scanForAgents(
  text: string,
  allow: readonly string[],
  // Required, undefined only for a text that is no learning (a zone file): a road that forgot it read less than agents do.
  data: Record<string, unknown> | undefined,
  /** False where directives are not reported (the pre-commit hook, zone files): their scan is not run. */
  directives = true,
): TextScan {
  const scan = { secrets: scanSecrets(text, { allow }), directives: directives ? scanDirectives(text) : [] }
  addReaderText(scan, text, allow, true, directives)
  if (data) addDecoded(scan, text, data, allow, true, directives)
  return scan
}

/** The directives of a learning's text and of its frontmatter as YAML decodes it (the commit-msg hook's part). */
export function learningDirectives(text: string, data: Record<string, unknown> | undefined): DirectiveFinding[] {
  const scan: TextScan = { secrets: [], directives: scanDirectives(text) }
  addReaderText(scan, text, [], false, true)
  if (data) addDecoded(scan, text, data, [], false)
  return scan.directives
}

/** The hazards in a text already scanned; the directives `accepted` (by a person, for this learning) are left out. */
export function hazardsOf(scan: TextScan, accepted?: AcceptedDirective): AgentHazard[] {
  const out: AgentHazard[] = scan.secrets.map((s) => {
    const detail = `line ${s.line}${s.decoded ? ` (${DECODED})` : `, column ${s.column}`}: ${s.description} (${s.rule}): ${s.masked}; fingerprint ${s.fingerprint}`
    return { kind: 'secret', line: s.line, detail, brief: detail }
  })
  for (const d of scan.directives) {
    if (accepted?.(d)) continue
    const where = `line ${d.line}${d.decoded ? ` (${DECODED})` : ''}: ${d.description}`
    const fp = d.fingerprint === undefined ? '' : `; fingerprint ${d.fingerprint}`
    out.push({
      kind: 'directive',
      line: d.line,
      detail: `${where}${d.excerpt ? `: "${d.excerpt}"` : ''}${fp}`,
      brief: `${where}${fp}`,
      ...(d.fingerprint === undefined ? {} : { fingerprint: d.fingerprint }),
    })
  }
  return out
}

/**
 * Secrets and agent directives in `text` (and, with `data`, in its frontmatter's decoded values), in that order; empty
 * when it may reach an agent.
 */
export function findAgentHazards(
  text: string,
  opts: HazardOptions & { data?: Record<string, unknown> } = {},
): AgentHazard[] {
  return hazardsOf(scanForAgents(text, opts.allow ?? [], opts.data), opts.accepted)
}

/** Why a learning is kept from agents, in one line (the feed's problem, render's and show's reason). */
export function withheldReason(hazards: readonly Pick<AgentHazard, 'kind' | 'line'>[]): string {
  const kinds = [
    ...new Set(hazards.map((h) => (h.kind === 'secret' ? 'a credential' : 'an instruction aimed at agents'))),
  ].join(' and ')
  return `withheld from agents: it holds ${kinds} (line ${hazards[0]?.line}); run \`git learn check\` for the finding`
}
