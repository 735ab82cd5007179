import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { openRepo } from '../../src/adapters/store/repo.js'
import { readSources } from '../../src/adapters/store/sources.js'
import { makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const NOW = new Date('2026-11-20T12:00:00Z')

/** A learning that passes the gates of `add`, with its own words so no two are near duplicates. */
function good(
  name: string,
  o: { tags?: string[]; topic?: string; confidence?: number; domain?: string; extra?: string } = {},
): string {
  const topic = o.topic ?? name.replace(/-/g, ' ')
  const tags = o.tags ?? [name.split('-')[0] as string, 'ci']
  return `---
name: ${name}
description: "Fix the ${topic} failure. Use when the build prints the ${topic} error."
type: error-solution
trigger: "Error: ${topic} exploded at line 3"
domain: ${o.domain ?? 'testing'}
tags: [${tags.join(', ')}]
${o.confidence !== undefined ? `confidence: ${o.confidence}\n` : ''}gates:
  discovery_depth: 2
  reusability: [${tags.join(', ')}]
  verification: "npx vitest run — 14 passed"
created: "2026-01-01"
---
## Problem
The ${topic} step broke with a stack trace.${o.extra ?? ''}

## Trigger Conditions
Running the ${topic} job.

## Root Cause
We tried clearing the cache and pinning versions; the cause was the ${topic} config.

## Solution
Set the ${topic} option and rerun.

## Verification
npx vitest run: 14 passed.
`
}

/** Commit learnings straight into active/ with an approval commit dated `date`. */
function seedActive(repo: TestRepo, learnings: Record<string, string>, date = '2026-01-01T10:00:00Z'): void {
  for (const [name, text] of Object.entries(learnings)) repo.write(`.learnings/active/${name}.md`, text)
  repo.git('add', '.learnings')
  const trailers = Object.keys(learnings)
    .map(
      (n) =>
        `Learning: ${n}\nLearning-Action: approve\nLearning-From: pending\nLearning-To: active\nApproved-by: Bo <bo@example.com>`,
    )
    .join('\n')
  execFileSync('git', ['commit', '-q', '-m', `learn: approve\n\n${trailers}`], {
    cwd: repo.root,
    env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  })
}

const soloConfig = (repo: TestRepo) => {
  repo.write('.learnings/config.yaml', '# team settings\napproval:\n  distinct_approver: false # solo\n')
  repo.git('add', '.learnings/config.yaml')
  repo.git('commit', '-q', '-m', 'config')
}

const lastMessage = (repo: TestRepo, rev = 'HEAD') => repo.git('log', '-1', '--format=%B', rev)
const changedIn = (repo: TestRepo, rev = 'HEAD') =>
  repo.git('show', '--name-status', '--format=', rev).trim().split('\n').sort()

describe('git learn prune', () => {
  function pruneRepo(): TestRepo {
    const repo = makeRepo()
    seedActive(repo, {
      'used-often': good('used-often'),
      'never-used': good('never-used'),
      'rarely-used': good('rarely-used'),
    })
    const events = [
      ...Array.from({ length: 5 }, (_, i) => ({
        ts: `2026-11-0${i + 1}T00:00:00Z`,
        kind: 'match',
        name: 'used-often',
      })),
      { ts: '2026-11-10T00:00:00Z', kind: 'match', name: 'rarely-used' },
      { ts: '2025-06-01T00:00:00Z', kind: 'match', name: 'never-used' },
      { ts: '2025-06-02T00:00:00Z', kind: 'match', name: 'never-used' },
    ]
    repo.write('.git/learn/events.jsonl', `${events.map((e) => JSON.stringify(e)).join('\n')}\nnot json\n`)
    return repo
  }

  test('proposes exactly the unused and rarely matched learnings, and changes nothing', async () => {
    const repo = pruneRepo()
    const before = repo.snapshot()
    const r = await repo.cli(['prune', '--json'], { now: NOW })
    expect(r.code).toBe(0)
    const out = r.json()
    expect(out.candidates.map((c: { name: string }) => c.name)).toEqual(['never-used', 'rarely-used'])
    expect(out.candidates[0].reason).toMatch(/^unused for 323 days \(last approved 2026-01-01\); matched 0 times/)
    expect(out.candidates[1].reason).toBe('matched 1 time in 323 days (fewer than 2)')
    expect(out).toMatchObject({ pruned: [], shallow: false, dryRun: true })
    expect(repo.snapshot()).toBe(before)
    const text = await repo.cli(['prune'], { now: NOW })
    expect(text.stdout).toMatch(/would prune 2 active learnings \(nothing changed\)/)
    expect(text.stdout).toMatch(/git learn prune --yes/)
  })

  test('--yes archives each in its own commit with the prune trailers; other staged work stays staged', async () => {
    const repo = pruneRepo()
    repo.write('notes.txt', 'mine\n')
    repo.git('add', 'notes.txt')
    const r = await repo.cli(['prune', '--yes', '--json'], { now: NOW })
    expect(r.code).toBe(0)
    expect(r.json().pruned.map((p: { path: string }) => p.path)).toEqual([
      '.learnings/archived/never-used.md',
      '.learnings/archived/rarely-used.md',
    ])
    expect(repo.exists('.learnings/archived/never-used.md')).toBe(true)
    expect(repo.exists('.learnings/active/used-often.md')).toBe(true)
    const msg = lastMessage(repo)
    expect(msg).toMatch(/^learn: prune rarely-used/)
    expect(msg).toMatch(/Learning-Action: prune\n/)
    expect(msg).toMatch(/Pruned-by: Ada Author <ada@example.com>/)
    expect(msg).toMatch(/Learning-Reason: matched 1 time in 323 days \(fewer than 2\)/)
    expect(changedIn(repo)).toEqual(['R100\t.learnings/active/rarely-used.md\t.learnings/archived/rarely-used.md'])
    expect(lastMessage(repo, 'HEAD~1')).toMatch(/Learning: never-used/)
    expect(repo.git('diff', '--cached', '--name-only').trim()).toBe('notes.txt')
  })

  test('a named active learning is retired with its reason; a pending one is refused with what works', async () => {
    const repo = pruneRepo()
    expect((await repo.cli(['prune', 'used-often'])).code).toBe(2)
    const dry = await repo.cli(['prune', 'used-often', '--reason', 'obsolete since v2'])
    expect(dry.stdout).toMatch(/would retire 1 active learning/)
    expect(repo.exists('.learnings/active/used-often.md')).toBe(true)
    const r = await repo.cli(['prune', 'used-often', '--reason', 'obsolete since v2', '--yes'])
    expect(r.code).toBe(0)
    expect(repo.exists('.learnings/archived/used-often.md')).toBe(true)
    expect(lastMessage(repo)).toMatch(/Learning-Reason: obsolete since v2/)
    repo.write('.learnings/pending/new-one.md', good('new-one'))
    repo.git('add', '.')
    repo.git('commit', '-q', '-m', 'add')
    const bad = await repo.cli(['prune', 'new-one', '--reason', 'x', '--yes'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/git learn approve new-one/)
  })

  test('a shallow clone says so and falls back to the created dates', async () => {
    const origin = makeRepo()
    seedActive(origin, { 'old-one': good('old-one') }, '2026-11-15T00:00:00Z')
    origin.git('commit', '-q', '--allow-empty', '-m', 'later')
    const dir = tempDir('gl-shallow-')
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${origin.root}`, join(dir, 'c')])
    const clone = makeRepo({ commit: false })
    const r = await (async () => {
      const { runCli } = await import('../../src/cli/main.js')
      let stdout = ''
      let stderr = ''
      const code = await runCli(['prune'], {
        cwd: join(dir, 'c'),
        env: process.env,
        now: () => NOW,
        stdout: (t) => void (stdout += t),
        stderr: (t) => void (stderr += t),
        readStdin: async () => Buffer.alloc(0),
        color: false,
      })
      return { code, stdout, stderr }
    })()
    void clone
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/shallow clone/)
    // Approved on 2026-11-15 (not prunable), but the clone only knows `created: 2026-01-01`.
    expect(r.stdout).toMatch(/old-one {2}— unused for 323 days \(last created 2026-01-01\)/)
  })
})

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

describe('git learn export and import', () => {
  function exporter(): TestRepo {
    const repo = makeRepo()
    seedActive(repo, {
      'docker-cache-miss': good('docker-cache-miss', {
        confidence: 0.6,
        extra: '\nSee /home/ada/work/app/Dockerfile and ask ada@corp.example.com.\n\n```sh\ndocker build .\n```',
      }),
      'eslint-flat-config': good('eslint-flat-config', { confidence: 0.7 }),
    })
    return repo
  }

  test('export strips what must not travel; import lands everything in pending in one commit; a second import loses nothing', async () => {
    const a = exporter()
    const out = join(tempDir('gl-bundle-'), 'team.json')
    const e = await a.cli(['export', '--out', out], { now: NOW })
    expect(e.code).toBe(0)
    expect(e.stderr).toMatch(/stripped from docker-cache-miss: 1 code block, 1 absolute path, 1 e-mail address/)
    const bundle = JSON.parse(readFileSync(out, 'utf8'))
    expect(bundle).toMatchObject({ format: 'git-learn-bundle', version: 1, exported: NOW.toISOString() })
    expect(bundle.learnings.map((l: { name: string }) => l.name)).toEqual(['docker-cache-miss', 'eslint-flat-config'])
    const body = bundle.learnings[0].body as string
    expect(body).not.toMatch(/ada@|\/home\/ada|docker build/)

    const b = makeRepo()
    b.write(
      '.learnings/pending/eslint-flat-config.md',
      good('eslint-flat-config', { confidence: 0.5, topic: 'eslint flat config older note' }),
    )
    b.git('add', '.')
    b.git('commit', '-q', '-m', 'mine')
    const localBefore = b.read('.learnings/pending/eslint-flat-config.md')
    const i = await b.cli(['import', out, '--json'])
    expect(i.code).toBe(0)
    const r = i.json()
    expect(r.entries.map((x: { name: string; action: string }) => [x.name, x.action])).toEqual([
      ['docker-cache-miss', 'added'],
      ['eslint-flat-config', 'updated'],
    ])
    expect(b.read('.learnings/pending/docker-cache-miss.md')).toMatch(/source:\n {2}kind: import/)
    expect(b.read('.learnings/pending/eslint-flat-config.md')).toMatch(/confidence: 0.7/)
    expect(b.git('show', 'HEAD~1:.learnings/pending/eslint-flat-config.md')).toBe(localBefore)
    expect(lastMessage(b)).toMatch(/^learn: import 2 learnings from /)
    expect(lastMessage(b)).toContain(`Learning-Origin: ${out}`)
    expect(changedIn(b)).toEqual([
      'A\t.learnings/pending/docker-cache-miss.md',
      'M\t.learnings/pending/eslint-flat-config.md',
    ])

    const head = b.git('rev-parse', 'HEAD')
    const again = await b.cli(['import', out, '--json'])
    expect(again.code).toBe(0)
    expect(
      again.json().entries.map((x: { action: string; reason: string }) => [x.action, /same content/.test(x.reason)]),
    ).toEqual([
      ['skipped', true],
      ['skipped', true],
    ])
    expect(b.git('rev-parse', 'HEAD')).toBe(head)
  })

  test('an existing file outside the repository is not overwritten without --force', async () => {
    const a = exporter()
    const out = join(tempDir('gl-out-'), 'keep.json')
    writeFileSync(out, 'precious\n')
    const r = await a.cli(['export', '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/already exists and is outside the repository/)
    expect(readFileSync(out, 'utf8')).toBe('precious\n')
    expect((await a.cli(['export', '--out', out, '--force'])).code).toBe(0)
    expect(readFileSync(out, 'utf8')).toMatch(/git-learn-bundle/)
  })

  const hostile: [string, (dir: string) => string, RegExp, number][] = [
    [
      'path-traversal names',
      (d) =>
        file(
          d,
          JSON.stringify({
            format: 'git-learn-bundle',
            version: 1,
            exported: 'x',
            learnings: [{ name: '../../.git/hooks/pre-commit', frontmatter: {}, body: 'x' }],
          }),
        ),
      /path separator/,
      1,
    ],
    [
      'a YAML alias bomb',
      (d) =>
        file(
          d,
          `format: git-learn-bundle\nversion: 1\na: &a [x,x,x,x,x,x,x,x,x]\n${Array.from({ length: 60 }, (_, i) => `b${i}: &b${i} [*${i ? `b${i - 1}` : 'a'},*${i ? `b${i - 1}` : 'a'}]`).join('\n')}\nlearnings: []\n`,
        ),
      /not a valid JSON or YAML/,
      1,
    ],
    [
      'a 65 MB file',
      (d) => file(d, `{"format":"git-learn-bundle","pad":"${'x'.repeat(65 * 1024 * 1024)}"}`),
      /at most 67108864 bytes/,
      1,
    ],
    [
      'deeply nested JSON',
      (d) => file(d, `${'['.repeat(200_000)}${']'.repeat(200_000)}`),
      /not a (valid JSON|JSON or YAML mapping)/,
      1,
    ],
    [
      'the wrong shape',
      (d) =>
        file(
          d,
          JSON.stringify({
            format: 'git-learn-bundle',
            version: 1,
            learnings: [{ name: 'ok-name', frontmatter: [], body: 3 }],
          }),
        ),
      /frontmatter is not a mapping/,
      1,
    ],
    ['an http URL', () => 'http://example.com/b.json', /only https:\/\//, 1],
    ['a file URL', () => 'file:///etc/passwd', /only https:\/\//, 1],
    ['a missing file', (d) => join(d, 'nope.json'), /cannot read/, 3],
  ]
  function file(dir: string, text: string): string {
    const p = join(dir, 'b.json')
    writeFileSync(p, text)
    return p
  }
  test.each(hostile)('a hostile bundle is refused cleanly with nothing written: %s', async (_label, make, re, code) => {
    const b = makeRepo()
    const before = b.snapshot()
    const r = await b.cli(['import', make(tempDir('gl-hostile-'))])
    expect(r.stderr).toMatch(re)
    expect(r.code).toBe(code)
    expect(b.snapshot()).toBe(before)
    expect(existsSync(join(b.root, '.learnings'))).toBe(false)
  })
})

describe('git learn tier', () => {
  /** A bare tier repository holding active learnings (pushed from a scratch clone). */
  function tierRepo(learnings: Record<string, string>): { bare: string; src: TestRepo } {
    const bare = join(tempDir('gl-tier-'), 'org.git')
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare])
    const src = makeRepo()
    for (const [n, t] of Object.entries(learnings)) src.write(`.learnings/active/${n}.md`, t)
    src.git('add', '.')
    src.git('commit', '-q', '-m', 'org learnings')
    src.git('push', '-q', bare, 'main')
    return { bare, src }
  }

  test('tier add pins the commit, commits config.yaml alone (comments kept), and its learnings reach readSources and search with its weight', async () => {
    const { bare } = tierRepo({
      'kafka-rebalance-storm': good('kafka-rebalance-storm', {
        topic: 'kafka consumer rebalance storm',
        tags: ['kafka', 'ci'],
      }),
      'broken-one': '---\nname: broken-one\ntype: nonsense\n---\nno\n',
    })
    const repo = makeRepo()
    soloConfig(repo)
    repo.write('staged.txt', 'x\n')
    repo.git('add', 'staged.txt')
    const r = await repo.cli(['tier', 'add', 'org', bare, '--weight', '0.8', '--json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const pinned = execFileSync('git', ['rev-parse', 'main'], { cwd: bare, encoding: 'utf8' }).trim()
    expect(r.json()).toMatchObject({ name: 'org', commit: pinned, weight: 0.8, learnings: 2 })
    expect(repo.git('rev-parse', 'refs/learn/tiers/org').trim()).toBe(pinned)
    const config = repo.read('.learnings/config.yaml')
    expect(config).toMatch(/^# team settings/)
    expect(config).toMatch(/distinct_approver: false # solo/)
    expect(config).toContain(`commit: ${pinned}`)
    expect(changedIn(repo)).toEqual(['M\t.learnings/config.yaml'])
    expect(repo.git('diff', '--cached', '--name-only').trim()).toBe('staged.txt')
    expect(repo.exists('.learnings/active/kafka-rebalance-storm.md')).toBe(false)

    const { sources, problems } = await readSources(await openRepo(repo.root), { states: ['active'] })
    expect(sources.map((s) => [s.tier, s.weight, s.learnings.map((l) => l.name)])).toEqual([
      ['project', 1, []],
      ['org', 0.8, ['kafka-rebalance-storm']],
    ])
    expect(problems.map((p) => p.path)).toEqual(['org:.learnings/active/broken-one.md'])

    const s = await repo.cli(['search', '--json', 'kafka consumer rebalance storm'])
    expect(s.json().results[0]).toMatchObject({ name: 'kafka-rebalance-storm', tier: 'org' })

    const list = (await repo.cli(['tier', 'list', '--json'])).json()
    expect(list.tiers).toEqual([{ name: 'org', url: bare, ref: 'main', commit: pinned, weight: 0.8, learnings: 2 }])
    expect((await repo.cli(['tier', 'verify'])).code).toBe(0)
  })

  test('the same content in two tiers appears once', async () => {
    const text = good('shared-fix', { topic: 'shared fix', tags: ['shared', 'ci'] })
    const one = tierRepo({ 'shared-fix': text })
    const two = tierRepo({ 'shared-fix': text })
    const repo = makeRepo()
    expect((await repo.cli(['tier', 'add', 'one', one.bare])).code).toBe(0)
    expect((await repo.cli(['tier', 'add', 'two', two.bare, '--weight', '0.95'])).code).toBe(0)
    const { sources } = await readSources(await openRepo(repo.root), { states: ['active'] })
    expect(sources.map((s) => [s.tier, s.learnings.length])).toEqual([
      ['project', 0],
      ['one', 0],
      ['two', 1],
    ])
  })

  test('tier verify fails (exit 1) once the ref is moved behind its back', async () => {
    const { bare, src } = tierRepo({ 'kafka-lag': good('kafka-lag') })
    const repo = makeRepo()
    expect((await repo.cli(['tier', 'add', 'org', bare])).code).toBe(0)
    src.write('x.txt', 'other\n')
    src.git('add', '.')
    src.git('commit', '-q', '-m', 'other')
    src.git('push', '-q', bare, 'main')
    repo.git('fetch', '-q', bare, 'main')
    repo.git('update-ref', 'refs/learn/tiers/org', repo.git('rev-parse', 'FETCH_HEAD').trim())
    const r = await repo.cli(['tier', 'verify'])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/ERROR {2}org:\n.*refs\/learn\/tiers\/org points at [0-9a-f]{12}, not the pinned/)
    expect((await repo.cli(['tier', 'verify', '--json'])).json()).toMatchObject({ ok: false })
  })

  test('tier update fetches, shows what changed and commits the new pin', async () => {
    const { bare, src } = tierRepo({ 'kafka-lag': good('kafka-lag'), 'redis-evict': good('redis-evict') })
    const repo = makeRepo()
    expect((await repo.cli(['tier', 'add', 'org', bare])).code).toBe(0)
    src.write('.learnings/active/nginx-502.md', good('nginx-502'))
    src.git('rm', '-q', '.learnings/active/redis-evict.md')
    src.write('.learnings/active/kafka-lag.md', good('kafka-lag', { extra: ' More.' }))
    src.git('add', '.')
    src.git('commit', '-q', '-m', 'more')
    src.git('push', '-q', bare, 'main')
    const r = await repo.cli(['tier', 'update', 'org', '--json'])
    expect(r.code).toBe(0)
    expect(r.json()).toMatchObject({
      changed: true,
      added: ['nginx-502'],
      removed: ['redis-evict'],
      updated: ['kafka-lag'],
    })
    expect(repo.read('.learnings/config.yaml')).toContain(`commit: ${src.git('rev-parse', 'HEAD').trim()}`)
    expect(lastMessage(repo)).toMatch(/^learn: tier update org/)
    expect((await repo.cli(['tier', 'verify'])).code).toBe(0)
    const same = await repo.cli(['tier', 'update', 'org'])
    expect(same.stdout).toMatch(/up to date/)
  })

  test("a tier URL that does not answer: exit 3 with git's stderr, nothing written", async () => {
    const repo = makeRepo()
    const before = repo.snapshot()
    const r = await repo.cli(['tier', 'add', 'org', join(tempDir('gl-none-'), 'missing.git')])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/git said:\n.*(does not appear to be a git repository|not found)/s)
    expect(repo.snapshot()).toBe(before)
    expect(repo.git('for-each-ref', 'refs/learn').trim()).toBe('')
  })

  test('promote pushes a pending entry on a new branch of the tier, touching no work tree', async () => {
    const { bare } = tierRepo({ 'kafka-lag': good('kafka-lag') })
    const repo = makeRepo()
    seedActive(repo, { 'jest-open-handles': good('jest-open-handles') })
    expect((await repo.cli(['tier', 'add', 'org', bare])).code).toBe(0)
    const before = repo.snapshot()
    const r = await repo.cli(['promote', 'jest-open-handles', '--to', 'org', '--json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.json()).toMatchObject({
      branch: 'learn/promote-jest-open-handles',
      path: '.learnings/pending/jest-open-handles.md',
    })
    expect(repo.snapshot()).toBe(before)
    const g = (...a: string[]) => execFileSync('git', a, { cwd: bare, encoding: 'utf8' })
    expect(g('show', 'learn/promote-jest-open-handles:.learnings/pending/jest-open-handles.md')).toMatch(
      /name: jest-open-handles/,
    )
    expect(g('rev-parse', 'learn/promote-jest-open-handles~1').trim()).toBe(g('rev-parse', 'main').trim())
    const p = await repo.cli(['promote', 'jest-open-handles', '--to', 'org', '--print'])
    expect(JSON.parse(p.stdout).learnings[0].name).toBe('jest-open-handles')
  })
})
