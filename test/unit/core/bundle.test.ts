import { describe, expect, test } from 'vitest'
import { CODE_PLACEHOLDER, parseBundle, planImport, stripLearning } from '../../../src/core/bundle.js'
import type { BundleEntry, ExistingLearning } from '../../../src/core/bundle.js'

const NOW = new Date('2026-11-20T12:00:00Z')
/** Every kind is counted, 0 included (docs/scale.md lists them all in export --json). */
const NONE = { codeBlocks: 0, absolutePaths: 0, sessionIds: 0, emails: 0, timestamps: 0, secrets: 0 }

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
    expect(stripped).toEqual({ ...NONE, ...counts })
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
    expect(stripped).toEqual({ ...NONE, sessionIds: 1, emails: 1, absolutePaths: 1 })
  })

  // An identifier's value is kept as written, but a learning committed past the hooks can hold anything there, and
  // a key is text too: a credential in either left the repository in the bundle.
  test('a secret in an identifier field or in a key is redacted; the identifier otherwise kept as written', () => {
    const TOKEN = 'ghp_R7x9Kq2mZ4vB8nW1cT6yH3jL5pD0sF9gA2eU'
    const { entry, stripped } = strip('b', {
      domain: TOKEN,
      related: ['other-one', `see ${TOKEN}`],
      [TOKEN]: 1,
      evidence: { [`x ${TOKEN}`]: 'y', paths: ['src/a.ts'] },
    })
    expect(JSON.stringify(entry)).not.toContain(TOKEN)
    expect(entry.frontmatter['domain']).toBe('[REDACTED:github-token]')
    expect(entry.frontmatter['related']).toEqual(['other-one', 'see [REDACTED:github-token]'])
    expect(entry.frontmatter['[REDACTED:github-token]']).toBe(1)
    expect(entry.frontmatter['created']).toBe('2026-01-01')
    expect(stripped).toEqual({ ...NONE, secrets: 4 })
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
