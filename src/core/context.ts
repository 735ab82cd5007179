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
import { LazyOrder } from './lazy-order.js'

/** Estimated tokens of a text: ceil(characters / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

/** What ranks a learning in the context (a status row of the cache carries it, without the rest of the entry). */
export type ContextEntry = Pick<CatalogEntry, 'name' | 'tier' | 'confidence' | 'created'> & {
  tags: readonly string[]
  evidencePaths: readonly string[]
}

/** What a line of the context shows of a learning besides its name. */
export type ContextDetail = Pick<CatalogEntry, 'type' | 'trigger' | 'fix' | 'description'>

export interface ContextInput<E extends ContextEntry = CatalogEntry> {
  /** Active learnings (any tier). */
  entries: readonly E[]
  /**
   * The rest of entries[i], read only for the lines shown when `lengths` is given (at 100,000 learnings, the catalog
   * blocks of the ~40 lines shown rather than every block). Entries that are whole catalog entries need none.
   */
  detail?: (i: number) => ContextDetail
  /**
   * The lengths of entries[i]'s directive and index line (formatDirective, formatIndexLine), when known without its
   * detail (the cache holds them): a line that cannot fit is then passed over unread. Each must be exact (65,535 for
   * any longer line): a line read whose length differs throws. Computed from the detail when absent.
   */
  lengths?: (i: number) => readonly [directive: number, indexLine: number]
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

/** Whether a UTF-16 code unit is whitespace as `\s` and `trim` see it (WhiteSpace and LineTerminator). */
const isSpace = (c: number) =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff

/** one(t, n).length, counted without making the string: a rebuild measures every active learning's lines. */
const oneLength = (t: string, n: number) => {
  let length = 0
  let gap = false
  for (let i = 0; i < t.length; i++) {
    if (isSpace(t.charCodeAt(i))) gap = length > 0
    else {
      if (gap) length++
      gap = false
      // Past the cut the line is `n` long, whatever follows.
      if (++length > n) return n
    }
  }
  return length
}

/** A context line as its parts: fixed text, and texts cut to one line of at most so many characters. */
type Parts = (string | readonly [text: string, max: number])[]

function directiveParts(e: Pick<CatalogEntry, 'name' | 'tier'> & ContextDetail): Parts {
  const what = e.fix || e.description
  const name = formatLabel(e)
  if (e.type === 'error-solution' && e.trigger)
    return ['- ', name, ': when you see "', [e.trigger, 90], '": ', [what, 160]]
  if (e.type === 'anti-pattern') return ['- ', name, ': avoid — ', [what, 200]]
  return ['- ', name, ': ', [what, 200]]
}

const indexParts = (e: Pick<CatalogEntry, 'name' | 'tier' | 'description'>): Parts => [
  '- ',
  formatLabel(e),
  ': ',
  [e.description, 140],
]

const joined = (parts: Parts) => parts.map((p) => (typeof p === 'string' ? p : one(p[0], p[1]))).join('')
const measured = (parts: Parts) =>
  parts.reduce((n, p) => n + (typeof p === 'string' ? p.length : oneLength(p[0], p[1])), 0)

/**
 * Whether a learning's evidence paths or tags touch one of the changed files: a file of its evidence paths, or under
 * one of their folders (a glob's fixed part), or a tag equal to a part of a changed file's path (case aside). The
 * changed files are cut into parts once, not once per learning.
 */
export function touchesChanged(changed: readonly string[]): (e: ContextEntry) => boolean {
  if (!changed.length) return () => false
  const parts = new Set(changed.flatMap((file) => file.toLowerCase().split(/[/.]/)))
  return (e) => {
    for (const p of e.evidencePaths) {
      const dir = p.replace(/\/?\*\*?.*$/, '').replace(/\/$/, '')
      if (changed.some((file) => file === p || (dir && (file === dir || file.startsWith(`${dir}/`))))) return true
    }
    return e.tags.some((t) => parts.has(t.toLowerCase()))
  }
}

/** The mark of a tier's learning wherever an agent reads it (context, recall, render); '' for this project's. */
export function tierMark(tier: string): string {
  return tier === 'project' ? '' : `[tier ${tier}: reviewed in that repository, not here]`
}

/** How a learning is named to an agent: a tier's learnings carry their tier, never pass for this project's. */
export function formatLabel(e: Pick<CatalogEntry, 'name' | 'tier'>): string {
  return e.tier === 'project' ? e.name : `${e.name} ${tierMark(e.tier)}`
}

/** The directive line of a learning to apply. */
export function formatDirective(e: Pick<CatalogEntry, 'name' | 'tier'> & ContextDetail): string {
  return joined(directiveParts(e))
}

/** The index line of a learning not applied. */
export function formatIndexLine(e: Pick<CatalogEntry, 'name' | 'tier' | 'description'>): string {
  return joined(indexParts(e))
}

/** formatDirective(e).length and formatIndexLine(e).length, without making the lines. */
export function lineLengths(
  e: Pick<CatalogEntry, 'name' | 'tier'> & ContextDetail,
): [directive: number, index: number] {
  return [measured(directiveParts(e)), measured(indexParts(e))]
}

/** The context's first line (whose learnings it holds) and last (how to read one, how to look an error up). */
export function contextFrame(entries: readonly Pick<ContextEntry, 'tier'>[]): { header: string; footer: string } {
  const tiers = [...new Set(entries.map((e) => e.tier).filter((t) => t !== 'project'))]
  const header = tiers.length
    ? `git-learn: learnings reviewed in this project (.learnings/active/), and learnings of the tier${tiers.length === 1 ? '' : 's'} ${tiers.join(', ')} (reviewed in their own repositories; marked [tier …]).`
    : 'git-learn: learnings reviewed in this project (.learnings/active/).'
  const footer =
    'Read one in full with `git learn show <name>`; look an error up with `git learn search "<error text>"`.'
  return { header, footer }
}

/**
 * The line that says how many learnings were left out and where to see them: this project's with `list` (which shows
 * no tier's), a tier's with `search` (which reads every tier).
 */
function moreLine(omitted: number, fromTiers: number): string {
  const own = omitted - fromTiers
  const parts = [
    ...(own ? [`+${own} more: \`git learn list --state active\``] : []),
    ...(fromTiers ? [`+${fromTiers} more from tiers: \`git learn search "<words>"\``] : []),
  ]
  return `(${parts.join('; ')})`
}

/**
 * The context text within config.context.max_tokens. The learnings to apply come most relevant first (touching a
 * changed file, then by effective confidence, then by name and tier), every directive that fits taken, also after
 * one that did not; then the others, the same way and then by recall matches, until one does not fit. Only as many
 * as are shown are put in order (lazy-order.ts), and with `lengths` only the lines shown read their entry's detail.
 */
export function buildContext<E extends ContextEntry>(input: ContextInput<E>): BuiltContext {
  const { confidence: cc, context } = input.config
  const { entries } = input
  const detail = input.detail ?? ((i: number) => entries[i] as unknown as ContextDetail)
  const touches = touchesChanged(input.changedFiles)
  const n = entries.length
  const conf = new Float64Array(n)
  const near = new Uint8Array(n)
  const matches = new Float64Array(n)
  const apply: number[] = []
  const rest: number[] = []
  let fromTiers = 0
  entries.forEach((e, i) => {
    const u = input.usage.get(e.name) ?? EMPTY_USAGE
    conf[i] = effectiveConfidence(baseConfidence(e.confidence), u, input.now, cc, e.created)
    near[i] = touches(e) ? 1 : 0
    matches[i] = u.matches
    ;((conf[i] as number) >= cc.apply ? apply : rest).push(i)
    if (e.tier !== 'project') fromTiers++
  })
  const byName = (a: number, b: number) => {
    const x = entries[a] as E
    const y = entries[b] as E
    return compareCodeUnits(x.name, y.name) || compareCodeUnits(x.tier, y.tier) || a - b
  }
  const first = (a: number, b: number) =>
    (near[b] as number) - (near[a] as number) || (conf[b] as number) - (conf[a] as number)
  const applyFirst = (a: number, b: number) => (first(a, b) || byName(a, b)) < 0
  const restFirst = (a: number, b: number) =>
    (first(a, b) || (matches[b] as number) - (matches[a] as number) || byName(a, b)) < 0
  const line = (i: number) => {
    const e = entries[i] as E
    return { ...detail(i), name: e.name, tier: e.tier }
  }
  const lengths = input.lengths ?? ((i: number) => lineLengths(line(i)))
  /** A line, held to the length given for it (a stored length is exact, or 65,535 for any longer line). */
  const checked = (text: string, length: number) => {
    if (input.lengths && text.length !== length && !(length === 0xffff && text.length > length))
      throw new Error('a stored context line length does not match its line')
    return text
  }

  const { header, footer } = contextFrame(entries)
  const budget = context.max_tokens * 4
  const lines: string[] = [header]
  let used = header.length + 1 + footer.length + 1
  const applied: string[] = []
  const indexed: string[] = []
  /** A section's heading, written with its first line: a section with no line that fits has none. */
  let heading = ''
  const fits = (length: number) => used + (heading ? heading.length + 1 : 0) + length + 1 <= budget - 80
  const take = (line: string): boolean => {
    if (!fits(line.length)) return false
    if (heading) lines.push(heading)
    lines.push(line)
    used += (heading ? heading.length + 1 : 0) + line.length + 1
    heading = ''
    return true
  }
  const taken = new Set<number>()
  heading = 'Apply these:'
  if (apply.length) {
    // Every directive that fits is taken, also after one that did not; the room only shrinks, so after one does not
    // fit only those no longer than the room left are still tried (at 100,000 learnings, few or none).
    let order = new LazyOrder(apply, applyFirst)
    for (let i = order.next(); i !== undefined; i = order.next()) {
      const length = lengths(i)[0]
      if (fits(length)) {
        if (take(checked(formatDirective(line(i)), length))) taken.add(i)
        continue
      }
      const room = budget - 80 - used - 1 - (heading ? heading.length + 1 : 0)
      order = new LazyOrder(
        order.unread().filter((j) => lengths(j)[0] <= room),
        applyFirst,
      )
    }
  }
  for (const i of taken) applied.push((entries[i] as E).name)
  const notApplied = taken.size ? apply.filter((i) => !taken.has(i)) : apply
  heading = applied.length ? 'Also available:' : 'Available:'
  let shownFromTiers = taken.size ? [...taken].filter((i) => (entries[i] as E).tier !== 'project').length : 0
  for (const orderOf of [() => new LazyOrder(notApplied, applyFirst), () => new LazyOrder(rest, restFirst)]) {
    const order = orderOf()
    let i = order.next()
    while (i !== undefined) {
      const length = lengths(i)[1]
      if (!fits(length) || !take(checked(formatIndexLine(line(i)), length))) break
      indexed.push((entries[i] as E).name)
      if ((entries[i] as E).tier !== 'project') shownFromTiers++
      i = order.next()
    }
    if (i !== undefined) break
  }
  heading = ''
  const omitted = n - applied.length - indexed.length
  if (omitted > 0) {
    const more = moreLine(omitted, fromTiers - shownFromTiers)
    if (used + more.length + 1 <= budget) lines.push(more)
  }
  if (!n) lines.push('No active learnings yet; propose one with `git learn add`.')
  lines.push(footer)
  const text = lines.join('\n')
  return { text, tokens: estimateTokens(text), applied, indexed, omitted }
}
