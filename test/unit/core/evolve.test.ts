import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config-schema.js'
import { buildSkillDraft, buildSkillName, planClusters } from '../../../src/core/evolve.js'
import { evaluateGates } from '../../../src/core/gates.js'
import { formatLearningFile, parseLearning } from '../../../src/core/learning.js'
import { PROJECT_ROOT } from '../../helpers/repo.js'
import type { EvolveInput } from '../../../src/core/evolve.js'
import { validateLearning } from '../../../src/core/learning.js'
import { learningSchema } from '../../../src/core/learning-schema.js'
import { Ajv } from 'ajv'

const read = (dir: string, files?: string[]) =>
  (files ?? readdirSync(dir).filter((f) => f.endsWith('.md'))).map((f) =>
    parseLearning(readFileSync(join(dir, f), 'utf8'), `.learnings/active/${f}`),
  )
const jestEsm = read(`${PROJECT_ROOT}test/fixtures/evolve/jest-esm`)
// Unrelated, some of them close: jest without ESM, ESM without jest (another domain), and failures of other tools.
const others = read(`${PROJECT_ROOT}test/fixtures/eval/real-world/learnings`, [
  'jest-28-jsdom-not-default-environment.md',
  'jest-force-exit-hides-open-handles.md',
  'ts-node-esm-unknown-file-extension.md',
  'redis-econnrefused-6379-server-down.md',
  'git-refusing-unrelated-histories.md',
  'docker-socket-permission-denied.md',
  'pytest-mock-plugin-not-installed.md',
])

describe('evolve on real learnings', () => {
  test('four Jest + ESM learnings form one cluster; the unrelated ones stay out', () => {
    const clusters = planClusters([...others, ...jestEsm])
    expect(clusters.map((c) => c.members)).toEqual([jestEsm.map((l) => l.name).sort()])
    expect(clusters[0]?.sharedTags.slice(0, 2)).toEqual(['esm', 'jest'])
  })

  test("the skill draft passes every gate, its depth from its members' Root Cause", () => {
    const [cluster] = planClusters([...others, ...jestEsm])
    if (!cluster) throw new Error('no cluster')
    const name = buildSkillName(cluster, new Set())
    const draft = buildSkillDraft(cluster, jestEsm, name, new Date('2026-11-24T00:00:00Z'))
    expect(Array.isArray(draft.data.trigger)).toBe(true)
    expect(draft.body).toMatch(/## Root Cause\n- \*\*jest-esm-experimental-vm-modules\*\*: Jest executes modules/)
    const skill = parseLearning(formatLearningFile(draft.data, draft.body), `.learnings/pending/${name}.md`)
    const template = readFileSync(`${PROJECT_ROOT}templates/skill.md`, 'utf8')
    const failed = evaluateGates(skill, DEFAULT_CONFIG.gates, { template }).filter((g) => g.outcome === 'fail')
    expect(failed).toEqual([])
  })

  test('members that declare no depth still give the skill the depth of their written investigation', () => {
    const bare = jestEsm.map((l) => ({ ...l, data: { ...l.data, gates: {} } }))
    const [cluster] = planClusters(bare)
    if (!cluster) throw new Error('no cluster')
    expect(buildSkillDraft(cluster, bare, 'x-skill', new Date()).data['gates']).toMatchObject({ discovery_depth: 2 })
  })
})

const NOW = new Date('2026-11-20T12:00:00Z')
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
