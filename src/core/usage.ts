/** Usage events and their per-learning summary (what search, recall, feedback and the retrospective record). */

export const USAGE_EVENT_KINDS = ['match', 'helpful', 'harmful', 'applied'] as const
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
  /** Latest event of any kind (ISO), or null. */
  lastUsed: string | null
  /** Latest confirming event (helpful or applied), or null. */
  lastConfirmed: string | null
}

/** Kinds that confirm a learning (+confidence.confirm each) and that contradict it (−confidence.contradict each). */
export const CONFIRMING: ReadonlySet<UsageEventKind> = new Set(['helpful', 'applied'])
export const CONTRADICTING: ReadonlySet<UsageEventKind> = new Set(['harmful'])

export const EMPTY_USAGE: UsageSummary = Object.freeze({ matches: 0, helpful: 0, harmful: 0, applied: 0, lastUsed: null, lastConfirmed: null })

/** One line of events.jsonl as an event, or undefined when it is not one (torn, hand-edited, unknown kind). */
export function parseUsageEvent(line: string): UsageEvent | undefined {
  if (!line.trim()) return undefined
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch {
    return undefined
  }
  if (!v || typeof v !== 'object') return undefined
  const e = v as Record<string, unknown>
  if (typeof e['ts'] !== 'string' || typeof e['name'] !== 'string' || !(USAGE_EVENT_KINDS as readonly unknown[]).includes(e['kind'])) return undefined
  if (Number.isNaN(Date.parse(e['ts']))) return undefined
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
    else s.applied++
    s.lastUsed = later(s.lastUsed, e.ts)
    if (CONFIRMING.has(e.kind)) s.lastConfirmed = later(s.lastConfirmed, e.ts)
    out.set(e.name, s)
  }
  return out
}
