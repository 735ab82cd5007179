import { describe, expect, test } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { cliAt, learningText, makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const TOKEN = `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`
const withToken = (name: string) =>
  learningText(
    name,
    {},
    `## Problem\nx\n\n## Trigger Conditions\nx\n\n## Root Cause\nWe tried A.\n\n## Solution\nexport GITHUB_TOKEN=${TOKEN}\n\n## Verification\nok\n`,
  )
/** git in another worktree of a test repository. */
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' })

const CONFIG = 'approval:\n  distinct_approver: true\n'
const withAllow = (fp: string) => `${CONFIG}secrets:\n  allow: ["${fp}"]\n`

interface Finding {
  rule: string
  path: string
  message: string
}

/** A repository whose HEAD holds a valid config.yaml and one learning. */
function repoWithConfig(config = CONFIG): TestRepo {
  const repo = makeRepo()
  repo.write('.learnings/config.yaml', config)
  repo.write('.learnings/active/first-one.md', learningText('first-one'))
  repo.git('add', '.')
  repo.git('commit', '-q', '-m', 'store')
  return repo
}

async function checkStaged(repo: TestRepo): Promise<{ code: number; findings: Finding[] }> {
  const r = await repo.cli(['check', '--staged', '--json'])
  return { code: r.code, findings: r.json().findings }
}

/** The secrets.allow fingerprint check reports for TOKEN. */
async function fingerprintOfToken(repo: TestRepo): Promise<string> {
  const { findings } = await checkStaged(repo)
  const fp = findings.find((f) => f.rule === 'secrets')?.message.match(/secrets\.allow as "([^"]+)"/)?.[1]
  expect(fp).toMatch(/^[\w-]+:[0-9a-f]{16}$/)
  return fp as string
}

describe('git learn check --staged reads the staged config.yaml, not the work tree one', () => {
  test('a staged invalid config is refused although the work-tree file is valid', async () => {
    const repo = repoWithConfig()
    repo.write('.learnings/config.yaml', `${CONFIG}bogus_key: 1\n`)
    repo.git('add', '.learnings/config.yaml')
    repo.write('.learnings/config.yaml', CONFIG) // the work tree is restored, the index keeps the broken file
    const { code, findings } = await checkStaged(repo)
    expect(code).toBe(1)
    expect(findings).toEqual([
      expect.objectContaining({
        rule: 'schema',
        path: '.learnings/config.yaml',
        message: expect.stringContaining('bogus_key'),
      }),
    ])
  })

  test('an invalid config left unstaged does not stop a commit of a valid learning', async () => {
    const repo = repoWithConfig()
    repo.write('.learnings/config.yaml', `${CONFIG}bogus_key: 1\n`)
    repo.write('.learnings/pending/second-one.md', learningText('second-one'))
    repo.git('add', '.learnings/pending/second-one.md')
    expect(await checkStaged(repo)).toEqual({ code: 0, findings: [] })
  })

  test('a secret allowed only in the unstaged config is still blocked', async () => {
    const repo = repoWithConfig()
    repo.write('.learnings/pending/leaky.md', withToken('leaky'))
    repo.git('add', '.learnings/pending/leaky.md')
    const fp = await fingerprintOfToken(repo)
    repo.write('.learnings/config.yaml', withAllow(fp)) // not staged
    const { code, findings } = await checkStaged(repo)
    expect(code).toBe(1)
    expect(findings.map((f) => [f.rule, f.path])).toEqual([['secrets', '.learnings/pending/leaky.md']])
  })

  test('a staged allow-list entry is honoured, whatever the work tree says', async () => {
    const repo = repoWithConfig()
    repo.write('.learnings/pending/leaky.md', withToken('leaky'))
    repo.git('add', '.learnings/pending/leaky.md')
    const fp = await fingerprintOfToken(repo)
    repo.write('.learnings/config.yaml', withAllow(fp))
    repo.git('add', '.learnings/config.yaml')
    expect(await checkStaged(repo)).toEqual({ code: 0, findings: [] })
    repo.write('.learnings/config.yaml', CONFIG) // removed from the work tree only
    expect(await checkStaged(repo)).toEqual({ code: 0, findings: [] })
  })

  test('the system zones are the committed ones: removing a zone in the work tree does not unguard it', async () => {
    const repo = repoWithConfig(`${CONFIG}zones:\n  system: ["agent-notes/**"]\n`)
    repo.write('.learnings/config.yaml', CONFIG) // the zone removed, not staged
    repo.write('agent-notes/setup.md', `# Setup\nexport GITHUB_TOKEN=${TOKEN}\n`)
    repo.git('add', 'agent-notes/setup.md')
    const { code, findings } = await checkStaged(repo)
    expect(code).toBe(1)
    expect(findings.map((f) => [f.rule, f.path])).toEqual([['secrets', 'agent-notes/setup.md']])
  })

  test('with no config in the index the defaults apply, even when the work tree has one', async () => {
    const repo = makeRepo()
    repo.write('.learnings/pending/leaky.md', withToken('leaky'))
    repo.git('add', '.learnings/pending/leaky.md')
    const fp = await fingerprintOfToken(repo)
    repo.write('.learnings/config.yaml', withAllow(fp)) // untracked
    expect((await checkStaged(repo)).findings.map((f) => f.rule)).toContain('secrets')
  })
})

describe('the zones of a commit that leaves config.yaml alone come from HEAD, cached by its commit id', () => {
  const zoned = (zone: string) => `${CONFIG}zones:\n  system: ["${zone}"]\n`
  const skill = (name: string) =>
    `---\nname: ${name}\ndescription: x\nsource:\n  kind: agent\n---\nexport GITHUB_TOKEN=${TOKEN}\n`

  test('a zone of the committed config guards a staged file, from the cache on the second run too; a new HEAD brings its own zones', async () => {
    const repo = repoWithConfig(zoned('docs/skills/**'))
    repo.write('docs/skills/a.md', skill('a'))
    repo.write('src/other.ts', 'export const x = 1\n')
    repo.git('add', 'docs/skills/a.md', 'src/other.ts')
    for (let run = 0; run < 2; run++) {
      const { code, findings } = await checkStaged(repo)
      expect(code, `run ${run}`).toBe(1)
      expect(findings.some((f) => f.rule === 'secrets' && f.path === 'docs/skills/a.md')).toBe(true)
    }
    const cache = JSON.parse(repo.read('.git/learn/cache/staged-config.json')) as { head: string }
    expect(cache.head).toBe(repo.git('rev-parse', 'HEAD').trim())
    // A damaged cache is read again from the index, never an error.
    for (const damaged of ['{"head":', '{"head": 5, "config": []}', '']) {
      repo.write('.git/learn/cache/staged-config.json', damaged)
      expect((await checkStaged(repo)).code, damaged).toBe(1)
    }
    // An unstaged edit of the config that drops the zone does not loosen the check.
    repo.write('.learnings/config.yaml', CONFIG)
    expect((await checkStaged(repo)).code).toBe(1)
    // A commit that moves the zone elsewhere: the next check reads the new HEAD's config.
    repo.write('.learnings/config.yaml', zoned('elsewhere/**'))
    repo.git('commit', '-q', '-m', 'move the zone', '--', '.learnings/config.yaml')
    expect(await checkStaged(repo)).toEqual({ code: 0, findings: [] })
    expect((JSON.parse(repo.read('.git/learn/cache/staged-config.json')) as { head: string }).head).toBe(
      repo.git('rev-parse', 'HEAD').trim(),
    )
  })

  test('the cache is what answers: an entry for HEAD is used without asking the index', async () => {
    const repo = repoWithConfig(CONFIG)
    repo.write('docs/skills/a.md', skill('a'))
    repo.git('add', 'docs/skills/a.md')
    expect(await checkStaged(repo)).toEqual({ code: 0, findings: [] })
    // An entry for this HEAD with a zone HEAD's config does not have: only a check that reads the cache sees it.
    const head = repo.git('rev-parse', 'HEAD').trim()
    repo.write(
      '.git/learn/cache/staged-config.json',
      JSON.stringify({ head, config: Buffer.from(zoned('docs/skills/**')).toString('base64') }),
    )
    expect((await checkStaged(repo)).code).toBe(1)
  })

  test("worktrees on other commits keep their HEADs' configs side by side: each answers from the cache", async () => {
    const repo = repoWithConfig(zoned('docs/skills/**'))
    const other = join(tempDir('gl-staged-wt-'), 'other')
    repo.git('worktree', 'add', '-q', '-b', 'other', other)
    writeFileSync(join(other, '.learnings', 'config.yaml'), zoned('elsewhere/**'))
    git(other, 'commit', '-q', '-m', 'move the zone', '--', '.learnings/config.yaml')
    const heads = [repo.git('rev-parse', 'HEAD').trim(), git(other, 'rev-parse', 'HEAD').trim()]
    repo.write('docs/skills/a.md', skill('a'))
    repo.git('add', 'docs/skills/a.md')
    mkdirSync(join(other, 'docs', 'skills'), { recursive: true })
    writeFileSync(join(other, 'docs', 'skills', 'a.md'), skill('a'))
    git(other, 'add', 'docs/skills/a.md')
    const checkOther = async () => {
      const r = await cliAt(other, ['check', '--staged', '--json'])
      return r.code
    }
    expect((await checkStaged(repo)).code).toBe(1)
    expect(await checkOther()).toBe(0)
    const cache = () =>
      JSON.parse(repo.read('.git/learn/cache/staged-config.json')) as { head: string; earlier: { head: string }[] }
    expect([cache().head, ...cache().earlier.map((e) => e.head)]).toEqual([heads[1], heads[0]])
    // The main worktree's entry, now an earlier one, is what answers there: given a zone HEAD's config lacks, it is seen.
    const c = cache()
    c.earlier = [{ ...c.earlier[0]!, config: Buffer.from(zoned('src/**')).toString('base64') } as { head: string }]
    repo.write('.git/learn/cache/staged-config.json', JSON.stringify(c))
    repo.write('src/b.md', skill('b'))
    repo.git('add', 'src/b.md')
    expect((await checkStaged(repo)).findings.some((f) => f.path === 'src/b.md')).toBe(true)
    expect(cache().head).toBe(heads[1]) // read, not written again
  })

  test('a staged change of config.yaml is read from the index, not from the cache', async () => {
    const repo = repoWithConfig(CONFIG)
    repo.write('docs/skills/a.md', skill('a'))
    repo.git('add', 'docs/skills/a.md')
    expect(await checkStaged(repo)).toEqual({ code: 0, findings: [] }) // no zone there yet; HEAD's config is cached
    repo.write('.learnings/config.yaml', zoned('docs/skills/**'))
    repo.git('add', '.learnings/config.yaml')
    const { code, findings } = await checkStaged(repo)
    expect(code).toBe(1)
    expect(findings.some((f) => f.path === 'docs/skills/a.md')).toBe(true)
  })
})
