// Every test behaves the same inside a git hook or a developer's shell: no inherited repository, no user config,
// no colour.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

for (const k of [
  'GIT_DIR',
  'GIT_INDEX_FILE',
  'GIT_WORK_TREE',
  'GIT_PREFIX',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_LEARN_HOOKS',
  'HUSKY',
])
  delete process.env[k]
process.env['NO_COLOR'] = '1'
// Dates a command writes (`created`) are on the local calendar: the suite runs in one zone wherever it runs
// (test/e2e/clocks.test.ts sets others for the built binary).
process.env['TZ'] = 'UTC'
process.env['GIT_CONFIG_NOSYSTEM'] = '1'
process.env['HOME'] = mkdtempSync(join(tmpdir(), 'gl-home-'))
process.env['XDG_CONFIG_HOME'] = process.env['HOME']
