/**
 * A work tree's first rebuild takes the parses another work tree's set kept (src/adapters/feed/cache-files.ts
 * otherLastKey): a new worktree of a clone in use, on a branch whose learnings differ from the others', reads and
 * parses only the files the kept parse does not hold, and writes what a rebuild from nothing writes.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { PROJECT_ROOT, cliAt, learningText, makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'
import { writePortLearnings } from '../helpers/feed-store.js'

const cacheDir = (repo: TestRepo) => join(repo.root, '.git', 'learn', 'cache')

function store(): TestRepo {
  const repo = makeRepo()
  writePortLearnings(repo)
  repo.git('add', '-A')
  repo.git('commit', '-qm', 'store')
  return repo
}

async function search(cwd: string, query = 'connect ECONNREFUSED 127.0.0.1:6007'): Promise<string[]> {
  const r = await cliAt(cwd, ['search', '--json', query])
  expect(r.code, r.stderr).toBe(0)
  return (r.json() as { results: { name: string; description: string }[] }).results.map(
    (x) => `${x.name}: ${x.description}`,
  )
}

/** Makes every kept parse of learning-7 in the cache say another description; returns how many copies it changed. */
function tell(repo: TestRepo): number {
  let told = 0
  for (const name of readdirSync(cacheDir(repo)).filter((n) => n.startsWith('parsed-'))) {
    const file = join(cacheDir(repo), name)
    const lines = inflateRawSync(readFileSync(file)).toString('utf8').split('\n')
    const at = lines.findIndex((l) => l.startsWith('[".learnings/active/learning-7.md"'))
    if (at < 0) continue
    const item = JSON.parse(lines[at] as string) as [string, string, { entry: { description: string } }]
    item[2].entry.description = 'Told by the copy.'
    lines[at] = JSON.stringify(item)
    writeFileSync(file, deflateRawSync(lines.join('\n')))
    told++
  }
  return told
}

/** A worktree of `repo` on a new branch `feature` whose learning-3 says `description`; its root. */
function branchWorktree(repo: TestRepo, description: string): string {
  const wt = join(tempDir('gl-wt-'), 'feature')
  repo.git('worktree', 'add', '-q', '-b', 'feature', wt)
  writeFileSync(
    join(wt, '.learnings/active/learning-3.md'),
    learningText('learning-3', { description: `"${description}"` }),
  )
  return wt
}

describe("a new worktree's first rebuild", () => {
  test("takes the parses another worktree's set kept, and writes what a rebuild from nothing writes", async () => {
    const repo = store()
    await search(repo.root)
    repo.write('.learnings/active/fresh.md', learningText('fresh'))
    await search(repo.root)
    // The main work tree's set now keeps a parse; a worktree on a branch with another learning changed.
    expect(tell(repo)).toBe(1)
    const wt = branchWorktree(repo, 'Edited on the branch.')
    expect(await search(wt)).toContain('learning-7: Told by the copy.')

    // Without the copy's lie, what the worktree's set holds is a rebuild from nothing's.
    const answer = async () => [await search(wt, 'edited on the branch'), await search(wt)]
    rmSync(cacheDir(repo), { recursive: true })
    await search(repo.root)
    repo.write('.learnings/active/fresh-2.md', learningText('fresh-2'))
    await search(repo.root)
    const reused = await answer()
    expect(reused[1]).toContain(
      'learning-7: Fix the learning-7 failure. Use when the build prints the learning-7 error.',
    )
    rmSync(cacheDir(repo), { recursive: true })
    expect(await answer()).toEqual(reused)
  })

  // Every other work tree's last-key file is read now: a FIFO at one's path (anything can sit in a shared git dir) was
  // opened for reading, and the rebuild waited for a writer for ever (SIGTERM too: the open blocks the thread).
  test.skipIf(process.platform === 'win32')(
    "a FIFO at another work tree's last-key file is passed over",
    () => {
      // The built binary throughout: its kept parse is of its build (the sources the tests run are another).
      const built = (cwd: string, query = 'connect ECONNREFUSED 127.0.0.1:6007') => {
        const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'dist', 'bin.js'), 'search', '--json', query], {
          cwd,
          encoding: 'utf8',
          timeout: 25_000,
          killSignal: 'SIGKILL',
        })
        expect(r.status, r.stderr).toBe(0)
        return (JSON.parse(r.stdout) as { results: { name: string; description: string }[] }).results.map(
          (x) => `${x.name}: ${x.description}`,
        )
      }
      const repo = store()
      built(repo.root)
      repo.write('.learnings/active/fresh.md', learningText('fresh'))
      built(repo.root)
      expect(tell(repo)).toBe(1)
      const wt = branchWorktree(repo, 'Edited.')
      execFileSync('mkfifo', [join(cacheDir(repo), 'last-key-0badf1f0')])
      // The main work tree's kept parse is taken all the same.
      expect(built(wt)).toContain('learning-7: Told by the copy.')
    },
    60_000,
  )

  test('in a fresh clone (no set anywhere) keeps no parse, as before', async () => {
    const repo = store()
    await search(repo.root)
    expect(readdirSync(cacheDir(repo)).filter((n) => n.startsWith('parsed-'))).toEqual([])
  })
})
