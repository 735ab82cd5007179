// Build step, last: a hash of everything the build wrote under dist/ (our modules, the vendor bundles, the generated
// validators), stored in dist/generated/build-hash.txt. The feed cache keys on it (src/adapters/feed/feed-key.ts),
// so any change of code, in any module, is a new key. `node scripts/build-hash.mjs [<dist dir>]`.
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const dist = process.argv[2] ?? fileURLToPath(new URL('../dist/', import.meta.url))
const OUT = join('generated', 'build-hash.txt')
/** @param {string} dir @returns {string[]} */
const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  )
const files = walk(dist)
  .map((f) => relative(dist, f))
  .filter((f) => f !== OUT)
  .sort()
const h = createHash('sha256')
for (const f of files)
  h.update(`${f.split(sep).join('/')}\0`)
    .update(readFileSync(join(dist, f)))
    .update('\0')
mkdirSync(join(dist, 'generated'), { recursive: true })
writeFileSync(join(dist, OUT), `${h.digest('hex')}\n`)
// The bin runs as `git-learn` from PATH (a link to it; hooks and the CI workflow run ./node_modules/.bin/git-learn):
// npm sets its exec bit when it installs the package, not when the package builds itself.
if (existsSync(join(dist, 'bin.js'))) chmodSync(join(dist, 'bin.js'), 0o755)
