import { describe, expect, test } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config-schema.js'
import { buildContext, estimateTokens } from '../../../src/core/context.js'
import { parseLearning } from '../../../src/core/learning.js'
import { buildCatalogEntry } from '../../../src/core/search.js'
import { SEEDS, seedText } from '../../helpers/feed-store.js'

const cfg = DEFAULT_CONFIG.confidence
const now = new Date('2026-11-20T00:00:00Z')

describe('context budget', () => {
  test('stays within max_tokens however many learnings there are', () => {
    const l = parseLearning(seedText(SEEDS[0]!), '.learnings/active/x.md')
    const entries = Array.from({ length: 2000 }, (_, i) => ({
      ...buildCatalogEntry(l, 'project', 1),
      name: `learning-${i}`,
      confidence: i % 3 ? 0.9 : 0.2,
    }))
    for (const max of [100, 500, 1500]) {
      const c = buildContext({
        entries,
        usage: new Map(),
        changedFiles: [],
        now,
        config: { confidence: cfg, context: { max_tokens: max } },
      })
      expect(c.tokens).toBeLessThanOrEqual(max)
      expect(estimateTokens(c.text)).toBe(c.tokens)
    }
  })
})
