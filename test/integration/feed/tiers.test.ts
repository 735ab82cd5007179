import { execFileSync } from 'node:child_process'
import { renameSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { cliAt, learningText, makeRepo, tempDir, tierRemote } from '../../helpers/repo.js'
import { readFeedFile } from '../../../src/adapters/feed/cache-files.js'
import { readCatalogFile } from '../../../src/adapters/feed/catalog-blocks.js'
import { readLineLengths } from '../../../src/adapters/feed/status-file.js'
import { formatDirective, formatIndexLine } from '../../../src/core/context.js'
import { lastCacheKey } from '../../helpers/feed-store.js'

// Tier pins travel with a clone: a fresh clone (or CI) fetches the pinned commit on first use, or says what to run;
// context never silently drops a tier.

function setUp() {
  const { bare } = tierRemote({ 'org-wide-fix': learningText('org-wide-fix', { confidence: '0.9' }) })
  const project = makeRepo()
  project.write('.learnings/active/.gitkeep', '')
  project.git('add', '.')
  project.git('commit', '-qm', 'store')
  return { bare, project }
}

function cloneOf(root: string): string {
  const dir = join(tempDir('gl-clone-'), 'clone')
  execFileSync('git', ['clone', '-q', '--no-local', root, dir])
  execFileSync('git', ['config', 'user.name', 'Cleo'], { cwd: dir })
  execFileSync('git', ['config', 'user.email', 'cleo@example.com'], { cwd: dir })
  return dir
}

test('a fresh clone gets the pinned tier on first use; check and context agree', async () => {
  const { bare, project } = setUp()
  expect((await project.cli(['tier', 'add', 'org', bare])).code).toBe(0)
  const pinned = execFileSync('git', ['rev-parse', 'main'], { cwd: bare, encoding: 'utf8' }).trim()
  const clone = cloneOf(project.root)
  expect(() => execFileSync('git', ['rev-parse', '--verify', '-q', 'refs/learn/tiers/org'], { cwd: clone })).toThrow()

  const context = await cliAt(clone, ['context', '--format', 'text'])
  expect(context.stdout).toContain('org-wide-fix')
  expect(context.stdout).not.toMatch(/missing from this context/)
  expect(execFileSync('git', ['cat-file', '-t', pinned], { cwd: clone, encoding: 'utf8' }).trim()).toBe('commit')
  const check = await cliAt(clone, ['check', '--json'])
  expect(JSON.parse(check.stdout).findings.filter((f: { rule: string }) => f.rule === 'tier')).toEqual([])
})

test('when the tier cannot be fetched, check names the command to run and context says the tier is missing', async () => {
  const { bare, project } = setUp()
  expect((await project.cli(['tier', 'add', 'org', bare])).code).toBe(0)
  const clone = cloneOf(project.root)
  renameSync(bare, `${bare}.gone`)
  const check = await cliAt(clone, ['check', '--json'])
  expect(check.code).toBe(0)
  const tier = JSON.parse(check.stdout).findings.filter((f: { rule: string }) => f.rule === 'tier')
  expect(tier).toHaveLength(1)
  expect(tier[0]).toMatchObject({ severity: 'warning', path: '.learnings/config.yaml' })
  // The URL shown masked is for reading; a command to run names where the URL is, not a copy that cannot fetch.
  expect(tier[0].message).toMatch(
    new RegExp(
      `^refs/learn/tiers/org: the pinned commit [0-9a-f]{12} is not in this repository and fetching it from ${bare.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} failed; ` +
        'not fetched again before \\d\\d:\\d\\d; `git learn tier verify org` tries now \\(or fetch it yourself with the ' +
        "tier's URL in \\.learnings/config\\.yaml: `git fetch --no-tags <url> main:refs/learn/tiers/org`, or ask for access\\)$",
    ),
  )
  const context = await cliAt(clone, ['context', '--format', 'text'])
  // Why, with config.yaml's URL, is for a person (check above, `tier verify`); the agent is told the tier is missing.
  expect(context.stdout).toContain(
    'git-learn: tier org is missing from this context; a person can see why with `git learn tier verify org`.',
  )
  expect(context.stdout).not.toContain(bare)
})

test("recall names a tier's learning from a cold cache and again after a project edit, a folded copy taking no slot", async () => {
  const bare = join(tempDir('gl-tier-'), 'org.git')
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare])
  const src = makeRepo()
  // The tier's first learning (in store order) is a copy of the project's, folded away: the second one's recall
  // terms must follow it to its place in the catalog, whether computed now or read from the tier's cache.
  const shared = learningText('aaa-shared-fix', { trigger: 'Error: shared widget exploded at line 3' })
  src.write('.learnings/active/aaa-shared-fix.md', shared)
  src.write(
    '.learnings/active/zzz-org-only-fix.md',
    learningText('zzz-org-only-fix', { trigger: 'Error: gizmo flux capacitor overheated during warmup' }),
  )
  src.git('add', '.')
  src.git('commit', '-q', '-m', 'org learnings')
  src.git('push', '-q', bare, 'main')
  const project = makeRepo()
  project.write('.learnings/active/aaa-shared-fix.md', shared)
  project.write('.learnings/active/project-fix.md', learningText('project-fix'))
  project.git('add', '.')
  project.git('commit', '-qm', 'store')
  expect((await project.cli(['tier', 'add', 'org', bare])).code).toBe(0)
  const recall = async (error: string) =>
    (
      await project.cli(['recall', '--json'], {
        stdin: JSON.stringify({ cwd: project.root, hook_event_name: 'PostToolUseFailure', error }),
      })
    ).json() as Promise<{ recalled: { name: string }[] }>
  const org = 'Error: gizmo flux capacitor overheated during warmup\n    at warm (src/gizmo.ts:4:1)'
  const shared2 = 'Error: shared widget exploded at line 3'
  const names = async (error: string) => (await recall(error)).recalled.map((r) => r.name)
  const cold = { org: await names(org), shared: await names(shared2) }
  expect(cold.org).toEqual(['zzz-org-only-fix'])
  expect(cold.shared).toEqual(['aaa-shared-fix'])
  project.write('.learnings/active/project-fix.md', learningText('project-fix', { confidence: '0.7' }))
  expect({ org: await names(org), shared: await names(shared2) }).toEqual(cold)
  expect(await names('Error: something else entirely broke in the parser')).toEqual([])
})

// lines-<key>.bin: the lengths context decides by. A tier's are counted once per pinned commit (with its name left
// out, added per rebuild), the project's at each rebuild: both must be the lengths of the lines, also after a project
// edit reads the tier's back from its cache.
test("the context lines' lengths of a tier's learnings and the project's are the lines' lengths", async () => {
  const { bare, project } = setUp()
  expect((await project.cli(['tier', 'add', 'platform-team', bare])).code).toBe(0)
  project.write('.learnings/active/project-fix.md', learningText('project-fix', { confidence: '0.9' }))
  project.git('add', '.')
  project.git('commit', '-qm', 'a project learning')
  const dir = join(project.root, '.git', 'learn', 'cache')
  const check = async () => {
    expect((await project.cli(['search', 'fix'])).code).toBe(0)
    const key = lastCacheKey(dir)
    const feed = readFeedFile(dir, key)!
    const catalog = readCatalogFile(dir, key, feed)!
    const lengths = readLineLengths(join(dir, `lines-${key}.bin`), feed.count)!
    expect(catalog.map((e) => e.tier).sort()).toEqual(['platform-team', 'project'])
    catalog.forEach((e, row) => expect(lengths(row)).toEqual([formatDirective(e).length, formatIndexLine(e).length]))
  }
  await check()
  project.write('.learnings/active/project-fix.md', learningText('project-fix', { confidence: '0.8' }))
  await check()
})

// A cache written while a tier could not be read is kept for nothing (its feed file says so): once the tier is
// fetched, status and feedback see its learnings at once, though the key (store, config) has not changed. A failed
// fetch is not tried again by the feed for ten minutes (each hook run would wait for the same dead remote); `tier
// verify` tries at once.
test('a tier that could not be fetched is not asked again for a while; tier verify fetches it, and status and feedback see it at once', async () => {
  const { bare, project } = setUp()
  expect((await project.cli(['tier', 'add', 'org', bare])).code).toBe(0)
  const clone = cloneOf(project.root)
  renameSync(bare, `${bare}.gone`)
  const status = async () => {
    const r = await cliAt(clone, ['status', '--json'])
    return { tiers: JSON.parse(r.stdout).tiers, stderr: r.stderr }
  }
  const missing = await status()
  expect(missing.stderr).toMatch(/fetching it from .* failed; not fetched again before \d\d:\d\d/)
  expect((await cliAt(clone, ['feedback', 'org-wide-fix', '--helpful'])).code).toBe(2)
  const failed = await cliAt(clone, ['tier', 'verify', 'org'])
  expect(failed.code).toBe(1)
  expect(failed.stdout).toMatch(
    /the pinned commit [0-9a-f]{12} is missing from this repository; fetching it from .* failed: .*(does not appear to be a git repository|not found|Could not read)/,
  )
  renameSync(`${bare}.gone`, bare)
  // The remote is back, but the feed remembers the failure: no fetch, the same warning.
  const still = await status()
  expect(still.tiers).toEqual(missing.tiers)
  expect(still.stderr).toMatch(/not fetched again before/)
  expect(() => execFileSync('git', ['cat-file', '-e', 'refs/learn/tiers/org'], { cwd: clone })).toThrow()
  const verified = await cliAt(clone, ['tier', 'verify', 'org'])
  expect(verified.stdout).toMatch(/org/)
  expect(verified.code).toBe(0) // fetched, its ref at the pin, its objects whole
  const found = (await status()).tiers
  expect(found).not.toEqual(missing.tiers)
  expect(JSON.stringify(found)).toContain('org')
  expect((await cliAt(clone, ['feedback', 'org-wide-fix', '--helpful'])).code).toBe(0)
})
