/**
 * Partial clones (`git clone --filter=blob:none`, `--filter=tree:0`): the stale rule reads the object ids of evidence
 * paths from trees, which a blobless clone holds, so it answers offline and fetches no old blob; where git cannot
 * read the trees (a treeless clone whose remote does not answer) it says so once instead of reporting nothing stale.
 */
import { execFileSync } from 'node:child_process'
import { renameSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { readEvidenceChanges } from '../../../src/adapters/git/fast.js'
import { cliAt, learningText, makeRepo, tempDir } from '../../helpers/repo.js'
import type { TestRepo } from '../../helpers/repo.js'

/**
 * An origin whose `src/a.ts` changed after `base`, and two active learnings pinned to `base`: `edited` rests on
 * src/a.ts (stale), `steady` on src/lib/ and docs/x.md (unchanged).
 */
function origin(): { repo: TestRepo; base: string } {
  const repo = makeRepo()
  repo.git('config', 'uploadpack.allowFilter', 'true')
  repo.git('config', 'uploadpack.allowAnySHA1InWant', 'true')
  repo.write('src/a.ts', 'a\n')
  repo.write('src/lib/c.ts', 'c\n')
  repo.write('docs/x.md', 'x\n')
  repo.git('add', '.')
  repo.git('commit', '-qm', 'base')
  const base = repo.git('rev-parse', 'HEAD').trim()
  repo.write('src/a.ts', 'a changed\n')
  repo.git('commit', '-qam', 'later')
  const pinned = (paths: string) => `\nevidence:\n  commit: ${base}\n  paths: [${paths}]\n---\n`
  repo.write('.learnings/active/edited.md', learningText('edited').replace(/\n---\n/, pinned('src/a.ts')))
  repo.write('.learnings/active/steady.md', learningText('steady').replace(/\n---\n/, pinned('src/lib/, docs/x.md')))
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'learnings')
  return { repo, base }
}

function clone(from: TestRepo, filter: string): { root: string; missing: () => number } {
  const root = join(tempDir('gl-partial-'), 'c')
  execFileSync('git', ['clone', '-q', `--filter=${filter}`, `file://${from.root}`, root], { stdio: 'pipe' })
  const missing = () =>
    execFileSync('git', ['rev-list', '--objects', '--all', '--missing=print'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.startsWith('?')).length
  return { root, missing }
}

/** Move the origin away: the clone's promisor remote no longer answers (offline). */
function offline(from: TestRepo): void {
  renameSync(from.root, `${from.root}-away`)
}

describe('the stale rule in a blobless clone', () => {
  test('status and check name the stale learning without fetching a single old blob', async () => {
    const { repo } = origin()
    const c = clone(repo, 'blob:none')
    const missing = c.missing()
    expect(missing).toBeGreaterThan(0)

    const status = await cliAt(c.root, ['status', '--json'])
    expect(status.code).toBe(0)
    expect(status.json().stale).toEqual([{ name: 'edited', paths: ['src/a.ts'] }])
    const check = await cliAt(c.root, ['check', '--json'])
    expect(check.json().findings.filter((f: { rule: string }) => f.rule === 'stale')).toEqual([
      expect.objectContaining({ path: '.learnings/active/edited.md', severity: 'warning' }),
    ])
    // Before, git fetched the old src/a.ts (the one blob the clone lacked) from the remote only to learn its object
    // id: one fetch per old blob, a fetch storm at a few hundred pins.
    expect(c.missing()).toBe(missing)
  })

  test('offline, the answer is the same: stale is read from the trees the clone holds', async () => {
    const { repo } = origin()
    const c = clone(repo, 'blob:none')
    offline(repo)
    const status = await cliAt(c.root, ['status', '--json'])
    expect(status.code).toBe(0)
    expect(status.json().stale).toEqual([{ name: 'edited', paths: ['src/a.ts'] }])
    expect(status.stderr).not.toMatch(/stale/)
    const check = await cliAt(c.root, ['check'])
    expect(check.code).toBe(0)
    expect(check.stderr + check.stdout).toMatch(/edited rests on files changed since [0-9a-f]{12}: src\/a\.ts/)
  })
})

describe('when git cannot read the trees (a treeless clone offline)', () => {
  test('status and check say once that stale was not checked, and still answer the rest', async () => {
    const { repo, base } = origin()
    const c = clone(repo, 'tree:0')
    offline(repo)
    // git itself cannot answer: the old commit's tree is not here and its remote is gone.
    expect(() => execFileSync('git', ['ls-tree', base], { cwd: c.root, stdio: 'pipe' })).toThrow()

    const status = await cliAt(c.root, ['status', '--json'])
    expect(status.code).toBe(0)
    expect(status.json().stale).toEqual([])
    expect(status.json().staleUnknown).toBe(true)
    expect(status.stderr.match(/stale/g)).toHaveLength(1)
    expect(status.stderr).toMatch(/warning: stale not checked: git could not read the trees of evidence\.commit/)
    expect(status.stderr).toMatch(/promisor remote/)

    const check = await cliAt(c.root, ['check', '--json'])
    expect(check.code).toBe(0)
    const stale = check.json().findings.filter((f: { rule: string }) => f.rule === 'stale')
    expect(stale).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringMatching(/^stale not checked/) }),
    ])
  })

  test('readEvidenceChanges reports git’s failure with the pins left undecided', () => {
    const { repo, base } = origin()
    const c = clone(repo, 'tree:0')
    offline(repo)
    const got = readEvidenceChanges(c.root, [{ commit: base, paths: ['src/a.ts'] }])
    expect(got.changed).toEqual([undefined])
    expect(got.unread).toMatch(/could not fetch [0-9a-f]+ from promisor remote/)
    // Many pins: git stops before reading all it was asked (EPIPE on its stdin); its own reason is still the one told.
    const many = Array.from({ length: 3000 }, (_, i) => ({ commit: base, paths: [`dir-${i}/x.ts`] }))
    const all = readEvidenceChanges(c.root, many)
    expect(all.changed.every((p) => p === undefined)).toBe(true)
    expect(all.unread).toMatch(/could not fetch [0-9a-f]+ from promisor remote/)
  })
})
