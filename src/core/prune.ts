import { isoTime } from './iso-time.js'
import { RECENT_MATCHES } from './usage.js'
import type { UsageTotals } from './usage.js'

/**
 * Which active learnings prune proposes to archive, and why (DESIGN section 9). Pure: the command gathers the
 * facts (approval dates from the audit trail, usage from the event log) and this decides.
 */

/** What is known about one active learning when prune decides. */
export interface PruneFacts {
  name: string
  /** When it became active: the approval date from the audit trail, else the file's `created` (ISO date or date-time). */
  activeSince: string | null
  /** Where `activeSince` came from, for the report. */
  activeSinceFrom: 'approval' | 'created' | 'unknown'
  /** The last usage event (match, helpful, applied) after it became active, ISO date-time. */
  lastUsed: string | null
  /** Recall matches counted since it became active. */
  matches: number
  /** Names of the active learnings whose `supersedes` lists this one. */
  supersededBy: readonly string[]
}

export type PruneReason =
  | { kind: 'superseded'; by: readonly string[] }
  | { kind: 'unused'; days: number; since: string; from: 'usage' | 'approval' | 'created' }
  | { kind: 'rarely-matched'; matches: number; min: number; days: number }
  /** Named on the command line (`prune <name> --reason "…"`): the reason given. */
  | { kind: 'manual'; text: string }

export interface PruneCandidate {
  name: string
  reasons: PruneReason[]
  /** One line for Learning-Reason. */
  reason: string
}

export interface PruneSettings {
  after_days: number
  min_matches: number
}

const DAY = 86_400_000

/** Whole days from an ISO date or date-time to `now`; undefined when the text is not a date. */
export function daysSince(iso: string, now: Date): number | undefined {
  const t = isoTime(iso)
  if (Number.isNaN(t)) return undefined
  return Math.floor((now.getTime() - t) / DAY)
}

/**
 * A `created` date this far past now is a typo or a wrong clock, not a day in some time zone: `add` writes the local
 * date, which runs up to 14 hours ahead of UTC midnight (UTC+14), the time a date-only `created` is read as.
 */
const CREATED_SLACK_MS = DAY

/**
 * When a learning became active: the later of its approval (the committer date of the newest commit that moved it
 * into active/) and its `created` date. A learning cannot be active before it was proposed, so a `created` after the
 * approval says the approval's clock was behind (a teammate's machine, a rebase that kept an old date): the later
 * date is the one that cannot make it look older than it is. A `created` in the future (a typo: 2062) is not a date
 * it could have been proposed on, and does not count when an approval is known.
 */
export function planActiveSince(
  approved: string | undefined,
  created: string | null,
  now: Date,
): Pick<PruneFacts, 'activeSince' | 'activeSinceFrom'> {
  const a = approved === undefined ? NaN : isoTime(approved)
  const c = created === null ? NaN : isoTime(created)
  if (Number.isNaN(a))
    return created === null
      ? { activeSince: null, activeSinceFrom: 'unknown' }
      : { activeSince: created, activeSinceFrom: 'created' }
  if (!Number.isNaN(c) && c > a && c <= now.getTime() + CREATED_SLACK_MS)
    return { activeSince: created, activeSinceFrom: 'created' }
  return { activeSince: approved as string, activeSinceFrom: 'approval' }
}

/** One line per candidate, for the commit's Learning-Reason and the report. */
export function formatPruneReason(reasons: readonly PruneReason[]): string {
  return reasons
    .map((r) => {
      if (r.kind === 'manual') return r.text
      if (r.kind === 'superseded') return `superseded by ${r.by.join(', ')}`
      if (r.kind === 'unused')
        return `unused for ${r.days} days (last ${r.from === 'usage' ? 'used' : r.from === 'approval' ? 'approved' : 'created'} ${r.since.slice(0, 10)})`
      return `matched ${r.matches} time${r.matches === 1 ? '' : 's'} in ${r.days} days (fewer than ${r.min})`
    })
    .join('; ')
}

/**
 * The learnings to archive, sorted by name. A learning is proposed when another active learning supersedes
 * it, when nothing used it for `after_days` (its last use, else the day it became active), or when it has been
 * active for `after_days` and was matched fewer than `min_matches` times in that time. A learning younger than
 * `after_days` is never proposed for disuse: it has not had the chance to be used.
 */
export function planPrune(facts: readonly PruneFacts[], settings: PruneSettings, now: Date): PruneCandidate[] {
  const out: PruneCandidate[] = []
  for (const f of facts) {
    const reasons: PruneReason[] = []
    if (f.supersededBy.length) reasons.push({ kind: 'superseded', by: [...f.supersededBy].sort() })
    const age = f.activeSince === null ? undefined : daysSince(f.activeSince, now)
    if (age !== undefined && age >= settings.after_days) {
      const lastUse = f.lastUsed === null ? undefined : daysSince(f.lastUsed, now)
      const idle = lastUse ?? age
      if (idle >= settings.after_days) {
        const from = lastUse !== undefined ? 'usage' : f.activeSinceFrom === 'approval' ? 'approval' : 'created'
        reasons.push({
          kind: 'unused',
          days: idle,
          since: (lastUse !== undefined ? f.lastUsed : f.activeSince) as string,
          from,
        })
      }
      if (f.matches < settings.min_matches)
        reasons.push({ kind: 'rarely-matched', matches: f.matches, min: settings.min_matches, days: age })
    }
    if (reasons.length) out.push({ name: f.name, reasons, reason: formatPruneReason(reasons) })
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** For each name, the active learnings whose `supersedes` lists it (only names that are themselves active count). */
export function buildSupersededBy(active: readonly { name: string; supersedes: unknown }[]): Map<string, string[]> {
  const names = new Set(active.map((a) => a.name))
  const out = new Map<string, string[]>()
  for (const a of active) {
    if (!Array.isArray(a.supersedes)) continue
    for (const s of a.supersedes)
      if (typeof s === 'string' && s !== a.name && names.has(s)) out.set(s, [...(out.get(s) ?? []), a.name])
  }
  return out
}

/** A usage event as prune needs it. */
export interface UsageEventLike {
  ts: string
  kind: string
  name: string
}

export interface UsageTally {
  matches: number
  lastUsed: string | null
  lastUsedMs: number
}

/**
 * Fold one usage event into the tallies: only events after the learning became active count; a match, a
 * helpful or an applied event is a use; a match is also counted. Tallies exist only for names in `since`.
 */
export function tallyUsageEvent(
  tallies: Map<string, UsageTally>,
  since: ReadonlyMap<string, number>,
  e: UsageEventLike,
): void {
  const start = since.get(e.name)
  if (start === undefined) return
  const t = Date.parse(e.ts)
  if (Number.isNaN(t) || t < start) return
  if (e.kind !== 'match' && e.kind !== 'helpful' && e.kind !== 'applied' && e.kind !== 'success') return
  let tally = tallies.get(e.name)
  if (!tally) tallies.set(e.name, (tally = { matches: 0, lastUsed: null, lastUsedMs: -Infinity }))
  if (e.kind === 'match') tally.matches++
  if (t > tally.lastUsedMs) {
    tally.lastUsedMs = t
    tally.lastUsed = e.ts
  }
}

/**
 * The tally of one learning from its cached usage totals, counting only uses at or after `start` (epoch ms), as
 * folding every event with tallyUsageEvent would. The match count is exact below RECENT_MATCHES; at or above it,
 * it is a lower bound (RECENT_MATCHES), which is enough while `prune.min_matches` ≤ RECENT_MATCHES.
 */
export function tallyFromTotals(t: UsageTotals | undefined, start: number | undefined): UsageTally | undefined {
  if (!t || start === undefined || t.lastUse === null || t.lastUseMs < start) return undefined
  // Every match is at or after start, or else the matches since start are among the latest RECENT_MATCHES ones
  // (all of them when fewer than RECENT_MATCHES are).
  const matches =
    t.firstMatchMs !== null && t.firstMatchMs >= start ? t.matches : t.recentMatchMs.filter((ms) => ms >= start).length
  return { matches, lastUsed: t.lastUse, lastUsedMs: t.lastUseMs }
}

/** Whether tallyFromTotals decides as exactly as the raw events for this min_matches setting. */
export const totalsSuffice = (minMatches: number): boolean => minMatches <= RECENT_MATCHES
