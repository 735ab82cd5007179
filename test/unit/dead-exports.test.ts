// An export that nothing names — not another module, not a test, not a benchmark or script, not even its own file —
// is dead code that a reader has to reason about. (Exports used only inside their own file are allowed.)
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { expect, test } from 'vitest'

const root = new URL('../../', import.meta.url).pathname
const files = (dir: string, ext: RegExp): string[] =>
  readdirSync(join(root, dir)).flatMap((f) => {
    const rel = join(dir, f)
    if (f === 'node_modules' || f === 'fixtures') return []
    return statSync(join(root, rel)).isDirectory() ? files(rel, ext) : ext.test(f) ? [rel] : []
  })

/** The names a file exports as values or types, with a declaration of their own (`export function x`, …). */
export function exportedNames(text: string): string[] {
  return [
    ...text.matchAll(
      /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+(\w+)/gm,
    ),
  ].map((m) => m[1] as string)
}

test('exportedNames reads every form of declaration', () => {
  expect(
    exportedNames(
      'export const A = 1\nexport async function b() {}\nexport interface C {}\nexport type D = 1\nconst e = 2\n',
    ),
  ).toEqual(['A', 'b', 'C', 'D'])
})

test('every export of src/ is named somewhere besides its declaration', () => {
  const sources = files('src', /\.ts$/)
  const readers = [...sources, ...files('test', /\.ts$/), ...files('bench', /\.mjs$/), ...files('scripts', /\.mjs$/)]
  const texts = new Map(readers.map((f) => [f, readFileSync(join(root, f), 'utf8')]))
  const dead: string[] = []
  for (const file of sources) {
    for (const name of exportedNames(texts.get(file) as string)) {
      const word = new RegExp(`\\b${name}\\b`, 'g')
      const uses = [...texts].reduce((n, [f, t]) => n + (t.match(word)?.length ?? 0) - (f === file ? 1 : 0), 0)
      if (uses === 0) dead.push(`${relative('src', file)}: ${name}`)
    }
  }
  expect(dead).toEqual([])
})
