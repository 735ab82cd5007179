/**
 * The one trust boundary in front of agents: every text that can reach an agent (a learning being added, imported
 * or approved, a tier's learnings, what context, recall and search print) passes these same two scans, secrets and
 * directives aimed at agents, through this one function.
 */
import { scanDirectives } from './directives.js'
import type { DirectiveFinding } from './directives.js'
import { scanSecrets } from './secrets.js'
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
}

export interface HazardOptions {
  /** Reviewed secret fingerprints (secrets.allow). */
  allow?: readonly string[]
  /** Directives were accepted by a person for this learning (--allow-directives, recorded as a trailer). */
  directivesAllowed?: boolean
}

/** What the two scans find in one text, before reviewed fingerprints or accepted directives are applied to it. */
export interface TextScan {
  secrets: SecretFinding[]
  directives: DirectiveFinding[]
}

/** A frontmatter value as YAML decodes it, where that differs from the file's text, and the line of its key. */
export interface DecodedValue {
  line: number
  value: string
}

/** Where a finding in a decoded value is said to be. */
export const DECODED = 'in the value as YAML reads it'

/** Bounds the walk of a hostile frontmatter (the parser bounds its aliases and size already). */
const MAX_VALUES = 2000

/**
 * The strings of a learning's frontmatter (keys and values, at any depth) that do not occur as written in its text:
 * what a double-quoted scalar's escapes (`\x41`, `\u0041`, a backslash before a line break) or a folded scalar's
 * joined lines decode to. The scans read the file; an agent reads these, so they are scanned too. Each comes with the
 * line of its top-level key in `text` (1 when not found).
 */
export function decodedValues(text: string, data: Record<string, unknown>): DecodedValue[] {
  const out: DecodedValue[] = []
  let budget = MAX_VALUES
  const walk = (v: unknown, line: number, depth: number): void => {
    if (budget <= 0 || depth > 20) return
    if (typeof v === 'string') {
      budget--
      if (v && !text.includes(v)) out.push({ line, value: v })
    } else if (Array.isArray(v)) for (const x of v) walk(x, line, depth + 1)
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        walk(k, line, depth + 1)
        walk(x, line, depth + 1)
      }
  }
  for (const [key, value] of Object.entries(data)) {
    walk(key, keyLine(text, key), 0)
    walk(value, keyLine(text, key), 0)
  }
  return out
}

/** The 1-based line of a top-level `key:` in a learning's text; 1 when it is not written plainly. */
function keyLine(text: string, key: string): number {
  const at = text.indexOf(`\n${key}:`)
  if (at === -1) return 1
  let line = 2
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++
  return line
}

/**
 * Both scans of `text`: secrets (without the fingerprints in `allow`) and directives; with its parsed frontmatter
 * `data`, also each value as YAML decodes it (decodedValues), its findings at its key's line. Pure, so it can run in a
 * worker thread (src/adapters/feed/parse-worker.ts) and give what the scans run here would.
 */
export function scanForAgents(
  text: string,
  allow: readonly string[],
  // Required, undefined only for a text that is no learning (a zone file): a road that forgot it read less than agents do.
  data: Record<string, unknown> | undefined,
): TextScan {
  const scan = { secrets: scanSecrets(text, { allow }), directives: scanDirectives(text) }
  if (data) for (const d of decodedValues(text, data)) addDecoded(scan, d, allow)
  return scan
}

/** The directives of a learning's text and of its frontmatter as YAML decodes it (the commit-msg hook's part). */
export function learningDirectives(text: string, data: Record<string, unknown> | undefined): DirectiveFinding[] {
  const scan: TextScan = { secrets: [], directives: scanDirectives(text) }
  if (data)
    for (const d of decodedValues(text, data))
      for (const x of scanDirectives(d.value))
        if (!scan.directives.some((y) => y.kind === x.kind && y.line === d.line))
          scan.directives.push({ ...x, line: d.line, decoded: true })
  return scan.directives
}

/** The findings in one decoded value, at its line, but a secret or directive the text showed already. */
function addDecoded(scan: TextScan, d: DecodedValue, allow: readonly string[]): void {
  for (const s of scanSecrets(d.value, { allow }))
    if (!scan.secrets.some((x) => x.fingerprint === s.fingerprint))
      scan.secrets.push({ ...s, line: d.line, column: 1, start: 0, end: 0, decoded: true })
  for (const x of scanDirectives(d.value))
    if (!scan.directives.some((y) => y.kind === x.kind && y.line === d.line))
      scan.directives.push({ ...x, line: d.line, decoded: true })
}

/** The hazards in a text already scanned; directives are left out when a person accepted them. */
export function hazardsOf(scan: TextScan, directivesAllowed = false): AgentHazard[] {
  const out: AgentHazard[] = scan.secrets.map((s) => {
    const detail = `line ${s.line}${s.decoded ? ` (${DECODED})` : `, column ${s.column}`}: ${s.description} (${s.rule}): ${s.masked}; fingerprint ${s.fingerprint}`
    return { kind: 'secret', line: s.line, detail, brief: detail }
  })
  if (!directivesAllowed)
    for (const d of scan.directives) {
      const brief = `line ${d.line}${d.decoded ? ` (${DECODED})` : ''}: ${d.description}`
      out.push({ kind: 'directive', line: d.line, detail: `${brief}: "${d.excerpt}"`, brief })
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
  const allow = opts.allow ?? []
  const scan = { secrets: scanSecrets(text, { allow }), directives: opts.directivesAllowed ? [] : scanDirectives(text) }
  if (opts.data) for (const d of decodedValues(text, opts.data)) addDecoded(scan, d, allow)
  return hazardsOf(scan, opts.directivesAllowed)
}

/** Why a learning is kept from agents, in one line (the feed's problem, render's and show's reason). */
export function withheldReason(hazards: readonly Pick<AgentHazard, 'kind' | 'line'>[]): string {
  const kinds = [
    ...new Set(hazards.map((h) => (h.kind === 'secret' ? 'a credential' : 'an instruction aimed at agents'))),
  ].join(' and ')
  return `withheld from agents: it holds ${kinds} (line ${hazards[0]?.line}); run \`git learn check\` for the finding`
}
