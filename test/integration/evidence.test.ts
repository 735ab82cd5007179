import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { readEvidenceChanges } from '../../src/adapters/git/fast.js'
import { evidencePath } from '../../src/core/evidence.js'
import { makeRepo } from '../helpers/repo.js'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SEEDS, seedStore } from '../helpers/feed-store.js'
import { tempDir } from '../helpers/repo.js'

describe('evidencePath', () => {
  test.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src/', 'src'],
    ['src//lib/../a.ts', 'src/a.ts'],
    ['a b/c:d.ts', 'a b/c:d.ts'],
  ])('%j is read as %j', (p, want) => expect(evidencePath(p)).toBe(want))

  test.each(['', '/etc/passwd', '../outside.ts', 'src/../../x', '.', 'a\nb', 'a\0b', 'cr\r'])(
    '%j is not a path in the repository',
    (p) => {
      expect(evidencePath(p)).toBeUndefined()
    },
  )
})

describe('readEvidenceChanges (one git cat-file for every pin, trees only)', () => {
  function history() {
    const repo = makeRepo()
    repo.write('src/a.ts', 'a\n')
    repo.write('src/b.ts', 'b\n')
    repo.write('src/lib/c.ts', 'c\n')
    repo.write('gone.ts', 'g\n')
    repo.git('add', '.')
    repo.git('commit', '-qm', 'base')
    const base = repo.git('rev-parse', 'HEAD').trim()
    repo.write('src/a.ts', 'a changed\n')
    repo.write('src/lib/c.ts', 'c changed\n')
    repo.write('new.ts', 'n\n')
    repo.git('rm', '-q', 'gone.ts')
    repo.git('add', '.')
    repo.git('commit', '-qm', 'later')
    return { repo, base }
  }

  test('edited, removed and added files, and a directory with a change inside, are changed; the rest is not', () => {
    const { repo, base } = history()
    const [changed] = readEvidenceChanges(repo.root, [
      { commit: base, paths: ['src/a.ts', 'src/b.ts', 'gone.ts', 'new.ts', 'src/lib/', 'missing.ts', './src/b.ts'] },
    ]).changed
    expect(changed).toEqual(['src/a.ts', 'gone.ts', 'new.ts', 'src/lib'])
  })

  test('for file paths it agrees with git diff --name-only, pin by pin, over many pins in one call', () => {
    const { repo, base } = history()
    const head = repo.git('rev-parse', 'HEAD').trim()
    const files = ['src/a.ts', 'src/b.ts', 'src/lib/c.ts', 'gone.ts', 'new.ts', 'never.ts']
    const pins = Array.from({ length: 300 }, (_, i) => ({
      commit: [base, head, base.slice(0, 7)][i % 3] as string,
      paths: files.filter((_, j) => (i >> j) & 1),
    }))
    const got = readEvidenceChanges(repo.root, pins).changed
    pins.forEach((pin, i) => {
      const diff = pin.paths.length
        ? execFileSync('git', ['diff', '--name-only', '-z', pin.commit, 'HEAD', '--', ...pin.paths], {
            cwd: repo.root,
            encoding: 'utf8',
          })
            .split('\0')
            .filter(Boolean)
        : []
      expect(new Set(got[i]), `pin ${i}`).toEqual(new Set(diff))
    })
  })

  test('a commit unknown here, or not a commit id, decides nothing (undefined); the others still answer', () => {
    const { repo, base } = history()
    const got = readEvidenceChanges(repo.root, [
      { commit: 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef', paths: ['src/a.ts'] },
      { commit: 'HEAD~1', paths: ['src/a.ts'] },
      { commit: base, paths: ['src/a.ts'] },
      { commit: base, paths: ['/etc/passwd', '../x'] },
    ]).changed
    expect(got).toEqual([undefined, undefined, ['src/a.ts'], []])
  })

  test('a short commit id that a tree shares is still read as the commit, not as "every path changed"', () => {
    const repo = makeRepo()
    const head = repo.git('rev-parse', 'HEAD').trim()
    const prefix = head.slice(0, 4)
    // Write a tree whose id starts with the same four digits: vary an entry name until the hash matches (~65,000 tries).
    const blob = Buffer.from(repo.git('rev-parse', 'HEAD:README.md').trim(), 'hex')
    let body: Buffer | undefined
    for (let i = 0; i < 5_000_000 && !body; i++) {
      const b = Buffer.concat([Buffer.from(`100644 f${i}\0`), blob])
      if (createHash('sha1').update(`tree ${b.length}\0`).update(b).digest('hex').startsWith(prefix)) body = b
    }
    const tree = execFileSync('git', ['hash-object', '-w', '-t', 'tree', '--stdin'], { cwd: repo.root, input: body })
      .toString()
      .trim()
    expect(tree.startsWith(prefix) && tree !== head).toBe(true)
    expect(spawnSync('git', ['rev-parse', '-q', '--verify', prefix], { cwd: repo.root }).status).not.toBe(0) // ambiguous to git
    expect(readEvidenceChanges(repo.root, [{ commit: prefix, paths: ['README.md'] }]).changed).toEqual([[]])
  })

  test('a mode change alone is not a change of the file, but is of the directory holding it', () => {
    const { repo, base } = history()
    repo.git('update-index', '--chmod=+x', 'src/b.ts')
    repo.git('commit', '-qm', 'chmod')
    expect(readEvidenceChanges(repo.root, [{ commit: base, paths: ['src/b.ts', 'src'] }]).changed).toEqual([['src']])
  })

  test('a rename: the old path and the new one are changed; a file that became a directory is changed', () => {
    const { repo, base } = history()
    repo.git('mv', 'src/b.ts', 'src/renamed.ts')
    repo.git('rm', '-q', 'src/a.ts')
    repo.write('src/a.ts/inner.ts', 'a is a directory now\n')
    repo.git('add', '.')
    repo.git('commit', '-qm', 'moves')
    const paths = ['src/b.ts', 'src/renamed.ts', 'src/a.ts', 'src/a.ts/inner.ts', 'src/lib/c.ts/under-a-file']
    expect(readEvidenceChanges(repo.root, [{ commit: base, paths }]).changed).toEqual([
      ['src/b.ts', 'src/renamed.ts', 'src/a.ts', 'src/a.ts/inner.ts'],
    ])
  })

  test('a symlink is compared by its target text; a path through it is missing on both sides', () => {
    const { repo, base } = history()
    const link = (target: string) => {
      const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo.root, input: target })
        .toString()
        .trim()
      repo.git('update-index', '--add', '--cacheinfo', `120000,${blob},ln`)
      repo.git('commit', '-qm', `ln -> ${target}`)
      return repo.git('rev-parse', 'HEAD').trim()
    }
    const first = link('src')
    link('src/lib')
    expect(readEvidenceChanges(repo.root, [{ commit: first, paths: ['ln', 'ln/a.ts'] }]).changed).toEqual([['ln']])
    expect(readEvidenceChanges(repo.root, [{ commit: base, paths: ['ln'] }]).changed).toEqual([['ln']])
  })

  test('a submodule whose pointer moved is not seen as changed (as before: the rule compares files)', () => {
    const { repo, base } = history()
    const gitlink = (id: string) => {
      repo.git('update-index', '--add', '--cacheinfo', `160000,${id},vendor/sub`)
      repo.git('commit', '-qm', `sub at ${id}`)
      return repo.git('rev-parse', 'HEAD').trim()
    }
    const first = gitlink('1'.repeat(40))
    gitlink('2'.repeat(40))
    expect(readEvidenceChanges(repo.root, [{ commit: first, paths: ['vendor/sub', 'vendor'] }]).changed).toEqual([
      ['vendor'],
    ])
    expect(readEvidenceChanges(repo.root, [{ commit: base, paths: ['vendor/sub'] }]).changed).toEqual([[]])
  })

  test('a SHA-256 repository: tree entries hold 32-byte ids', () => {
    const root = tempDir('gl-sha256-')
    const git = (...a: string[]) => execFileSync('git', a, { cwd: root, encoding: 'utf8' })
    git('init', '-q', '--object-format=sha256', '-b', 'main')
    git('config', 'user.name', 'Ada Author')
    git('config', 'user.email', 'ada@example.com')
    writeFileSync(join(root, 'a.ts'), 'a\n')
    writeFileSync(join(root, 'b.ts'), 'b\n')
    git('add', '.')
    git('-c', 'commit.gpgsign=false', 'commit', '-qm', 'base')
    const base = git('rev-parse', 'HEAD').trim()
    writeFileSync(join(root, 'a.ts'), 'a changed\n')
    git('-c', 'commit.gpgsign=false', 'commit', '-qam', 'later')
    expect(readEvidenceChanges(root, [{ commit: base, paths: ['a.ts', 'b.ts'] }]).changed).toEqual([['a.ts']])
  })

  test('outside a repository every pin is undecided', () => {
    expect(readEvidenceChanges('/', [{ commit: 'deadbeef', paths: ['a'] }]).changed).toEqual([undefined])
  })
})

describe('evidence.commit never reaches git as an option', () => {
  test('status with an active learning whose evidence.commit is "--output=<file>" does not create that file', async () => {
    const repo = makeRepo()
    const victim = join(tempDir('gl-victim-'), 'created-by-git')
    seedStore(repo, [{ ...SEEDS[3]!, evidence: { commit: `--output=${victim}`, paths: ['README.md'] } }])
    const r = await repo.cli(['status', '--json'])
    expect(r.code).toBe(0)
    expect(r.json().stale).toEqual([])
    expect(existsSync(victim)).toBe(false)
  })

  test('an existing file named by evidence.commit "--output=<file>" keeps its content', async () => {
    const repo = makeRepo()
    const victim = join(tempDir('gl-victim-'), 'precious.txt')
    writeFileSync(victim, 'keep me\n')
    seedStore(repo, [{ ...SEEDS[3]!, evidence: { commit: `--output=${victim}`, paths: ['README.md'] } }])
    expect((await repo.cli(['status'])).code).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n')
  })
})
