import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { learningText, makeRepo } from '../helpers/repo.js'

/** A committed store whose .gitignore hides some learning files (a pattern on files, or a whole state directory). */
function ignoringRepo(ignore: string) {
  const repo = makeRepo()
  repo.write('.learnings/active/tracked-fix.md', learningText('tracked-fix'))
  repo.write('.gitignore', `${ignore}\n`)
  repo.git('add', '.')
  repo.git('commit', '-q', '-m', 'seed')
  return repo
}

const names = (out: { results?: { name: string }[]; learnings?: { name: string }[] }) =>
  (out.results ?? out.learnings ?? []).map((r) => r.name).sort()

describe('the feed cache sees gitignored learning files', () => {
  test.each([
    ['a file pattern', '.learnings/pending/ign*.md', '.learnings/pending/ign-one.md'],
    ['a whole state directory', '.learnings/archived/', '.learnings/archived/ign-one.md'],
  ])('an ignored file (%s) edited or removed after the cache was built shows at once', async (_what, ignore, path) => {
    const repo = ignoringRepo(ignore)
    expect(repo.git('check-ignore', path).trim()).toBe(path)
    await repo.cli(['search', '--json', '--state', 'all', 'anything']) // the cache, built before the file exists

    repo.write(path, learningText('ign-one', { description: '"Fix zzignoredword. Use when zzignoredword fails."' }))
    expect(names((await repo.cli(['search', '--json', '--state', 'all', 'zzignoredword'])).json())).toEqual(['ign-one'])

    repo.write(path, learningText('ign-one', { description: '"Fix yyother thing. Use when yyother fails."' }))
    expect(names((await repo.cli(['search', '--json', '--state', 'all', 'yyother'])).json())).toEqual(['ign-one'])
    expect(names((await repo.cli(['search', '--json', '--state', 'all', 'zzignoredword'])).json())).toEqual([])
    expect(names((await repo.cli(['list', '--json'])).json())).toEqual(['ign-one', 'tracked-fix'])

    rmSync(join(repo.root, path))
    expect(names((await repo.cli(['list', '--json'])).json())).toEqual(['tracked-fix'])
    expect(names((await repo.cli(['search', '--json', '--state', 'all', 'yyother'])).json())).toEqual([])
  })
})
