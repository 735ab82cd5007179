import { lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import {
  writeAtomic,
  writeCacheFile,
  writeCacheFileAlone,
  writeCacheFileKeeping,
} from '../../src/adapters/state/cache-file.js'
import { scratchOwner } from '../../src/adapters/state/process-tag.js'
import { tempDir } from '../helpers/repo.js'

test('writeCacheFile creates the directory and replaces the file whole; writeCacheFileAlone removes older versions', () => {
  const dir = join(tempDir(), 'learn', 'cache')
  expect(writeCacheFile(join(dir, 'a.json'), '{"v":1}')).toBe(true)
  expect(writeCacheFile(join(dir, 'a.json'), Buffer.from('{"v":2}'))).toBe(true)
  expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{"v":2}')
  writeFileSync(join(dir, 'config-old.json'), 'x')
  writeFileSync(join(dir, 'other.json'), 'y')
  expect(writeCacheFileAlone(join(dir, 'config-new.json'), 'z', 'config-')).toBe(true)
  expect(readdirSync(dir).sort()).toEqual(['a.json', 'config-new.json', 'other.json'])
})

test('writeCacheFileKeeping keeps the newest versions beside the one written, the oldest go', () => {
  const dir = join(tempDir(), 'learn', 'cache')
  mkdirSync(dir, { recursive: true })
  for (let i = 1; i <= 4; i++) {
    writeFileSync(join(dir, `config-${i}.json`), 'x')
    utimesSync(join(dir, `config-${i}.json`), 1000 + i, 1000 + i)
  }
  writeFileSync(join(dir, 'other.json'), 'y')
  expect(writeCacheFileKeeping(join(dir, 'config-new.json'), 'z', 'config-', 3)).toBe(true)
  expect(readdirSync(dir).sort()).toEqual(['config-3.json', 'config-4.json', 'config-new.json', 'other.json'])
})

test("writeCacheFileKeeping neither counts nor removes another process's temporary file", () => {
  const dir = join(tempDir(), 'learn', 'cache')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'config-1.json'), 'x')
  utimesSync(join(dir, 'config-1.json'), 1000, 1000)
  // Written by another process, not renamed yet (state/cache-file.ts freshTemp): the newest.
  writeFileSync(join(dir, 'config-2.json.999.tmp'), 'y')
  expect(writeCacheFileKeeping(join(dir, 'config-new.json'), 'z', 'config-', 2)).toBe(true)
  expect(readdirSync(dir).sort()).toEqual(['config-1.json', 'config-2.json.999.tmp', 'config-new.json'])
})

test('writeAtomic over a directory of that name throws and leaves no temporary file', () => {
  const dir = tempDir()
  mkdirSync(join(dir, 'taken'))
  expect(() => writeAtomic(join(dir, 'taken'), 'x')).toThrow()
  expect(readdirSync(dir)).toEqual(['taken'])
  expect(writeCacheFile(join(dir, 'taken'), 'x')).toBe(false)
})

test('a file or link already at the temporary name is never written through, and the file is written', () => {
  const dir = tempDir()
  const victim = join(dir, 'victim.txt')
  writeFileSync(victim, 'keep me')
  const file = join(dir, 'cache.json')
  // What a killed run of the same pid left, or what someone with write access to a shared git dir planted.
  symlinkSync(victim, `${file}.${scratchOwner()}.tmp`)
  writeAtomic(file, '{"v":1}')
  expect(readFileSync(victim, 'utf8')).toBe('keep me')
  expect(readFileSync(file, 'utf8')).toBe('{"v":1}')
  expect(lstatSync(file).isSymbolicLink()).toBe(false)
  expect(readdirSync(dir).sort()).toEqual(['cache.json', 'victim.txt'])
})
