import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { DEFAULT_CONFIG } from '../../src/core/config-schema.js'
import { buildSkillDraft, buildSkillName, planClusters } from '../../src/core/evolve.js'
import { evaluateGates } from '../../src/core/gates.js'
import { formatLearningFile, parseLearning } from '../../src/core/learning.js'
import { PROJECT_ROOT } from '../helpers/repo.js'

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
