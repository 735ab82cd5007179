// Build step after tsc: replace each dist/vendor/<package>.js (a one-line re-export, see src/vendor/) with a
// one-file CommonJS bundle of that package. Node resolves, reads and compiles a package of 70 small files far more
// slowly than one file with the same code: `require('yaml')` takes ~35 ms on the bench machine, its bundle ~10 ms,
// and every hook that parses a frontmatter pays it. The packages stay dependencies (the bundle is their code, with
// their licence comments kept at the end of each file).
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const dir = fileURLToPath(new URL('../dist/vendor/', import.meta.url))
const entryPoints = readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => dir + f)
if (!entryPoints.length) throw new Error('dist/vendor/ is empty: run tsc first')
await build({
  entryPoints,
  outdir: dir,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  legalComments: 'eof',
  logLevel: 'warning',
})
