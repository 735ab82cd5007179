// The rebuild's per-file work of two or more builds, in one process, on one store's texts: the secret scan, the
// directive scan, the parse, and parseProjectFile (all of them, as the feed's rebuild calls it per learning).
// Usage: node bench/per-file.mjs --store <repo> <dist dir> [<dist dir>…]   (each a build's dist/, e.g. of a worktree)
// Prints three rounds; the later ones are warm (compare those).
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const args = process.argv.slice(2)
const at = args.indexOf('--store')
if (at === -1 || !args[at + 1]) throw new Error('usage: node bench/per-file.mjs --store <repo> <dist dir>…')
const store = /** @type {string} */ (args[at + 1])
const dists = args.filter((_, i) => i !== at && i !== at + 1).map((d) => resolve(d))
/** @type {string[]} */
const texts = []
for (const state of ['active', 'pending', 'archived']) {
  const dir = join(store, '.learnings', state)
  /** @type {string[]} */
  let names = []
  try {
    names = readdirSync(dir)
  } catch {
    continue
  }
  for (const f of names) if (f.endsWith('.md')) texts.push(readFileSync(join(dir, f), 'utf8'))
}
const load = (/** @type {string} */ dist, /** @type {string} */ mod) => import(pathToFileURL(join(dist, mod)).href)
const builds = await Promise.all(
  dists.map(async (d) => ({
    dist: d,
    secrets: await load(d, 'core/secrets.js'),
    directives: await load(d, 'core/directives.js'),
    learning: await load(d, 'core/learning.js'),
    parseFile: await load(d, 'adapters/feed/parse-file.js'),
  })),
)
const ms = (/** @type {() => void} */ f) => {
  const t0 = performance.now()
  f()
  return Math.round(performance.now() - t0)
}
console.log(`${texts.length} learnings of ${store}`)
for (let round = 1; round <= 3; round++)
  for (const b of builds)
    console.log(
      `round ${round}  ${b.dist}  secrets ${ms(() => texts.forEach((t) => b.secrets.scanSecrets(t, {})))} ms` +
        `  directives ${ms(() => texts.forEach((t) => b.directives.scanDirectives(t)))} ms` +
        `  parse ${ms(() => texts.forEach((t) => b.learning.parseLearning(t, '.learnings/active/x.md')))} ms` +
        `  parseProjectFile ${ms(() => texts.forEach((t, k) => b.parseFile.parseProjectFile(`.learnings/active/l${k}.md`, t, [])))} ms`,
    )
