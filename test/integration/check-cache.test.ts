import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { PARSE_CACHE_FILE, openParseCache } from '../../src/adapters/state/parse-cache.js'
import { learningText, makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

/**
 * A committed store of `n` valid pending learnings (the check caches from 50 files on) whose frontmatter needs the
 * YAML parser (single quotes): plain frontmatter is read by the fast road and not cached.
 */
function storeRepo(n = 60, plain = false): TestRepo {
  const repo = makeRepo()
  for (let i = 0; i < n; i++)
    repo.write(
      `.learnings/pending/cached-${i}.md`,
      learningText(`cached-${i}`, plain ? {} : { tags: "['vitest', esm]" }),
    )
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'store')
  return repo
}

const cacheFile = (repo: TestRepo) => join(repo.root, '.git', 'learn', 'cache', PARSE_CACHE_FILE)

describe('the frontmatter cache of git learn check', () => {
  test('lives under the git common dir, never in the work tree, and a second run gives the same report', async () => {
    const repo = storeRepo()
    const before = repo.snapshot()
    const first = await repo.cli(['check', '--json'])
    expect(first.json()).toEqual({ ok: true, findings: [] })
    expect(existsSync(cacheFile(repo))).toBe(true)
    expect(repo.snapshot()).toBe(before)
    const second = await repo.cli(['check', '--json'])
    expect(second.json()).toEqual(first.json())
  })

  test('plain frontmatter, which the fast road reads, is not cached: the file stays small', async () => {
    const repo = storeRepo(60, true)
    expect((await repo.cli(['check', '--json'])).json()).toEqual({ ok: true, findings: [] })
    expect(existsSync(cacheFile(repo))).toBe(false)
  })

  test('an edited learning is parsed again: its new problem is reported, and reverting clears it', async () => {
    const repo = storeRepo()
    expect((await repo.cli(['check', '--json'])).code).toBe(0)
    const original = repo.read('.learnings/pending/cached-7.md')
    repo.write('.learnings/pending/cached-7.md', learningText('cached-7', { type: 'not-a-type' }))
    const broken = await repo.cli(['check', '--json'])
    expect(broken.code).toBe(1)
    expect(broken.json().findings).toEqual(
      expect.arrayContaining([expect.objectContaining({ rule: 'schema', path: '.learnings/pending/cached-7.md' })]),
    )
    repo.write('.learnings/pending/cached-7.md', original.replace('name: "cached-7"', 'name: "cached-77"'))
    const renamed = await repo.cli(['check', '--json'])
    expect(
      renamed
        .json()
        .findings.map((f: { message: string }) => f.message)
        .join('\n'),
    ).toContain('"cached-77"')
    repo.write('.learnings/pending/cached-7.md', original)
    expect((await repo.cli(['check', '--json'])).json()).toEqual({ ok: true, findings: [] })
  })

  test.each([
    ['garbage', 'not json {{{'],
    ['the wrong shape', JSON.stringify({ parser: 'yaml@0.0.0', entries: [1, 2] })],
    ['damaged entries', ''],
  ])('a cache file of %s is ignored and rebuilt, never a crash', async (_kind, content) => {
    const repo = storeRepo()
    await repo.cli(['check', '--json'])
    const file = cacheFile(repo)
    if (content === '') {
      // Right parser, but every entry's JSON is cut off or not a mapping.
      const cached = JSON.parse(readFileSync(file, 'utf8')) as { parser: string; entries: Record<string, string> }
      const keys = Object.keys(cached.entries)
      writeFileSync(
        file,
        JSON.stringify({
          parser: cached.parser,
          entries: Object.fromEntries(keys.map((k, i) => [k, i % 2 ? '{"name": ' : '[1]'])),
        }),
      )
    } else writeFileSync(file, content)
    const r = await repo.cli(['check', '--json'])
    expect(r.code).toBe(0)
    expect(r.json()).toEqual({ ok: true, findings: [] })
    const rebuilt = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, string> }
    expect(Object.keys(rebuilt.entries)).toHaveLength(60)
    expect(Object.values(rebuilt.entries).every((v) => typeof JSON.parse(v) === 'object')).toBe(true)
  })
})

describe('openParseCache', () => {
  test('a second process reads what the first parsed; values JSON cannot carry are parsed every time', () => {
    const dir = tempDir('gl-cache-')
    const matter = "\nname: x\ntags: ['a', b]\nconfidence: 0.5\n"
    const odd = '\nname: y\nscore: .nan\n'
    const first = openParseCache(dir)
    expect(first.parseYaml(matter)).toEqual({ name: 'x', tags: ['a', 'b'], confidence: 0.5 })
    expect(Number.isNaN(first.parseYaml(odd)['score'])).toBe(true)
    first.save()
    expect(existsSync(join(dir, 'learn', 'cache', PARSE_CACHE_FILE))).toBe(true)
    const second = openParseCache(dir)
    expect(second.parseYaml(matter)).toEqual({ name: 'x', tags: ['a', 'b'], confidence: 0.5 })
    expect(Number.isNaN(second.parseYaml(odd)['score'])).toBe(true)
    expect(second.stats).toEqual({ hits: 1, misses: 1 })
  })

  test('errors are not cached: a malformed block throws on every run', () => {
    const dir = tempDir('gl-cache-')
    for (let run = 0; run < 2; run++) {
      const cache = openParseCache(dir)
      expect(() => cache.parseYaml('\na: 1\na: 2\n')).toThrow()
      cache.save()
    }
  })

  test('an unwritable cache directory is not an error', () => {
    const dir = tempDir('gl-cache-')
    writeFileSync(join(dir, 'learn'), 'a file where the directory should be')
    const cache = openParseCache(dir)
    expect(cache.parseYaml('\nname: z\n')).toEqual({ name: 'z' })
    expect(() => cache.save()).not.toThrow()
  })
})
