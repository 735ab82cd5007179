/** Usage events and their per-learning summary (what search, recall, feedback and the retrospective record). */
import { parseJsonLine } from './jsonl.js'

/**
 * match: recall or search handed the learning out; helpful/harmful: `git learn feedback`; applied: followed;
 * success/failure: after recall handed it out, the agent's next run of the same command (or test runner) passed, or
 * failed the same way again (src/core/fix-outcomes.ts).
 */
export const USAGE_EVENT_KINDS = ['match', 'helpful', 'harmful', 'applied', 'success', 'failure'] as const
export type UsageEventKind = (typeof USAGE_EVENT_KINDS)[number]

export interface UsageEvent {
  /** ISO 8601 time. */
  ts: string
  kind: UsageEventKind
  /** The learning's name. */
  name: string
  session?: string
  note?: string
  score?: number
}

export interface UsageSummary {
  matches: number
  helpful: number
  harmful: number
  applied: number
  /** Runs that passed, and that failed the same way, after recall handed the learning out. */
  successes: number
  failures: number
  /** Latest event of any kind (ISO), or null. */
  lastUsed: string | null
  /** Latest confirming event (helpful or applied), or null. */
  lastConfirmed: string | null
}

/**
 * Kinds that confirm a learning (+confidence.confirm each); `harmful` and `failure` contradict it
 * (−confidence.contradict each, counted by src/core/confidence.ts).
 */
export const CONFIRMING: ReadonlySet<UsageEventKind> = new Set(['helpful', 'applied', 'success'])

export const EMPTY_USAGE: UsageSummary = Object.freeze({
  matches: 0,
  helpful: 0,
  harmful: 0,
  applied: 0,
  successes: 0,
  failures: 0,
  lastUsed: null,
  lastConfirmed: null,
})

/**
 * An event's time as the log holds it: an ISO 8601 date-time in UTC (`…Z`, what git-learn writes) or with an offset,
 * or a date (UTC midnight). A time without a zone is not one: `Date.parse` reads it in the reader's local zone, so the
 * same line would mean another instant on a teammate's machine; nor is any other text `Date.parse` happens to take
 * ("Dec 25 2026", "1").
 */
const EVENT_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/

/**
 * One line of events.jsonl as an event, or undefined when it is not one (torn, hand-edited, unknown kind, a time that
 * is not an ISO 8601 instant). A time with an offset is given back in UTC, so that every date shown is a UTC one.
 */
export function parseUsageEvent(line: string): UsageEvent | undefined {
  const e = parseJsonLine(line)
  if (!e) return undefined
  const ts = e['ts']
  if (
    typeof ts !== 'string' ||
    typeof e['name'] !== 'string' ||
    !(USAGE_EVENT_KINDS as readonly unknown[]).includes(e['kind'])
  )
    return undefined
  if (!EVENT_TIME.test(ts)) return undefined
  const t = Date.parse(ts)
  if (Number.isNaN(t)) return undefined
  if (ts.length > 10 && !ts.endsWith('Z')) e['ts'] = new Date(t).toISOString()
  return e as unknown as UsageEvent
}

const later = (a: string | null, b: string): string => (a === null || Date.parse(b) > Date.parse(a) ? b : a)

/** Fold events into a summary per learning name. */
export function summarizeUsage(events: Iterable<UsageEvent>): Map<string, UsageSummary> {
  const out = new Map<string, UsageSummary>()
  for (const e of events) {
    const s = out.get(e.name) ?? { ...EMPTY_USAGE }
    if (e.kind === 'match') s.matches++
    else if (e.kind === 'helpful') s.helpful++
    else if (e.kind === 'harmful') s.harmful++
    else if (e.kind === 'success') s.successes++
    else if (e.kind === 'failure') s.failures++
    else s.applied++
    s.lastUsed = later(s.lastUsed, e.ts)
    if (CONFIRMING.has(e.kind)) s.lastConfirmed = later(s.lastConfirmed, e.ts)
    out.set(e.name, s)
  }
  return out
}

/**
 * What the usage-summary cache keeps per learning: the status/context summary, plus what prune needs to count
 * uses after a learning became active without the events themselves — the latest use (match, helpful or applied),
 * the earliest match, and the RECENT_MATCHES latest match times. Times are also kept as epoch ms, so folding a
 * million events parses each date once.
 */
export interface UsageTotals extends UsageSummary {
  lastUsedMs: number
  lastConfirmedMs: number
  /** Latest match, helpful or applied event (ISO): a "use" for prune. */
  lastUse: string | null
  lastUseMs: number
  /** Earliest match (epoch ms), or null. */
  firstMatchMs: number | null
  /** The latest match times (epoch ms), newest first, at most RECENT_MATCHES. */
  recentMatchMs: number[]
}

/** How many latest match times a UsageTotals keeps: prune counts matches since a date exactly below this. */
export const RECENT_MATCHES = 10

/** A fresh UsageTotals. */
export function emptyTotals(): UsageTotals {
  return {
    ...EMPTY_USAGE,
    lastUsedMs: -Infinity,
    lastConfirmedMs: -Infinity,
    lastUse: null,
    lastUseMs: -Infinity,
    firstMatchMs: null,
    recentMatchMs: [],
  }
}

/** Fold one event into the totals per name (file order; on equal times the first event seen stays, as summarizeUsage does). */
export function foldUsageEvent(totals: Map<string, UsageTotals>, e: UsageEvent): void {
  const t = Date.parse(e.ts)
  if (Number.isNaN(t)) return
  let s = totals.get(e.name)
  if (!s) totals.set(e.name, (s = emptyTotals()))
  if (e.kind === 'match') {
    s.matches++
    if (s.firstMatchMs === null || t < s.firstMatchMs) s.firstMatchMs = t
    const r = s.recentMatchMs
    if (r.length < RECENT_MATCHES || t > (r[r.length - 1] as number)) {
      let i = r.length
      while (i > 0 && (r[i - 1] as number) < t) i--
      r.splice(i, 0, t)
      if (r.length > RECENT_MATCHES) r.pop()
    }
  } else if (e.kind === 'helpful') s.helpful++
  else if (e.kind === 'harmful') s.harmful++
  else if (e.kind === 'success') s.successes++
  else if (e.kind === 'failure') s.failures++
  else s.applied++
  if (t > s.lastUsedMs) {
    s.lastUsedMs = t
    s.lastUsed = e.ts
  }
  if (CONFIRMING.has(e.kind) && t > s.lastConfirmedMs) {
    s.lastConfirmedMs = t
    s.lastConfirmed = e.ts
  }
  if (e.kind !== 'harmful' && e.kind !== 'failure' && t > s.lastUseMs) {
    s.lastUseMs = t
    s.lastUse = e.ts
  }
}

/** A deep copy of one learning's totals. */
export function cloneTotals(s: UsageTotals): UsageTotals {
  return { ...s, recentMatchMs: [...s.recentMatchMs] }
}

/** The status/context summary of the totals. */
export function summarizeTotals(totals: ReadonlyMap<string, UsageTotals>): Map<string, UsageSummary> {
  const out = new Map<string, UsageSummary>()
  for (const [name, s] of totals)
    out.set(name, {
      matches: s.matches,
      helpful: s.helpful,
      harmful: s.harmful,
      applied: s.applied,
      successes: s.successes,
      failures: s.failures,
      lastUsed: s.lastUsed,
      lastConfirmed: s.lastConfirmed,
    })
  return out
}
