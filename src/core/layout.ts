/**
 * Where learnings live: the store's folder, its state folders and the refs tiers are fetched into. Constants only,
 * no imports, so the hook fast paths (recall, search's cache) can name them without loading the YAML parser that
 * src/core/learning.ts brings in.
 */
import type { LearningState } from './errors.js'

export const STATES: readonly LearningState[] = ['pending', 'active', 'archived']
export const STORE_DIR = '.learnings'
/** A tier `<name>` is fetched into `${TIER_REF_PREFIX}<name>`. */
export const TIER_REF_PREFIX = 'refs/learn/tiers/'
