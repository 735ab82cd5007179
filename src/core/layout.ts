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
