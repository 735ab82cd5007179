import { describe, expect, test } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config-schema.js'
import { buildContext, estimateTokens, formatDirective } from '../../../src/core/context.js'
import { parseLearning } from '../../../src/core/learning.js'
import { buildCatalogEntry } from '../../../src/core/search.js'
import { SEEDS, seedText } from '../../helpers/feed-store.js'
import { EMPTY_USAGE } from '../../../src/core/usage.js'
import type { UsageSummary } from '../../../src/core/usage.js'
import type { ContextInput } from '../../../src/core/context.js'
import { baseConfidence, effectiveConfidence } from '../../../src/core/confidence.js'
import { compareCodeUnits } from '../../../src/core/compare.js'
import type { CatalogEntry } from '../../../src/core/search.js'
import { mulberry32 } from '../../helpers/random.js'
import { contextFrame, formatIndexLine, formatLabel, lineLengths } from '../../../src/core/context.js'

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

  // The QA's tiny budget (context.max_tokens ~100): a heading is written with its first line, never alone.
  test('a section none of whose lines fit has no heading', () => {
    const entries = [
      entry('a-apply', 0.95, 'x'.repeat(300)),
      entry('b-other', 0.2, 'y'),
      entry('c-tier', 0.2, 'z', 'org'),
    ]
    for (const max of [60, 80, 100, 120]) {
      const text = build(entries, max).text
      expect(text).not.toMatch(/^(Apply these|Also available|Available):$(?!\n- )/m)
    }
    const text = build(entries, 100).text
    expect(text).not.toContain('Apply these:')
  })

  // `list` shows no tier's learnings: those left out are counted apart, with the command that finds them.
  test("the learnings left out are counted apart, this project's and the tiers'", () => {
    const many = (tier: string, k: number) => Array.from({ length: k }, (_, i) => entry(`${tier}-${i}`, 0.2, 'f', tier))
    const both = build([...many('project', 30), ...many('org', 20)], 200)
    const own = 30 - both.indexed.filter((n) => n.startsWith('project-')).length
    const tiers = 20 - both.indexed.filter((n) => n.startsWith('org-')).length
    expect(own + tiers).toBe(both.omitted)
    expect(both.text).toContain(
      `(+${own} more: \`git learn list --state active\`; +${tiers} more from tiers: \`git learn search "<words>"\`)`,
    )
    expect(build(many('org', 60), 200).text).toMatch(/^\(\+\d+ more from tiers: `git learn search "<words>"`\)$/m)
    expect(build(many('project', 60), 200).text).toMatch(/^\(\+\d+ more: `git learn list --state active`\)$/m)
  })

  // Each directive is tried in turn, most confident first: one that does not fit is passed over, and a shorter one
  // after it is still taken, up to the last character of the budget (after one does not fit, only those no longer
  // than the room left are tried again, and that shortcut must never pass over one that fits).
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

// buildContext puts in order only the learnings it shows (a heap, read lazily) and, given the lines' lengths, reads an
// entry's detail only for a line it takes. The plain version it replaced (sort everything, format every directive) is
// kept here as the reference, with the one change made on purpose (a learning left out of the index because it was
// applied is that entry, not every entry of its name: see 'two learnings of one name' below): on random stores,
// budgets and changed files the two give the same text and lists.
function plainContext(input: ContextInput<CatalogEntry>) {
  const { confidence: cc, context } = input.config
  const near = (e: CatalogEntry) =>
    input.changedFiles.some(
      (file) =>
        e.evidencePaths.some((p) => {
          const dir = p.replace(/\/?\*\*?.*$/, '').replace(/\/$/, '')
          return file === p || (dir && (file === dir || file.startsWith(`${dir}/`)))
        }) || e.tags.some((t) => file.toLowerCase().split(/[/.]/).includes(t.toLowerCase())),
    )
  const scored = input.entries.map((e) => {
    const u = input.usage.get(e.name) ?? EMPTY_USAGE
    return { e, u, conf: effectiveConfidence(baseConfidence(e.confidence), u, input.now, cc, e.created), near: near(e) }
  })
  type S = (typeof scored)[number]
  const byName = (a: S, b: S) => compareCodeUnits(a.e.name, b.e.name) || compareCodeUnits(a.e.tier, b.e.tier)
  const apply = scored
    .filter((s) => s.conf >= cc.apply)
    .sort((a, b) => Number(b.near) - Number(a.near) || b.conf - a.conf || byName(a, b))
  const rest = scored
    .filter((s) => s.conf < cc.apply)
    .sort((a, b) => Number(b.near) - Number(a.near) || b.conf - a.conf || b.u.matches - a.u.matches || byName(a, b))
  // The frame (first and last lines) is shared; what is held to the plain version is the choice and order of lines.
  const { header, footer } = contextFrame(input.entries)
  const budget = context.max_tokens * 4
  const lines = [header]
  let used = header.length + 1 + footer.length + 1
  const applied = new Set<S>()
  const indexed: string[] = []
  // A section's heading goes in with its first line: none for a section whose lines do not fit.
  let heading = ''
  const take = (line: string) => {
    const head = heading ? heading.length + 1 : 0
    if (used + head + line.length + 1 > budget - 80) return false
    if (heading) lines.push(heading)
    heading = ''
    lines.push(line)
    used += head + line.length + 1
    return true
  }
  heading = 'Apply these:'
  for (const s of apply) if (take(formatDirective(s.e))) applied.add(s)
  const notApplied = [...apply.filter((s) => !applied.has(s)), ...rest]
  const one = (t: string, n: number) => {
    const x = t.replace(/\s+/g, ' ').trim()
    return x.length > n ? `${x.slice(0, n - 1)}…` : x
  }
  heading = applied.size ? 'Also available:' : 'Available:'
  const shown = new Set([...applied])
  for (const s of notApplied) {
    if (!take(`- ${formatLabel(s.e)}: ${one(s.e.description, 140)}`)) break
    indexed.push(s.e.name)
    shown.add(s)
  }
  const omitted = input.entries.length - applied.size - indexed.length
  if (omitted > 0) {
    const fromTiers = scored.filter((s) => !shown.has(s) && s.e.tier !== 'project').length
    const more = `(${[
      ...(omitted - fromTiers ? [`+${omitted - fromTiers} more: \`git learn list --state active\``] : []),
      ...(fromTiers ? [`+${fromTiers} more from tiers: \`git learn search "<words>"\``] : []),
    ].join('; ')})`
    if (used + more.length + 1 <= budget) lines.push(more)
  }
  if (!input.entries.length) lines.push('No active learnings yet; propose one with `git learn add`.')
  lines.push(footer)
  return { text: lines.join('\n'), applied: [...applied].map((s) => s.e.name), indexed, omitted }
}

describe('context over many learnings', () => {
  const base = buildCatalogEntry(parseLearning(seedText(SEEDS[0]!), '.learnings/active/x.md'), 'project', 1)
  function world(seed: number) {
    const r = mulberry32(seed)
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T
    const words = (n: number) =>
      Array.from({ length: Math.floor(r() * n) }, () => pick(['fix', 'the', 'kafka', 'x'.repeat(30), 'retry'])).join(
        ' ',
      )
    const n = Math.floor(r() * 300)
    const entries: CatalogEntry[] = Array.from({ length: n }, () => ({
      ...base,
      name: pick(['a', 'b', 'kafka-retry', 'vitest-esm', 'x'.repeat(60), `n-${Math.floor(r() * 50)}`]),
      tier: pick(['project', 'project', 'org', 'team']),
      type: pick(['error-solution', 'anti-pattern', 'pattern', 'convention']),
      trigger: pick([null, 'Error: boom', words(40)]),
      fix: pick(['', 'short', words(60)]),
      description: pick(['', words(50)]),
      confidence: pick([null, 0.2, 0.5, 0.7, 0.8, 0.95, 1]),
      created: pick([null, '2026-01-01', '2026-11-01']),
      tags: r() < 0.5 ? [pick(['kafka', 'Vitest', 'docker'])] : [],
      evidencePaths: r() < 0.3 ? [pick(['src/kafka/**', 'src/a.ts', 'docs'])] : [],
    }))
    const usage = new Map<string, UsageSummary>(
      entries
        .filter(() => r() < 0.2)
        .map((e) => [e.name, { ...EMPTY_USAGE, matches: Math.floor(r() * 3), helpful: Math.floor(r() * 2) }]),
    )
    const changedFiles =
      r() < 0.5 ? [] : [pick(['src/kafka/consumer.ts', 'src/a.ts', 'test/vitest.config.ts', 'docs/x.md'])]
    const max_tokens = pick([60, 100, 200, 400, 1500])
    return { entries, usage, changedFiles, now, config: { confidence: cfg, context: { max_tokens } } }
  }

  test("gives the plain version's text on 400 random stores; with the lines' lengths, reads only the lines shown", () => {
    let shown = 0
    let readWithout = 0
    for (let seed = 1; seed <= 400; seed++) {
      const input = world(seed)
      const plain = plainContext(input)
      for (const withLengths of [false, true]) {
        const read = new Set<number>()
        const got = buildContext({
          ...input,
          detail: (i) => {
            read.add(i)
            return input.entries[i] as CatalogEntry
          },
          ...(withLengths
            ? {
                lengths: (i: number) => {
                  const e = input.entries[i] as CatalogEntry
                  return [formatDirective(e).length, formatIndexLine(e).length] as const
                },
              }
            : {}),
        })
        expect(
          { text: got.text, applied: got.applied, indexed: got.indexed, omitted: got.omitted },
          `seed ${seed}`,
        ).toEqual(plain)
        if (withLengths) expect(read.size, `seed ${seed}`).toBe(got.applied.length + got.indexed.length)
        else {
          readWithout += read.size
          shown += got.applied.length + got.indexed.length
        }
      }
    }
    expect(shown).toBeGreaterThan(1000)
    expect(readWithout).toBeGreaterThan(shown)
  })
})

describe('context, two learnings of one name', () => {
  const l = parseLearning(seedText(SEEDS[0]!), '.learnings/active/x.md')
  const entry = (tier: string, confidence: number) => ({
    ...buildCatalogEntry(l, tier, 1),
    name: 'same-name',
    tier,
    confidence,
  })
  // Before, a tier's learning that shared its name with an applied project learning was left out of the index and
  // counted as omitted; it is another learning (labelled with its tier), so it is indexed.
  test("a tier's learning is indexed beside the project's applied one of the same name", () => {
    const got = buildContext({
      entries: [entry('project', 0.95), entry('org', 0.3)],
      usage: new Map(),
      changedFiles: [],
      now,
      config: { confidence: cfg, context: { max_tokens: 1500 } },
    })
    expect(got.applied).toEqual(['same-name'])
    expect(got.indexed).toEqual(['same-name'])
    expect(got.omitted).toBe(0)
    expect(got.text).toContain('- same-name [tier org: reviewed in that repository, not here]: ')
  })

  test('a stored line length that does not match its line throws (the caller reads the whole catalog)', () => {
    const entries = [entry('project', 0.95)]
    const input = {
      entries,
      usage: new Map(),
      changedFiles: [],
      now,
      config: { confidence: cfg, context: { max_tokens: 1500 } },
    }
    const exact = formatDirective(entries[0]!).length
    expect(() => buildContext({ ...input, lengths: () => [exact - 1, 10] as const })).toThrow(/does not match/)
    expect(buildContext({ ...input, lengths: () => [exact, 10] as const }).applied).toEqual(['same-name'])
  })
})

// lineLengths counts the lines without making them (a rebuild measures every active learning): it must agree with the
// lines on any text, whitespace of every kind \s knows (and one it does not, U+180E), surrogate pairs, and texts
// longer than their cut.
test('lineLengths is the length of the lines, on random texts', () => {
  const r = mulberry32(7)
  const pieces = [
    'a',
    'word',
    '  ',
    '\t',
    '\n',
    '\r\n',
    '\u00a0',
    '\u2028',
    '\u3000',
    '\ufeff',
    '\u180e',
    '😀',
    'é',
    'x'.repeat(90),
  ]
  const text = () =>
    Array.from({ length: Math.floor(r() * 40) }, () => pieces[Math.floor(r() * pieces.length)]).join('')
  const base = buildCatalogEntry(parseLearning(seedText(SEEDS[0]!), '.learnings/active/x.md'), 'project', 1)
  for (let k = 0; k < 3000; k++) {
    const e = {
      ...base,
      name: `n-${k}`,
      tier: r() < 0.5 ? 'project' : 'org',
      type: ['error-solution', 'anti-pattern', 'pattern'][k % 3] as string,
      trigger: r() < 0.2 ? null : text(),
      fix: r() < 0.3 ? '' : text(),
      description: text(),
    }
    expect(lineLengths(e), JSON.stringify(e)).toEqual([formatDirective(e).length, formatIndexLine(e).length])
  }
})

test('contextFrame names the tiers, one or several, and none for the project alone', () => {
  const footer =
    'Read one in full with `git learn show <name>`; look an error up with `git learn search "<error text>"`.'
  expect(contextFrame([{ tier: 'project' }])).toEqual({
    header: 'git-learn: learnings reviewed in this project (.learnings/active/).',
    footer,
  })
  expect(contextFrame([{ tier: 'project' }, { tier: 'org' }, { tier: 'org' }]).header).toBe(
    'git-learn: learnings reviewed in this project (.learnings/active/), and learnings of the tier org (reviewed in their own repositories; marked [tier …]).',
  )
  expect(contextFrame([{ tier: 'org' }, { tier: 'platform' }]).header).toContain('of the tiers org, platform (')
})

test('the lines as agents read them, by type', () => {
  const base = buildCatalogEntry(parseLearning(seedText(SEEDS[0]!), '.learnings/active/x.md'), 'project', 1)
  const e = { ...base, name: 'kafka-retry', description: 'Retry  the\nconsumer.', fix: 'Set   retries.' }
  expect(formatDirective({ ...e, type: 'error-solution', trigger: 'Error:  boom' })).toBe(
    '- kafka-retry: when you see "Error: boom": Set retries.',
  )
  expect(formatDirective({ ...e, type: 'anti-pattern', tier: 'org' })).toBe(
    '- kafka-retry [tier org: reviewed in that repository, not here]: avoid — Set retries.',
  )
  expect(formatDirective({ ...e, type: 'pattern', fix: '' })).toBe('- kafka-retry: Retry the consumer.')
  expect(formatIndexLine({ ...e, description: 'x'.repeat(200) })).toBe(`- kafka-retry: ${'x'.repeat(139)}…`)
})

test('lineLengths agrees with the lines around every UTF-16 code unit', () => {
  const base = buildCatalogEntry(parseLearning(seedText(SEEDS[0]!), '.learnings/active/x.md'), 'project', 1)
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c)
    const e = { ...base, type: 'error-solution', trigger: `${ch}a${ch}${ch}b${ch}`, fix: ch, description: `x${ch}` }
    const got = lineLengths(e)
    if (got[0] !== formatDirective(e).length || got[1] !== formatIndexLine(e).length)
      throw new Error(`U+${c.toString(16)}: ${got} against ${formatDirective(e).length},${formatIndexLine(e).length}`)
  }
})
