/**
 * The four quality gates a learning passes before it enters pending/ (DESIGN section 4). Rules over the
 * frontmatter and the body, not a model. A section still holding its template's placeholder text counts as empty.
 */
import type { Config } from './config-schema.js'
import type { Learning } from './learning.js'
import { sectionText, triggersOf } from './learning.js'
import { TRIGGER_REQUIRED } from './learning-schema.js'
import type { LearningType } from './learning-schema.js'

export type GateId = 'depth' | 'reuse' | 'trigger' | 'verify'
export type GateOutcome = 'pass' | 'fail' | 'n/a'

export interface GateResult {
  gate: GateId
  outcome: GateOutcome
  /** Why it passed or failed, and for a failure what to add. */
  reason: string
  /** For depth: the level counted. */
  value?: number
}

export interface GateOptions {
  /** The body of `templates/<type>.md`: a section equal to the template's text counts as not written. */
  template?: string
}

/** Sections that say what was tried, per type (Root Cause or Evidence; decisions give Context, patterns Rationale). */
const INVESTIGATION: Record<LearningType, readonly string[]> = {
  'error-solution': ['Root Cause', 'Evidence'],
  skill: ['Root Cause', 'Evidence'],
  pattern: ['Rationale', 'Root Cause', 'Evidence'],
  'anti-pattern': ['Rationale', 'Root Cause', 'Evidence'],
  decision: ['Context', 'Evidence'],
  instinct: ['Evidence', 'Root Cause'],
}

/** Sections that say how a learning was confirmed, per type; decisions have none (the gate does not apply). */
const VERIFICATION: Record<LearningType, readonly string[]> = {
  'error-solution': ['Verification'],
  skill: ['Verification'],
  pattern: ['Verification'],
  'anti-pattern': ['Verification'],
  decision: [],
  instinct: ['Verification'],
}

/** Words of a trigger that say nothing concrete: refused unless the trigger quotes an error. */
const VAGUE =
  /\b(sometimes|randomly|occasionally|it breaks|doesn'?t work|does not work|not working|weird|strange|stuff|flaky|glitch(?:y|es)?|buggy)\b/i
/** Ordinary words that are vague in a short trigger but appear in real messages ("There might be a problem with …"). */
const SOFT_VAGUE = /\b(something|issues?|problems?|fails?|broken|bug)\b/i
/** A trigger of this many words or more that uses only SOFT_VAGUE words reads as a message, not a shrug. */
const SENTENCE_WORDS = 8
/** Words an error message states its failure with ("Host key verification failed.", "Permission denied (publickey)."). */
const ERROR_WORDS =
  /\b(?:denied|failed|refused|not found|timed out|unable|cannot|can't|could not|couldn't|invalid|missing|unknown|unsupported|forbidden|unauthorized|expired|aborted|rejected|exceeded|not allowed|not permitted|no such)\b/i

/**
 * Signs of an exact error message or concrete symptom. Verbatim output passes whatever ordinary words it holds ("Something
 * went wrong" inside a real message is still the message): any of these makes a trigger concrete.
 */
const CONCRETE = [
  /\b[A-Z]?[A-Za-z]*(?:Error|Exception|Warning|Fault)\b/, // TypeError, NullPointerException, a bare Error
  /\b(?:ERR|E)[A-Z_]{3,}\b/, // ERR_REQUIRE_ESM, ECONNREFUSED
  /\b[A-Z]{1,5}\d{2,}\b/, // TS2307, E0308, SC2086
  /["'`“‘][^"'`”’]{3,}["'`”’]/, // a quoted message
  /\b(?:exit(?:ed)?|status|code|signal|errno)\s*(?:code\s*)?[:=]?\s*-?\d+\b/i, // exit code 137
  /\b\d{3}\b|\b\d+(?:\.\d+)+\b/, // HTTP 502, versions
  /(?:^|\s)[\w.-]+\/[\w./-]+|\b[\w-]+\.(?:[cm]?[jt]sx?|json|ya?ml|toml|py|rs|go|java|kt|rb|lock|md|sh|xml|gradle|cfg|ini|env)\b/, // a path or file
  /^(?:fatal|error|warning|panic|npm ERR!|Traceback|FAIL|E\s)\b|:\s/im, // "fatal: …", "Error: …", "key: value"
  /<([A-Za-z][\w:.-]*)[^>]*>[^<]*<\/\1>/, // an XML body: <Code>AccessDenied</Code>
  /\{\s*"[^"]+"\s*:/, // a JSON body
  /\b[a-z]+[A-Z]\w*\b|\b[A-Za-z]+_[A-Za-z_]+\b|\b[\w.]+\(\)/, // identifiers and calls: useEffect, __dirname, vi.mock()
  /(?:^|\n)\s*at\s+\S+\s+\(|\bline \d+\b/, // a stack frame
]
/**
 * How a section left for the reviewer begins (retro's drafts write it where a machine cannot know the answer, the
 * root cause): such a section counts as unwritten for the gates, and `approve` refuses a learning that still holds one.
 */
export const FOR_THE_REVIEWER = 'To be filled in by the reviewer'

/** The sections of a body that still begin with FOR_THE_REVIEWER, in order. */
export function sectionsForTheReviewer(body: string): string[] {
  const out: string[] = []
  // A heading (`##`, a blank, at least one more character), the first words after it. `[ \t]+(.+?)[ \t]*` took cubic
  // time in a heading line holding a long run of blanks: the heading is its line, trimmed.
  for (const m of body.matchAll(/^##(?=[ \t][^\n\r\u2028\u2029])(.*)\r?\n\s*(.*)$/gm))
    if ((m[2] as string).startsWith(FOR_THE_REVIEWER)) out.push((m[1] as string).trim())
  return out
}

function placeholderOf(template: string | undefined, heading: string): string | undefined {
  return template === undefined ? undefined : sectionText(template, heading)
}

/** The normalized text of a section, or '' when it is missing, empty or still the template's placeholder. */
function writtenSection(learning: Learning, heading: string, template: string | undefined): string {
  const text = sectionText(learning.body, heading)?.trim() ?? ''
  if (!text || text.startsWith(FOR_THE_REVIEWER)) return ''
  const placeholder = placeholderOf(template, heading)
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase()
  return placeholder !== undefined && norm(placeholder) === norm(text) ? '' : text
}

function gatesField(learning: Learning): Record<string, unknown> {
  const g = learning.data['gates']
  return g && typeof g === 'object' && !Array.isArray(g) ? (g as Record<string, unknown>) : {}
}

/** Whether a trigger quotes an exact error or names a concrete symptom; undefined when it does, else why not. */
export function explainVagueTrigger(trigger: string): string | undefined {
  const t = trigger.trim().slice(0, 4000)
  if (t.length < 8) return `the trigger "${t}" is too short to recognise`
  const concrete = CONCRETE.some((r) => r.test(t))
  if (concrete) return undefined
  const words = t.split(/\s+/).length
  const vague = VAGUE.exec(t) ?? (words < SENTENCE_WORDS ? SOFT_VAGUE.exec(t) : null)
  if (vague) return `the trigger "${t}" is vague ("${vague[0]}")`
  if (words >= 5 || (words >= 3 && ERROR_WORDS.test(t))) return undefined
  return `the trigger "${t}" names no error message or concrete symptom`
}

/** Run the four gates over a learning with the `gates` settings of the config. */
export function evaluateGates(learning: Learning, settings: Config['gates'], opts: GateOptions = {}): GateResult[] {
  const type = (typeof learning.data.type === 'string' ? learning.data.type : 'error-solution') as LearningType
  const g = gatesField(learning)
  const results: GateResult[] = []

  // An instinct is a small trigger→action heuristic (often from a user's correction): its confidence comes from use
  // (section 6), not from an investigation, so depth and verification do not apply to it.
  const small = type === 'instinct'
  const investigation = (INVESTIGATION[type] ?? ['Root Cause', 'Evidence']).find((h) =>
    writtenSection(learning, h, opts.template),
  )
  const declared = typeof g['discovery_depth'] === 'number' ? (g['discovery_depth'] as number) : undefined
  // A learning that does not declare its depth but writes down what was tried counts as moderate (2).
  const depth = declared ?? (investigation ? 2 : 0)
  const min = settings.min_discovery_depth
  if (small)
    results.push({
      gate: 'depth',
      outcome: 'n/a',
      reason: 'an instinct earns its confidence from use, not from an investigation',
      value: depth,
    })
  else if (min <= 0)
    results.push({ gate: 'depth', outcome: 'pass', reason: 'gates.min_discovery_depth is 0', value: depth })
  else if (!investigation)
    results.push({
      gate: 'depth',
      outcome: 'fail',
      value: depth,
      reason: `no investigation written down: add a "## ${(INVESTIGATION[type] ?? ['Root Cause'])[0]}" section saying what was tried and what was really going on`,
    })
  else if (depth < min)
    results.push({
      gate: 'depth',
      outcome: 'fail',
      value: depth,
      reason: `discovery depth ${depth} is below the required ${min} (1 any, 2 moderate, 3 significant): ${declared === undefined ? `declare gates.discovery_depth: ${min} if the investigation was that deep` : 'investigate further, or lower gates.min_discovery_depth'}`,
    })
  else
    results.push({
      gate: 'depth',
      outcome: 'pass',
      value: depth,
      reason: `depth ${depth}${declared === undefined ? ' (assumed from the written investigation)' : ''}; "## ${investigation}" says what was tried`,
    })

  const contexts = new Set<string>()
  for (const list of [g['reusability'], learning.data.tags])
    if (Array.isArray(list))
      for (const c of list) if (typeof c === 'string' && c.trim()) contexts.add(c.trim().toLowerCase())
  if (contexts.size >= settings.min_contexts)
    results.push({
      gate: 'reuse',
      outcome: 'pass',
      reason: `${contexts.size} contexts: ${[...contexts].slice(0, 6).join(', ')}`,
    })
  else
    results.push({
      gate: 'reuse',
      outcome: 'fail',
      reason: `names ${contexts.size} context${contexts.size === 1 ? '' : 's'}, ${settings.min_contexts} needed: list where else it applies in gates.reusability or tags (a one-off is not a learning)`,
    })

  const triggers = triggersOf(learning.data)
  if (!triggers.length)
    results.push(
      TRIGGER_REQUIRED.includes(type)
        ? {
            gate: 'trigger',
            outcome: 'fail',
            reason: `a ${type} needs a trigger: quote the exact error message or the concrete symptom`,
          }
        : { gate: 'trigger', outcome: 'n/a', reason: `a ${type} has no trigger to check` },
    )
  else {
    const vague = triggers.map(explainVagueTrigger).find(Boolean)
    results.push(
      vague
        ? {
            gate: 'trigger',
            outcome: 'fail',
            reason: `${vague}: quote the exact error message or describe the concrete symptom`,
          }
        : { gate: 'trigger', outcome: 'pass', reason: 'quotes an error or a concrete symptom' },
    )
  }

  const sections = VERIFICATION[type] ?? ['Verification']
  const verifiedBy =
    typeof g['verification'] === 'string' && (g['verification'] as string).trim()
      ? 'gates.verification'
      : sections.find((h) => writtenSection(learning, h, opts.template))
  if (small && !verifiedBy)
    results.push({
      gate: 'verify',
      outcome: 'n/a',
      reason: 'an instinct is confirmed by use (git learn feedback), not up front',
    })
  else if (!settings.require_verification)
    results.push({ gate: 'verify', outcome: 'pass', reason: 'gates.require_verification is off' })
  else if (!sections.length && !verifiedBy)
    results.push({ gate: 'verify', outcome: 'n/a', reason: `a ${type} records a choice, not a fix to verify` })
  else if (verifiedBy)
    results.push({
      gate: 'verify',
      outcome: 'pass',
      reason: `confirmed in ${verifiedBy === 'gates.verification' ? verifiedBy : `"## ${verifiedBy}"`}`,
    })
  else
    results.push({
      gate: 'verify',
      outcome: 'fail',
      reason: `theoretical only: add a "## ${sections[0]}" section (or gates.verification) with the command that passed afterwards and its result`,
    })
  return results
}

/** The `Learning-Gates` trailer value: `depth=2 reuse=pass trigger=pass verify=pass`. */
export function formatGatesTrailer(results: readonly GateResult[]): string {
  return results
    .map((r) =>
      r.gate === 'depth' && r.outcome !== 'n/a'
        ? `depth=${r.value ?? 0}${r.outcome === 'fail' ? '(fail)' : ''}`
        : `${r.gate}=${r.outcome}`,
    )
    .join(' ')
}

/** The gates that failed. */
export function failedGates(results: readonly GateResult[]): GateResult[] {
  return results.filter((r) => r.outcome === 'fail')
}
