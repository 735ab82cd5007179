import { describe, expect, test } from 'vitest'
import { CODE_PLACEHOLDER, parseBundle, planImport, stripLearning } from '../../src/core/bundle.js'
import type { BundleEntry, ExistingLearning } from '../../src/core/bundle.js'
import { buildSkillDraft, buildSkillName, planClusters } from '../../src/core/evolve.js'
import type { EvolveInput } from '../../src/core/evolve.js'
import { formatLearningFile, parseLearning, validateLearning } from '../../src/core/learning.js'
import { buildSupersededBy, planPrune, tallyUsageEvent } from '../../src/core/prune.js'
import type { PruneFacts, UsageTally } from '../../src/core/prune.js'
import { learningSchema } from '../../src/core/learning-schema.js'
import { Ajv } from 'ajv'

const NOW = new Date('2026-11-20T12:00:00Z')
const settings = { after_days: 90, min_matches: 2 }
const fact = (over: Partial<PruneFacts>): PruneFacts => ({
  name: 'x',
  activeSince: '2026-01-01',
  activeSinceFrom: 'approval',
  lastUsed: null,
  matches: 0,
  supersededBy: [],
  ...over,
})

describe('planPrune', () => {
  test.each([
    ['approved long ago, never used', fact({}), ['unused', 'rarely-matched']],
    ['approved long ago, used recently and often', fact({ lastUsed: '2026-11-01T00:00:00Z', matches: 5 }), []],
    ['used recently but matched once', fact({ lastUsed: '2026-11-01T00:00:00Z', matches: 1 }), ['rarely-matched']],
    ['last used 100 days ago, matched often', fact({ lastUsed: '2026-08-12T00:00:00Z', matches: 9 }), ['unused']],
    ['approved 10 days ago, never used', fact({ activeSince: '2026-11-10T00:00:00Z' }), []],
    ['young but superseded', fact({ activeSince: '2026-11-10', supersededBy: ['skill-b', 'skill-a'] }), ['superseded']],
    ['no date at all', fact({ activeSince: null, activeSinceFrom: 'unknown' }), []],
    ['exactly after_days old, unused', fact({ activeSince: '2026-08-22T12:00:00Z' }), ['unused', 'rarely-matched']],
    ['89 days old, unused', fact({ activeSince: '2026-08-23T12:00:00Z' }), []],
  ])('%s', (_label, f, kinds) => {
    const out = planPrune([f], settings, NOW)
    expect(out.flatMap((c) => c.reasons.map((r) => r.kind))).toEqual(kinds)
  })

  test('reasons read as one line, superseders sorted, candidates sorted by name', () => {
    const out = planPrune(
      [
        fact({ name: 'b', activeSince: '2026-11-10', supersededBy: ['z', 'a'] }),
        fact({ name: 'a', activeSinceFrom: 'created' }),
      ],
      settings,
      NOW,
    )
    expect(out.map((c) => c.name)).toEqual(['a', 'b'])
    expect(out[1]?.reason).toBe('superseded by a, z')
    expect(out[0]?.reason).toMatch(
      /^unused for 323 days \(last created 2026-01-01\); matched 0 times in 323 days \(fewer than 2\)$/,
    )
  })

  test('buildSupersededBy counts only active superseders of active names', () => {
    const m = buildSupersededBy([
      { name: 's', supersedes: ['a', 'gone', 's'] },
      { name: 'a', supersedes: [] },
      { name: 't', supersedes: 'a' },
    ])
    expect([...m.entries()]).toEqual([['a', ['s']]])
  })

  test('tallyUsageEvent counts matches after activation and keeps the latest use', () => {
    const tallies = new Map<string, UsageTally>()
    const since = new Map([['a', Date.parse('2026-06-01T00:00:00Z')]])
    for (const e of [
      { ts: '2026-05-01T00:00:00Z', kind: 'match', name: 'a' },
      { ts: '2026-07-01T00:00:00Z', kind: 'match', name: 'a' },
      { ts: '2026-09-01T00:00:00Z', kind: 'helpful', name: 'a' },
      { ts: '2026-10-01T00:00:00Z', kind: 'harmful', name: 'a' },
      { ts: '2026-10-01T00:00:00Z', kind: 'match', name: 'unknown' },
    ])
      tallyUsageEvent(tallies, since, e)
    expect(tallies.get('a')).toMatchObject({ matches: 1, lastUsed: '2026-09-01T00:00:00Z' })
    expect(tallies.has('unknown')).toBe(false)
  })
})

const L = (
  name: string,
  tags: string[],
  trigger: string,
  domain = 'testing',
  type = 'error-solution',
): EvolveInput => ({
  name,
  data: {
    name,
    type,
    domain,
    tags,
    trigger,
    description: `Fix ${trigger}`,
    confidence: 0.6,
    gates: { discovery_depth: 2, reusability: tags },
  },
  body: `## Problem\n${trigger} when mocking.\n\n## Trigger Conditions\nRunning vitest.\n\n## Solution\nHoist the mock for ${name}.\n\n## Verification\nvitest passed.\n`,
})

describe('planClusters', () => {
  const related = [
    L('vi-mock-a', ['vitest', 'esm', 'mocking'], 'ReferenceError: Cannot access __vi_import_0__ before initialization'),
    L('vi-mock-b', ['vitest', 'esm', 'mocking'], 'ReferenceError: Cannot access __vi_import_1__ before initialization'),
    L('vi-mock-c', ['vitest', 'esm'], 'vi.mock is not hoisted in ESM module'),
  ]
  test('three related learnings form one cluster, in name order, with shared tags first', () => {
    const out = planClusters([...related].reverse())
    expect(out).toEqual([
      { members: ['vi-mock-a', 'vi-mock-b', 'vi-mock-c'], sharedTags: ['esm', 'vitest', 'mocking'], domain: 'testing' },
    ])
  })
  test.each([
    ['two related learnings are not enough', related.slice(0, 2)],
    [
      'different domains never cluster',
      [related[0], { ...related[1], data: { ...related[1]?.data, domain: 'git' } }, related[2]],
    ],
    ['no shared tag, no cluster', [L('a', ['x'], 'Error: x'), L('b', ['y'], 'Error: x'), L('c', ['z'], 'Error: x')]],
    ['skills take no part', related.map((r) => ({ ...r, data: { ...r.data, type: 'skill' } }))],
  ])('%s', (_label, input) => {
    expect(planClusters(input as EvolveInput[])).toEqual([])
  })
  test('learnings a skill already supersedes are left out', () => {
    expect(planClusters(related, new Set(['vi-mock-a']))).toEqual([])
  })
  test('deterministic: the same input in any order gives the same clusters', () => {
    const a = planClusters(related)
    const b = planClusters([related[2], related[0], related[1]] as EvolveInput[])
    expect(b).toEqual(a)
  })

  test('the skill draft is a valid skill that supersedes its members', () => {
    const [cluster] = planClusters(related)
    if (!cluster) throw new Error('no cluster')
    const name = buildSkillName(cluster, new Set(['esm-vitest-mocking-skill']))
    expect(name).toBe('esm-vitest-mocking-skill-2')
    const draft = buildSkillDraft(cluster, related, name, NOW)
    expect(draft.data).toMatchObject({
      type: 'skill',
      supersedes: ['vi-mock-a', 'vi-mock-b', 'vi-mock-c'],
      created: '2026-11-20',
      domain: 'testing',
      confidence: 0.6,
    })
    expect(draft.body).toContain('## Related Memory\n- vi-mock-a: ')
    expect(draft.body).toContain('### vi-mock-b\nHoist the mock for vi-mock-b.')
    const learning = parseLearning(formatLearningFile(draft.data, draft.body), `.learnings/pending/${name}.md`)
    const validator = new Ajv({ allErrors: true, strict: false }).compile(learningSchema)
    expect(validateLearning(learning, validator as never).errors).toEqual([])
  })
})

describe('stripLearning', () => {
  const strip = (body: string, data: Record<string, unknown> = {}, keepCode = false) =>
    stripLearning(
      { name: 'x', data: { name: 'x', type: 'error-solution', created: '2026-01-01', ...data }, body },
      { keepCode, now: NOW },
    )

  test.each([
    ['fenced code block', 'a\n```ts\nconst x = 1\n```\nb', `a\n${CODE_PLACEHOLDER}\nb`, { codeBlocks: 1 }],
    ['unclosed fence runs to the end', 'a\n~~~\nsecret stuff\nmore', `a\n${CODE_PLACEHOLDER}`, { codeBlocks: 1 }],
    [
      'absolute unix path keeps the file name',
      'see /home/ada/proj/src/app.ts:3',
      'see <path>/app.ts:3',
      { absolutePaths: 1 },
    ],
    ['windows path', 'at C:\\Users\\ada\\proj\\x.ts', 'at <path>/x.ts', { absolutePaths: 1 }],
    [
      'relative paths and URLs stay',
      'src/app.ts and https://example.org/home/x/y',
      'src/app.ts and https://example.org/home/x/y',
      {},
    ],
    ['email', 'ask jane.doe@corp.example.com', 'ask <email>', { emails: 1 }],
    ['old timestamp', 'failed at 2026-10-01T10:00:00Z', 'failed at <timestamp>', { timestamps: 1 }],
    ['recent timestamp stays', 'failed at 2026-11-18T10:00:00Z', 'failed at 2026-11-18T10:00:00Z', {}],
    ['plain dates stay', 'since 2025-01-01', 'since 2025-01-01', {}],
    ['secret', 'token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8', 'token [REDACTED:github-token]', { secrets: 1 }],
  ])('%s', (_label, body, want, counts) => {
    const { entry, stripped } = strip(body)
    if (typeof want === 'string' && want.includes('REDACTED'))
      expect(entry.body).toMatch(/^token \[REDACTED:[a-z-]+\]$/)
    else expect(entry.body).toBe(want)
    expect(stripped).toEqual(counts)
  })

  test('--keep-code keeps fences', () => {
    expect(strip('```\ncode\n```', {}, true).entry.body).toBe('```\ncode\n```')
  })

  test('session id dropped, frontmatter strings stripped, identifiers verbatim', () => {
    const { entry, stripped } = strip('b', {
      source: { kind: 'retrospective', session: 'abc-123', agent: 'claude-code' },
      description: 'ask ops@corp.example.com',
      trigger: 'ENOENT /home/ci/build/out.js',
    })
    expect(entry.frontmatter['source']).toEqual({ kind: 'retrospective', agent: 'claude-code' })
    expect(entry.frontmatter['description']).toBe('ask <email>')
    expect(entry.frontmatter['trigger']).toBe('ENOENT <path>/out.js')
    expect(entry.frontmatter['created']).toBe('2026-01-01')
    expect(stripped).toEqual({ sessionIds: 1, emails: 1, absolutePaths: 1 })
  })
})

describe('parseBundle', () => {
  const ok = {
    format: 'git-learn-bundle',
    version: 1,
    exported: 'x',
    learnings: [{ name: 'a-b', frontmatter: { name: 'a-b' }, body: 'b' }],
  }
  test('a good bundle gives its entries', () => {
    expect(parseBundle(ok)).toEqual({
      entries: [{ name: 'a-b', frontmatter: { name: 'a-b' }, body: 'b' }],
      problems: [],
    })
  })
  let deep: Record<string, unknown> = {}
  const root = deep
  for (let i = 0; i < 100; i++) deep = (deep['k'] = {}) as Record<string, unknown>
  test.each([
    ['not a mapping', [1, 2], /not a JSON or YAML mapping/],
    ['wrong format', { ...ok, format: 'zip' }, /"format" must be/],
    ['wrong version', { ...ok, version: 2 }, /"version" must be 1/],
    ['learnings not a list', { ...ok, learnings: {} }, /must be a list/],
    [
      'path traversal name',
      { ...ok, learnings: [{ name: '../../etc/passwd', frontmatter: {}, body: '' }] },
      /path separator/,
    ],
    ['name with a slash', { ...ok, learnings: [{ name: 'a/b', frontmatter: {}, body: '' }] }, /path separator/],
    ['name not a string', { ...ok, learnings: [{ name: 7, frontmatter: {}, body: '' }] }, /name is not a string/],
    [
      'frontmatter not a mapping',
      { ...ok, learnings: [{ name: 'a', frontmatter: 'x', body: '' }] },
      /frontmatter is not a mapping/,
    ],
    ['body not a string', { ...ok, learnings: [{ name: 'a', frontmatter: {}, body: 1 }] }, /body is not a string/],
    [
      'mismatched frontmatter name',
      { ...ok, learnings: [{ name: 'a', frontmatter: { name: 'b' }, body: '' }] },
      /differs/,
    ],
    ['absurd nesting', { ...ok, learnings: [{ name: 'a', frontmatter: root, body: '' }] }, /nested deeper/],
    ['too many entries', { ...ok, learnings: new Array(10_001).fill(0) }, /limit is 10000/],
  ])('refused: %s', (_label, value, re) => {
    const r = parseBundle(value)
    expect(r.entries).toEqual([])
    expect(r.problems.join('\n')).toMatch(re)
  })
})

describe('planImport', () => {
  const e = (name: string, over: Partial<BundleEntry['frontmatter']> = {}, body = 'body'): BundleEntry => ({
    name,
    frontmatter: { name, type: 'error-solution', description: 'd', ...over },
    body,
  })
  const have = (
    state: ExistingLearning['state'],
    over: Record<string, unknown> = {},
    body = 'body',
  ): ExistingLearning => ({ state, data: { type: 'error-solution', description: 'd', ...over }, body })
  test.each([
    ['new name is added', e('n'), undefined, 'add'],
    [
      'same content is skipped',
      e('n', { source: { kind: 'import' } }),
      have('active', { source: { kind: 'x' } }),
      'skip',
    ],
    [
      'higher confidence updates a pending copy',
      e('n', { confidence: 0.9 }, 'better'),
      have('pending', { confidence: 0.5 }),
      'update-pending',
    ],
    [
      'higher confidence on an active one is a proposed update',
      e('n', { confidence: 0.9 }, 'better'),
      have('active', { confidence: 0.5 }),
      'skip',
    ],
    ['lower confidence is skipped', e('n', { confidence: 0.4 }, 'other'), have('pending', { confidence: 0.5 }), 'skip'],
    ['no confidence is skipped', e('n', {}, 'other'), have('pending'), 'skip'],
  ])('%s', (_label, entry, old, kind) => {
    const [d] = planImport([entry], new Map(old ? [['n', old]] : []))
    expect(d?.kind).toBe(kind)
    if (d?.kind === 'skip') expect(d.reason.length).toBeGreaterThan(10)
  })
  test('a name twice in one bundle: the second is skipped', () => {
    expect(planImport([e('n'), e('n')], new Map()).map((d) => d.kind)).toEqual(['add', 'skip'])
  })
})
