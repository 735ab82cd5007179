import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { writeAtomic, writeCacheFile, writeCacheFileAlone } from '../../src/adapters/state/cache-file.js'
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

test('writeAtomic over a directory of that name throws and leaves no temporary file', () => {
  const dir = tempDir()
  mkdirSync(join(dir, 'taken'))
  expect(() => writeAtomic(join(dir, 'taken'), 'x')).toThrow()
  expect(readdirSync(dir)).toEqual(['taken'])
  expect(writeCacheFile(join(dir, 'taken'), 'x')).toBe(false)
})
