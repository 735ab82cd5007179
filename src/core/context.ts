/**
 * What the SessionStart hook injects: the active learnings to apply, as one-line directives, then an index of the
 * rest, most relevant first, within a token budget. Tokens are estimated as characters / 4 (rounded up): close
 * enough for English and code with the common tokenizers, and cheap.
 */
import type { Config } from './config-schema.js'
import { baseConfidence, effectiveConfidence } from './confidence.js'
import type { CatalogEntry } from './search.js'
import type { UsageSummary } from './usage.js'
import { EMPTY_USAGE } from './usage.js'
import { compareCodeUnits } from './compare.js'

/** Estimated tokens of a text: ceil(characters / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

export interface ContextInput {
  /** Active learnings (any tier). */
  entries: readonly CatalogEntry[]
  usage: ReadonlyMap<string, UsageSummary>
  /** Files changed on the current branch (best effort; may be empty). */
  changedFiles: readonly string[]
  now: Date
  config: Pick<Config, 'confidence' | 'context'>
}

export interface BuiltContext {
  text: string
  tokens: number
  applied: string[]
  indexed: string[]
  /** Active learnings that did not fit the budget. */
  omitted: number
}

const one = (t: string, n: number) => {
  const x = t.replace(/\s+/g, ' ').trim()
  return x.length > n ? `${x.slice(0, n - 1)}…` : x
}

/** Whether a learning's evidence paths or tags touch one of the changed files. */
export function touchesChanged(e: CatalogEntry, changed: readonly string[]): boolean {
  if (!changed.length) return false
  for (const file of changed) {
    for (const p of e.evidencePaths) {
      const dir = p.replace(/\/?\*\*?.*$/, '').replace(/\/$/, '')
      if (file === p || (dir && (file === dir || file.startsWith(`${dir}/`)))) return true
    }
    const parts = file.toLowerCase().split(/[/.]/)
    if (e.tags.some((t) => parts.includes(t.toLowerCase()))) return true
  }
  return false
}

/** How a learning is named to an agent: a tier's learnings carry their tier, never pass for this project's. */
export function formatLabel(e: Pick<CatalogEntry, 'name' | 'tier'>): string {
  return e.tier === 'project' ? e.name : `${e.name} [tier ${e.tier}: reviewed in that repository, not here]`
}

/** The directive line of a learning to apply. */
export function formatDirective(e: CatalogEntry): string {
  const what = e.fix || e.description
  const name = formatLabel(e)
  if (e.type === 'error-solution' && e.trigger)
    return `- ${name}: when you see "${one(e.trigger, 90)}": ${one(what, 160)}`
  if (e.type === 'anti-pattern') return `- ${name}: avoid — ${one(what, 200)}`
  return `- ${name}: ${one(what, 200)}`
}

/** The context text within config.context.max_tokens. */
export function buildContext(input: ContextInput): BuiltContext {
  const { confidence: cc, context } = input.config
  const scored = input.entries.map((e) => {
    const u = input.usage.get(e.name) ?? EMPTY_USAGE
    return {
      e,
      u,
      conf: effectiveConfidence(baseConfidence(e.confidence), u, input.now, cc, e.created),
      near: touchesChanged(e, input.changedFiles),
    }
  })
  const byName = (a: { e: CatalogEntry }, b: { e: CatalogEntry }) =>
    compareCodeUnits(a.e.name, b.e.name) || compareCodeUnits(a.e.tier, b.e.tier)
  const apply = scored
    .filter((s) => s.conf >= cc.apply)
    .sort((a, b) => Number(b.near) - Number(a.near) || b.conf - a.conf || byName(a, b))
  const rest = scored
    .filter((s) => s.conf < cc.apply)
    .sort((a, b) => Number(b.near) - Number(a.near) || b.conf - a.conf || b.u.matches - a.u.matches || byName(a, b))

  const tiers = [...new Set(input.entries.map((e) => e.tier).filter((t) => t !== 'project'))]
  const header = tiers.length
    ? `git-learn: learnings reviewed in this project (.learnings/active/), and learnings of the tier${tiers.length === 1 ? '' : 's'} ${tiers.join(', ')} (reviewed in their own repositories; marked [tier …]).`
    : 'git-learn: learnings reviewed in this project (.learnings/active/).'
  const footer =
    'Read one in full with `git learn show <name>`; look an error up with `git learn search "<error text>"`.'
  const budget = context.max_tokens * 4
  const lines: string[] = [header]
  let used = header.length + 1 + footer.length + 1
  const applied: string[] = []
  const indexed: string[] = []
  const take = (line: string): boolean => {
    if (used + line.length + 1 > budget - 80) return false
    lines.push(line)
    used += line.length + 1
    return true
  }
  if (apply.length && take('Apply these:'))
    for (const s of apply) if (take(formatDirective(s.e))) applied.push(s.e.name)
  const notApplied = [...apply.filter((s) => !applied.includes(s.e.name)), ...rest]
  if (notApplied.length && take(applied.length ? 'Also available:' : 'Available:'))
    for (const s of notApplied) {
      if (!take(`- ${formatLabel(s.e)}: ${one(s.e.description, 140)}`)) break
      indexed.push(s.e.name)
    }
  const omitted = input.entries.length - applied.length - indexed.length
  if (omitted > 0) {
    const more = `(+${omitted} more: \`git learn list --state active\`)`
    if (used + more.length + 1 <= budget) lines.push(more)
  }
  if (!input.entries.length) lines.push('No active learnings yet; propose one with `git learn add`.')
  lines.push(footer)
  const text = lines.join('\n')
  return { text, tokens: estimateTokens(text), applied, indexed, omitted }
}
