/**
 * Where learnings live: the store's folder, its state folders, a learning's path and the refs tiers are fetched into.
 * No imports, so the hook fast paths (recall, search's cache, the pre-commit check before it starts git) can name
 * them without loading the learning model of src/core/learning.ts (its schema, and its parser's modules).
 */
import type { LearningState } from './errors.js'

export const STATES: readonly LearningState[] = ['pending', 'active', 'archived']
export const STORE_DIR = '.learnings'
/** A tier `<name>` is fetched into `${TIER_REF_PREFIX}<name>`. */
export const TIER_REF_PREFIX = 'refs/learn/tiers/'
/** The state and name a repository-relative path stands for, or undefined outside the store's layout. */
export function parseStorePath(path: string): { state: LearningState; name: string } | undefined {
  const m = /^\.learnings\/(pending|active|archived)\/([^/]+)\.md$/.exec(path)
  if (!m) return undefined
  return { state: m[1] as LearningState, name: m[2] as string }
}

/** The repository-relative path of a learning. */
export function learningPath(state: LearningState, name: string): string {
  return `${STORE_DIR}/${state}/${name}.md`
}

/**
 * The files git learn writes in its local state dir, `<git common dir>/learn/`, named here for their writers and for
 * check's zone rule, which refuses a copy of one in the work tree (src/core/check-zones.ts: isLocalStateFile). The
 * folders of derived data beside them (`cache/`, `recalls/`, `transcripts/`, `transitions/`, `tmp/`) are not named.
 */
export const STATE_FILES = {
  /** One line per agent hook event (observe, capture). */
  observations: 'observations.jsonl',
  /** The rotated observation logs, `observations-<time>-….jsonl` each. */
  observationsArchive: 'observations.archive',
  observationsLock: 'rotate.lock',
  /** What observe could not do; moved to `observe.log.1` past 1 MB. */
  observeLog: 'observe.log',
  /** The usage events (matches, feedback, applied). */
  events: 'events.jsonl',
  /** What the agent hooks (context, recall, capture) could not do; moved to `hooks.log.1` past 1 MB. */
  hooksLog: 'hooks.log',
  /** Its mtime is when the agent sessions' files (`transcripts/`, `recalls/`) were last swept (session-sweep.ts). */
  sweepStamp: 'sweep.stamp',
  /** Which config cache entry observe reads. */
  observeConfig: 'observe-config.json',
  /** The files `git learn render` wrote. */
  renderManifest: 'render-manifest.json',
} as const
