/**
 * Effective confidence (DESIGN section 6): computed from use, never hand-edited.
 *
 *   base + confirm × (helpful + applied + successes) − contradict × (harmful + failures) − decay_per_week × whole weeks since the last
 *   confirmation (or since `created` when never confirmed; no decay when neither is known), clamped to [0, 1].
 *
 * `base` is the frontmatter `confidence`, or DEFAULT_BASE_CONFIDENCE (0.5) when the file has none.
 */
import type { Config } from './config-schema.js'
import type { UsageSummary } from './usage.js'
import { isoTime } from './iso-time.js'

export const DEFAULT_BASE_CONFIDENCE = 0.5
const WEEK_MS = 7 * 24 * 60 * 60 * 1000

/** The frontmatter confidence as a number in [0, 1], or the default. */
export function baseConfidence(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : DEFAULT_BASE_CONFIDENCE
}

/** Whole weeks from `since` (ISO date or time) to `now`; 0 when `since` is unknown or in the future. */
export function weeksSince(since: string | null | undefined, now: Date): number {
  if (!since) return 0
  const t = isoTime(since)
  if (Number.isNaN(t)) return 0
  return Math.max(0, Math.floor((now.getTime() - t) / WEEK_MS))
}

/** The effective confidence of a learning, rounded to 3 decimals. */
export function effectiveConfidence(
  base: number,
  usage: Pick<UsageSummary, 'helpful' | 'applied' | 'harmful' | 'lastConfirmed'> &
    Partial<Pick<UsageSummary, 'successes' | 'failures'>>,
  now: Date,
  config: Config['confidence'],
  created?: string | null,
): number {
  const confirmations = usage.helpful + usage.applied + (usage.successes ?? 0)
  const contradictions = usage.harmful + (usage.failures ?? 0)
  const weeks = weeksSince(usage.lastConfirmed ?? created, now)
  const v = base + config.confirm * confirmations - config.contradict * contradictions - config.decay_per_week * weeks
  return Math.round(Math.min(1, Math.max(0, v)) * 1000) / 1000
}
