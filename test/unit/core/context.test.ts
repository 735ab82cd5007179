import { describe, expect, test } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config-schema.js'
import { buildContext, estimateTokens, formatDirective } from '../../../src/core/context.js'
import { parseLearning } from '../../../src/core/learning.js'
import { buildCatalogEntry } from '../../../src/core/search.js'
import { SEEDS, seedText } from '../../helpers/feed-store.js'
import { EMPTY_USAGE } from '../../../src/core/usage.js'

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

describe('directives to apply', () => {
  const l = parseLearning(seedText(SEEDS[0]!), '.learnings/active/x.md')
  const entry = (name: string, confidence: number, fix: string, tier = 'project') => ({
    ...buildCatalogEntry(l, tier, 1),
    name,
    tier,
    type: 'pattern',
    confidence,
    fix,
  })
  const build = (entries: ReturnType<typeof entry>[], max: number) =>
    buildContext({
      entries,
      usage: new Map(),
      changedFiles: [],
      now,
      config: { confidence: cfg, context: { max_tokens: max } },
    })
  test('the rest are indexed most confident first, then by recall matches, then by name, after the directives', () => {
    const low = [
      entry('c-low', 0.3, 'fix'),
      entry('a-lower', 0.2, 'fix'),
      entry('b-low', 0.3, 'fix'),
      entry('d-low-matched', 0.3, 'fix'),
    ]
    const usage = new Map([['d-low-matched', { ...EMPTY_USAGE, matches: 3 }]])
    const got = buildContext({
      entries: [entry('z-apply', 0.95, 'fix'), ...low],
      usage,
      changedFiles: [],
      now,
      config: { confidence: cfg, context: { max_tokens: 1500 } },
    })
    expect(got.applied).toEqual(['z-apply'])
    expect(got.indexed).toEqual(['d-low-matched', 'b-low', 'c-low', 'a-lower'])
    expect(got.text).toContain('Also available:')
  })

  // Each directive is tried in turn, most confident first: one that does not fit is passed over, and a shorter one
  // after it is still taken, up to the last character of the budget (a line is not even formatted when its label
  // alone cannot fit, and that shortcut must never pass over one that fits).
  test('a shorter directive after one that does not fit is taken, to the last character of the budget', () => {
    const a = entry('first-long', 0.95, 'x'.repeat(150))
    const b = entry('second-longer', 0.9, 'y'.repeat(190), 'org')
    const roomy = build([a, b], 1500).text.split('\n')
    const header = roomy[0] as string
    const footer = roomy.at(-1) as string
    // The short one's fix is one character (its line is its label and four more, as short as a line gets); its name
    // grows until the budget is a whole number of tokens.
    for (let n = 1; n <= 4; n++) {
      const c = entry(`third-short${'s'.repeat(n)}`, 0.85, 'z')
      const lineA = formatDirective(a)
      const lineC = formatDirective(c)
      const usedAfterA = header.length + 1 + footer.length + 1 + 'Apply these:'.length + 1 + lineA.length + 1
      const budget = usedAfterA + lineC.length + 1 + 80
      if (budget % 4) continue
      const got = build([a, b, c], budget / 4)
      expect(got.applied).toEqual(['first-long', c.name])
      expect(got.tokens).toBeLessThanOrEqual(budget / 4)
      // Four characters more (a token less of room) and the short one does not fit either.
      const tighter = entry(c.name, 0.85, 'zzzzz')
      expect(build([a, b, tighter], budget / 4).applied).toEqual(['first-long'])
      return
    }
    throw new Error('no fix length gave a whole number of tokens')
  })
})
