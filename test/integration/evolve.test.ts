import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'
import { NOW, good, seedActive, soloConfig, lastMessage, changedIn } from '../helpers/scale-store.js'

describe('git learn evolve and approving a skill', () => {
  function evolveRepo(): TestRepo {
    const repo = makeRepo()
    soloConfig(repo)
    seedActive(repo, {
      'vitest-mock-hoist': good('vitest-mock-hoist', {
        tags: ['vitest', 'esm', 'mocking'],
        topic: 'vitest esm mock hoisting',
        extra:
          '\nThe factory referenced an imported binding before the hoisted vi.mock call ran, so the module graph saw an uninitialised variable.',
      }),
      'vitest-mock-tdz': good('vitest-mock-tdz', {
        tags: ['vitest', 'esm', 'mocking'],
        topic: 'vitest esm mock tdz',
        extra:
          '\nTemporal dead zone errors appear when a top-level const is captured by a mock factory; vi.hoisted moves it above.',
      }),
      'vitest-mock-reset': good('vitest-mock-reset', {
        tags: ['vitest', 'esm'],
        topic: 'vitest esm mock reset',
        extra:
          '\nMocks leaked between files because restoreMocks was off in the config; isolation per worker hid it locally.',
      }),
      'postgres-refused': good('postgres-refused', {
        tags: ['postgres', 'docker'],
        topic: 'postgres connection refused',
        domain: 'debugging',
      }),
    })
    return repo
  }

  test('nothing to cluster says so and exits 0', async () => {
    const repo = makeRepo()
    seedActive(repo, { 'alpha-one': good('alpha-one'), 'beta-two': good('beta-two') })
    const r = await repo.cli(['evolve'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/nothing to cluster/)
    expect((await repo.cli(['evolve', '--json'])).json()).toEqual({ clusters: [], dryRun: true })
  })

  test('clusters the three related learnings; --write adds a pending skill; approving it archives them in the same commit', async () => {
    const repo = evolveRepo()
    const before = repo.snapshot()
    const dry = (await repo.cli(['evolve', '--json'], { now: NOW })).json()
    expect(dry.clusters).toHaveLength(1)
    expect(dry.clusters[0]).toMatchObject({
      name: 'esm-vitest-mocking-skill',
      members: ['vitest-mock-hoist', 'vitest-mock-reset', 'vitest-mock-tdz'],
      commit: null,
    })
    expect(repo.snapshot()).toBe(before)

    // A skill merges its members' text on purpose: the learnings it supersedes are not counted as its twins.
    const w = await repo.cli(['evolve', '--write'], { now: NOW })
    expect(w.stderr).not.toMatch(/near duplicate/)
    expect(w.stdout).toMatch(
      /drafted 1 skill from clusters of related learnings:\n {2}esm-vitest-mocking-skill {2}← vitest-mock-hoist, vitest-mock-reset, vitest-mock-tdz/,
    )
    expect(w.stdout).toMatch(/added \.learnings\/pending\/esm-vitest-mocking-skill\.md \(commit [0-9a-f]{7}\)/)
    expect(w.code).toBe(0)
    const skill = repo.read('.learnings/pending/esm-vitest-mocking-skill.md')
    expect(skill).toMatch(/type: skill/)
    expect(skill).toMatch(/supersedes:\n {2}- vitest-mock-hoist\n {2}- vitest-mock-reset\n {2}- vitest-mock-tdz/)
    expect(skill).toMatch(/## Related Memory\n- vitest-mock-hoist: /)
    expect(lastMessage(repo)).toMatch(/Learning-Action: evolve/)
    // A second run does not propose the same learnings again.
    expect((await repo.cli(['evolve', '--json'])).json().clusters).toEqual([])

    const a = await repo.cli(['approve', 'esm-vitest-mocking-skill'])
    expect(a.code).toBe(0)
    expect(a.stdout).toMatch(/superseded by esm-vitest-mocking-skill/)
    expect(changedIn(repo)).toEqual([
      'R100\t.learnings/active/vitest-mock-hoist.md\t.learnings/archived/vitest-mock-hoist.md',
      'R100\t.learnings/active/vitest-mock-reset.md\t.learnings/archived/vitest-mock-reset.md',
      'R100\t.learnings/active/vitest-mock-tdz.md\t.learnings/archived/vitest-mock-tdz.md',
      'R100\t.learnings/pending/esm-vitest-mocking-skill.md\t.learnings/active/esm-vitest-mocking-skill.md',
    ])
    const msg = lastMessage(repo)
    expect(msg.match(/Learning-Action: supersede/g)).toHaveLength(3)
    expect(msg).toMatch(
      /Learning: vitest-mock-tdz\nLearning-Action: supersede\nLearning-From: active\nLearning-To: archived\nSuperseded-by: Ada Author <ada@example.com>\nLearning-Reason: superseded by esm-vitest-mocking-skill/,
    )
    expect(repo.exists('.learnings/active/postgres-refused.md')).toBe(true)
    const log = (await repo.cli(['log', '--json', 'vitest-mock-tdz'])).stdout
    expect(log).toMatch(/supersede/)
  })
})

describe('evolve on real learnings: Jest + ESM', () => {
  test('the four form one skill that passes the gates as written, imports cleanly elsewhere, and archives them when approved', async () => {
    const fixtures = (dir: string, files?: string[]) =>
      Object.fromEntries(
        (files ?? readdirSync(dir).filter((f) => f.endsWith('.md'))).map((f) => [
          f.replace(/\.md$/, ''),
          readFileSync(join(dir, f), 'utf8'),
        ]),
      )
    const jestEsm = fixtures(new URL('../fixtures/evolve/jest-esm/', import.meta.url).pathname)
    const others = fixtures(new URL('../fixtures/eval/real-world/learnings/', import.meta.url).pathname, [
      'jest-28-jsdom-not-default-environment.md',
      'ts-node-esm-unknown-file-extension.md',
      'redis-econnrefused-6379-server-down.md',
      'git-refusing-unrelated-histories.md',
    ])
    const repo = makeRepo()
    soloConfig(repo)
    seedActive(repo, { ...jestEsm, ...others })
    const w = await repo.cli(['evolve', '--write', '--json'], { now: NOW })
    expect(w.code, w.stderr).toBe(0)
    const [cluster] = w.json().clusters
    expect(cluster.members).toEqual(Object.keys(jestEsm).sort())
    expect(w.stderr).not.toMatch(/gate|refused/i)
    const skill = cluster.name as string
    expect(repo.exists(`.learnings/pending/${skill}.md`)).toBe(true)
    expect(lastMessage(repo)).toMatch(/Learning-Gates: depth=2 reuse=pass trigger=pass verify=pass/)

    const a = await repo.cli(['approve', skill])
    expect(a.code, a.stderr).toBe(0)
    for (const m of Object.keys(jestEsm)) expect(repo.exists(`.learnings/archived/${m}.md`)).toBe(true)
    for (const m of Object.keys(others)) expect(repo.exists(`.learnings/active/${m}.md`)).toBe(true)

    const out = join(tempDir('gl-skill-'), 'skill.json')
    expect((await repo.cli(['export', '--out', out], { now: NOW })).code).toBe(0)
    const elsewhere = makeRepo()
    const i = await elsewhere.cli(['import', out, '--json'], { now: NOW })
    expect(i.code, i.stderr).toBe(0)
    expect(elsewhere.exists(`.learnings/pending/${skill}.md`)).toBe(true)
    expect((await elsewhere.cli(['check'])).code).toBe(0)
  })
})
