import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { FileAccessError } from '../../../../src/core/errors.js'
import { isTemporaryBeside, makeDirs, writeFileNoClobber } from '../../../../src/adapters/store/write-file.js'
import { tempDir } from '../../../helpers/repo.js'

describe('writeFileNoClobber', () => {
  test('with a scratch directory, nothing but the file itself ever appears beside it', () => {
    const dir = tempDir('gl-write-')
    const scratch = join(dir, 'scratch')
    mkdirSync(scratch)
    mkdirSync(join(dir, 'tree'))
    writeFileNoClobber(join(dir, 'tree', 'a.md'), 'one\n', false, scratch)
    writeFileNoClobber(join(dir, 'tree', 'a.md'), 'two\n', true, scratch)
    expect(readdirSync(join(dir, 'tree'))).toEqual(['a.md'])
    expect(readFileSync(join(dir, 'tree', 'a.md'), 'utf8')).toBe('two\n')
    expect(readdirSync(scratch)).toEqual([])
    expect(() => writeFileNoClobber(join(dir, 'tree', 'a.md'), 'three\n', false, scratch)).toThrow(/EEXIST|exists/)
    expect(readdirSync(scratch)).toEqual([])
  })

  // /dev/shm is a tmpfs here and the temporary directory another file system: link(2) and rename(2) across them fail
  // with EXDEV, and the write falls back to a temporary file beside the target.
  test.runIf(existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tempDir('gl-dev-')).dev)(
    'a scratch directory on another file system falls back to writing beside the file',
    () => {
      const dir = tempDir('gl-write-')
      const scratch = mkdtempSync('/dev/shm/gl-scratch-')
      try {
        writeFileNoClobber(join(dir, 'a.md'), 'one\n', false, scratch)
        writeFileNoClobber(join(dir, 'b.md'), 'two\n', true, scratch)
        expect(readdirSync(dir).sort()).toEqual(['a.md', 'b.md'])
        expect(readFileSync(join(dir, 'a.md'), 'utf8')).toBe('one\n')
        expect(readdirSync(scratch)).toEqual([])
      } finally {
        rmSync(scratch, { recursive: true, force: true })
      }
    },
  )

  // A git dir on another disk (`--separate-git-dir`, a mount) that is full: the scratch directory has no room, the
  // work tree has. The file is written beside itself; `render` failed naming a SKILL.md on a disk with room.
  const full = mkdtempSync(join(tmpdir(), 'gl-full-scratch-'))
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full]).status === 0
  afterAll(() => {
    if (mounted) spawnSync('umount', [full])
    rmSync(full, { recursive: true, force: true })
  })
  test.runIf(mounted)('a full scratch directory on another file system falls back to writing beside the file', () => {
    spawnSync('sh', ['-c', `dd if=/dev/zero of=${join(full, 'fill')} bs=4k 2>/dev/null; true`])
    const scratch = join(full, 'scratch')
    mkdirSync(scratch)
    const dir = tempDir('gl-write-')
    writeFileNoClobber(join(dir, 'a.md'), 'one\n', false, scratch)
    writeFileNoClobber(join(dir, 'a.md'), 'two\n', true, scratch)
    expect(readdirSync(dir)).toEqual(['a.md'])
    expect(readFileSync(join(dir, 'a.md'), 'utf8')).toBe('two\n')
    expect(readdirSync(scratch)).toEqual([])
  })

  test.runIf(mounted)("a full disk that is the file's own is not tried again beside it: ENOSPC names the file", () => {
    const scratch = join(full, 'scratch2')
    mkdirSync(scratch, { recursive: true })
    expect(() => writeFileNoClobber(join(full, 'b.md'), 'x'.repeat(8192), false, scratch)).toThrow(/ENOSPC/)
    expect(readdirSync(full).sort()).toEqual(['fill', 'scratch', 'scratch2'])
  })

  // rename(2) names its source, the temporary file: the error must name the file asked for, and leave nothing.
  test('replacing a folder fails naming that folder, never the temporary file', () => {
    const dir = tempDir('gl-write-')
    mkdirSync(join(dir, 'out'))
    let err: unknown
    try {
      writeFileNoClobber(join(dir, 'out'), 'x\n', true)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(FileAccessError)
    expect(err).toMatchObject({ path: join(dir, 'out'), code: 'EISDIR' })
    expect(readdirSync(dir)).toEqual(['out'])
  })

  test('the name of a temporary copy beside a file is recognised, and nothing else is', () => {
    const p = '/x/.learnings/pending/a.md'
    expect(isTemporaryBeside(p, '.a.md.0123456789ab.tmp')).toBe(true)
    expect(isTemporaryBeside(p, '.a.md.0123456789a.tmp')).toBe(false)
    expect(isTemporaryBeside(p, '.b.md.0123456789ab.tmp')).toBe(false)
    expect(isTemporaryBeside(p, 'a.md')).toBe(false)
    expect(isTemporaryBeside(p, '.a.md.0123456789ab.tmp.md')).toBe(false)
  })
})

describe('replacing a file', () => {
  test('keeps its mode, and through a symbolic link replaces the file it points at', () => {
    const dir = tempDir('gl-replace-')
    const hook = join(dir, 'pre-commit')
    writeFileNoClobber(hook, '#!/bin/sh\n', false)
    chmodSync(hook, 0o750)
    writeFileNoClobber(hook, '#!/bin/sh\necho ours\n', true)
    expect(statSync(hook).mode & 0o777).toBe(0o750)
    symlinkSync('AGENTS.md', join(dir, 'CLAUDE.md'))
    writeFileNoClobber(join(dir, 'AGENTS.md'), 'shared\n', false)
    writeFileNoClobber(join(dir, 'CLAUDE.md'), 'shared, edited\n', true)
    expect(lstatSync(join(dir, 'CLAUDE.md')).isSymbolicLink()).toBe(true)
    expect(readFileSync(join(dir, 'AGENTS.md'), 'utf8')).toBe('shared, edited\n')
    expect(readdirSync(dir).sort()).toEqual(['AGENTS.md', 'CLAUDE.md', 'pre-commit'])
  })
})

test('a new file takes the mode asked for before it has its name (a hook is never there without its x bit)', () => {
  const dir = tempDir('gl-mode-')
  writeFileNoClobber(join(dir, 'pre-commit'), '#!/bin/sh\n', false, undefined, 0o755)
  expect(statSync(join(dir, 'pre-commit')).mode & 0o777).toBe(0o755)
  chmodSync(join(dir, 'pre-commit'), 0o700)
  writeFileNoClobber(join(dir, 'pre-commit'), '#!/bin/sh\necho\n', true, undefined, 0o755)
  expect(statSync(join(dir, 'pre-commit')).mode & 0o777).toBe(0o700)
})

describe('makeDirs', () => {
  // Node 20's recursive mkdir says ENOENT on a read-only file system: render on a read-only mount said
  // ".claude/skills/x: it does not exist (or a folder on its way does not)".
  const ro = mkdtempSync(join(tmpdir(), 'gl-ro-'))
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', ro]).status === 0
  afterAll(() => {
    if (mounted) spawnSync('umount', [ro])
    rmSync(ro, { recursive: true, force: true })
  })
  test.runIf(mounted)('on a read-only file system throws EROFS, not ENOENT', () => {
    let err: unknown
    try {
      makeDirs(join(ro, '.claude', 'skills', 'x'))
    } catch (e) {
      err = e
    }
    expect(err).toMatchObject({ code: 'EROFS' })
  })

  test('makes every missing folder, and is content with one that exists', () => {
    const dir = tempDir('gl-dirs-')
    makeDirs(join(dir, 'a', 'b', 'c'))
    makeDirs(join(dir, 'a', 'b', 'c'))
    expect(statSync(join(dir, 'a', 'b', 'c')).isDirectory()).toBe(true)
  })
})
