import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'

const root = new URL('../../', import.meta.url).pathname
const srcDir = join(root, 'src')
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) =>
    statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith('.ts') ? [join(dir, f)] : [],
  )
const VENDORED = ['yaml', 'simple-git', 'diff']

test.each(
  files(srcDir)
    .filter((f) => !f.includes('/src/vendor/'))
    .map((f) => [f.slice(srcDir.length + 1)]),
)('src/%s loads yaml, simple-git and diff through src/vendor/ (one bundled copy of each)', (rel) => {
  const text = readFileSync(join(srcDir, rel), 'utf8')
  for (const pkg of VENDORED) {
    // Type-only imports are erased by tsc; a value import of the package itself would load its 70 files again.
    expect(text).not.toMatch(new RegExp(`^import (?!type )[^\\n]*from '${pkg}'`, 'm'))
    expect(text).not.toMatch(new RegExp(`import\\('${pkg}'\\)`))
  }
})

test('the build replaced each dist/vendor/<package>.js with a one-file bundle', () => {
  for (const pkg of VENDORED) {
    const text = readFileSync(join(root, 'dist', 'vendor', `${pkg}.js`), 'utf8')
    expect(text).not.toMatch(new RegExp(`require\\("${pkg}"\\)`))
    expect(text.length).toBeGreaterThan(20_000)
  }
})
