import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'

const coreDir = new URL('../../src/core/', import.meta.url).pathname
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith('.ts') ? [join(dir, f)] : []))

test.each(files(coreDir).map((f) => [f.slice(coreDir.length)]))('src/core/%s does no I/O', (rel) => {
  const text = readFileSync(join(coreDir, rel), 'utf8')
  expect(text).not.toMatch(/from ['"](node:)?(fs|child_process|fs\/promises|os|net|http|https)['"]/)
  expect(text).not.toMatch(/from ['"](simple-git|[./]*vendor\/simple-git\.js)['"]/)
  expect(text).not.toMatch(/\bimport\s*\(\s*['"](node:)?(fs|child_process|fs\/promises|os|net|http|https|simple-git)['"]/)
  expect(text).not.toMatch(/\b(require|createRequire)\s*\(/)
  expect(text).not.toMatch(/\bprocess\.(env|cwd|argv|exit|stdout|stderr)/)
})
