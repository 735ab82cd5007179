import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'

const srcDir = new URL('../../src/', import.meta.url).pathname
const coreDir = join(srcDir, 'core')
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) =>
    statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith('.ts') ? [join(dir, f)] : [],
  )

/** Every module specifier a file names: static imports, re-exports, dynamic import() and require(). */
export function specifiers(text: string): string[] {
  const found: string[] = []
  for (const m of text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) found.push(m[1] as string)
  for (const m of text.matchAll(/\brequire\s*\(\s*['"]([^'"]+)['"]/g)) found.push(m[1] as string)
  return found
}

const IO = /^(node:)?(fs|fs\/promises|child_process|os|net|http|https|worker_threads)$/

/** Why a core file's import breaks purity, or undefined when it keeps it. */
export function impurity(spec: string): string | undefined {
  if (IO.test(spec)) return `imports ${spec}`
  if (spec === 'simple-git' || /vendor\/simple-git(\.js)?$/.test(spec)) return 'imports simple-git'
  if (/(^|\/)(adapters|cli)(\/|$)/.test(spec) || /^\.\.\/\.\.?\/?(bin)(\.js)?$/.test(spec))
    return `imports ${spec} (outside core)`
  return undefined
}

describe('the purity rules catch what they name', () => {
  test.each([
    ["import { readFileSync } from 'node:fs'", 'imports node:fs'],
    ["import { x } from '../adapters/git/run.js'", 'imports ../adapters/git/run.js (outside core)'],
    ["const m = await import('../../adapters/feed/recall.js')", 'imports ../../adapters/feed/recall.js (outside core)'],
    ["export * from '../cli/messages/errors.js'", 'imports ../cli/messages/errors.js (outside core)'],
    ["import { simpleGit } from '../vendor/simple-git.js'", 'imports simple-git'],
  ])('%s', (line, why) => {
    expect(specifiers(line).map(impurity)).toEqual([why])
  })
  test('a pure import passes', () => {
    expect(
      specifiers("import { parse } from '../vendor/yaml.js'\nimport type { X } from './learning.js'").map(impurity),
    ).toEqual([undefined, undefined])
  })
})

test.each(files(coreDir).map((f) => [relative(coreDir, f)]))(
  'src/core/%s does no I/O and imports only core and vendor',
  (rel) => {
    const text = readFileSync(join(coreDir, rel), 'utf8')
    expect(specifiers(text).flatMap((s) => impurity(s) ?? [])).toEqual([])
    expect(text).not.toMatch(/\b(require|createRequire)\s*\(/)
    expect(text).not.toMatch(/\bprocess\.(env|cwd|argv|exit|stdout|stderr)/)
  },
)

test('one module of src/ starts processes: src/adapters/git/run.ts', () => {
  const users = files(srcDir).filter((f) =>
    specifiers(readFileSync(f, 'utf8')).some((s) => /^(node:)?child_process$/.test(s)),
  )
  expect(users.map((f) => relative(srcDir, f))).toEqual(['adapters/git/run.ts'])
})

test('adapters never import the CLI', () => {
  const bad = files(join(srcDir, 'adapters')).filter((f) =>
    specifiers(readFileSync(f, 'utf8')).some((s) => /(^|\/)cli\//.test(s)),
  )
  expect(bad.map((f) => relative(srcDir, f))).toEqual([])
})
