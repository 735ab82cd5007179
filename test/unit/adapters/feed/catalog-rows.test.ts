import { describe, expect, test } from 'vitest'
import {
  packCatalogEntry,
  packProjectRow,
  unpackCatalogEntry,
  unpackProjectRow,
} from '../../../../src/adapters/feed/catalog-rows.js'
import type { CatalogEntry } from '../../../../src/core/search.js'
import type { ProjectRow } from '../../../../src/adapters/feed/cache-files.js'

const PLAIN: CatalogEntry = {
  name: 'pg-refused',
  tier: 'project',
  weight: 1,
  state: 'active',
  type: 'error-solution',
  domain: 'db',
  tags: ['postgres'],
  description: 'Fix ECONNREFUSED. Use when postgres refuses.',
  trigger: 'ECONNREFUSED 127.0.0.1:5432',
  triggers: ['ECONNREFUSED 127.0.0.1:5432'],
  confidence: 0.8,
  created: '2026-11-20',
  evidencePaths: [],
  evidenceCommit: null,
  supersedes: [],
  fix: 'Start the database first.',
  path: '.learnings/active/pg-refused.md',
}

const UNUSUAL: CatalogEntry = {
  ...PLAIN,
  tier: 'org',
  weight: 0.5,
  domain: null,
  tags: [],
  trigger: 'first',
  triggers: ['first', 'second'],
  confidence: null,
  created: null,
  evidencePaths: ['src/db.ts'],
  evidenceCommit: 'a'.repeat(40),
  supersedes: ['old-one'],
  path: 'org:.learnings/active/pg-refused.md',
}

/** Through JSON, as the file holds it. */
const roundTrip = (row: unknown[]) => JSON.parse(JSON.stringify(row)) as unknown

describe('catalog rows', () => {
  test.each([
    ['plain', PLAIN],
    ['every field off its default', UNUSUAL],
    ['no trigger', { ...PLAIN, trigger: null, triggers: [] }],
    ['a file not named after the learning', { ...PLAIN, path: '.learnings/active/other.md' }],
  ])('%s reads back the same, keys in the same order', (_what, entry) => {
    const back = unpackCatalogEntry(roundTrip(packCatalogEntry(entry)))
    expect(JSON.stringify(back)).toBe(JSON.stringify(entry))
  })

  test('a plain entry leaves out its defaults', () => {
    expect(packCatalogEntry(PLAIN)).toHaveLength(10)
    expect(JSON.stringify(packCatalogEntry(PLAIN)).length).toBeLessThan(JSON.stringify(PLAIN).length * 0.7)
  })

  test.each([
    ['an object row (an older format)', PLAIN],
    ['too short', ['pg-refused', 'active']],
    ['a name that is not a string', [1, ...packCatalogEntry(PLAIN).slice(1)]],
    ['a rest that is a list', [...packCatalogEntry(PLAIN), []]],
    ['a rest with a wrong type', [...packCatalogEntry(PLAIN), { weight: 'heavy' }]],
    ['null', null],
  ])('%s is not a row', (_what, row) => {
    expect(unpackCatalogEntry(row)).toBeUndefined()
  })
})

describe('project rows', () => {
  const row: ProjectRow = {
    row: {
      name: 'pg-refused',
      state: 'archived',
      type: 'error-solution',
      domain: null,
      tags: ['postgres'],
      description: 'Fix ECONNREFUSED.',
      path: '.learnings/archived/pg-refused.md',
    },
    created: '2026-11-20',
    supersedes: [],
  }

  test.each([
    ['plain', row],
    ['superseding, in a file of another name', { ...row, supersedes: ['a', 'b'], row: { ...row.row, path: 'x.md' } }],
  ])('%s reads back the same', (_what, r) => {
    const packed = packProjectRow(r)
    expect(JSON.stringify(unpackProjectRow(roundTrip(packed)))).toBe(JSON.stringify(r))
  })

  test('an older or damaged row is not a row', () => {
    expect(unpackProjectRow(row)).toBeUndefined()
    expect(unpackProjectRow(['pg-refused'])).toBeUndefined()
    expect(unpackProjectRow([...packProjectRow(row), { supersedes: 'x' }])).toBeUndefined()
  })
})
