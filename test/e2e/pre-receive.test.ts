// A server's bare repository guards what is pushed to it: a pre-receive hook runs the built bin as
// `git learn check --base "$old" --head "$new"`, inside git's quarantine (the pushed objects not yet in the store).
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'

const HOOK = `#!/bin/sh
zero=0000000000000000000000000000000000000000
while read old new ref; do
  [ "$new" = "$zero" ] && continue
  [ "$old" = "$zero" ] && old=refs/heads/main
  git learn check --base "$old" --head "$new" || exit 1
done
`

test('a pre-receive hook refuses a push that moves a learning into active/ by hand, and takes a clean one', () => {
  const repo = makeRepo()
  const run = (cmd: string, ...args: string[]) => sh(repo.root, cmd, args)
  expect(run('git', 'learn', 'init').code).toBe(0)
  run('git', 'add', '.learnings')
  run('git', 'commit', '-qm', 'store')
  repo.write('one.md', learningText('pending-one'))
  expect(run('git', 'learn', 'add', '--file', 'one.md').code).toBe(0)
  const bare = join(tempDir('gl-server-'), 'store.git')
  repo.git('clone', '-q', '--bare', repo.root, bare)
  writeFileSync(join(bare, 'hooks', 'pre-receive'), HOOK)
  chmodSync(join(bare, 'hooks', 'pre-receive'), 0o755)
  repo.git('remote', 'add', 'server', bare)
  const serverHead = () => sh(bare, 'git', ['rev-parse', 'main']).stdout.trim()
  const before = serverHead()

  repo.git('mv', '.learnings/pending/pending-one.md', '.learnings/active/pending-one.md')
  repo.git('commit', '-qm', 'by hand', '--no-verify')
  const refused = run('git', 'push', 'server', 'main')
  expect(refused.code).not.toBe(0)
  expect(refused.stderr).toContain('[transition] pending-one moved into active/ without an approving commit')
  expect(refused.stderr).toContain('pre-receive hook declined')
  expect(serverHead()).toBe(before)

  repo.git('reset', '-q', '--hard', 'HEAD~1')
  repo.write('NOTES.md', 'unrelated\n')
  repo.git('add', 'NOTES.md')
  repo.git('commit', '-qm', 'notes')
  const taken = run('git', 'push', 'server', 'main', 'main:topic')
  expect(taken.code, taken.stderr).toBe(0)
  expect(taken.stderr).toContain('git learn check: ok')
  expect(serverHead()).toBe(repo.git('rev-parse', 'HEAD').trim())
})
