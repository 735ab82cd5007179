// Build step after tsc and the vendor bundles: one pack per hook path (dist/packs/<name>.js, read by src/pack.ts).
// A pack holds the compiled code of the modules its path loads, each wrapped as Node wraps a CommonJS module, so the
// hook reads and compiles one file instead of 12 to 53. Which modules: the entries below (what the path imports
// lazily, as bin.ts and the command do) and every module they import at their top level, followed through. A module
// left out is loaded from its own file, as before (test/e2e/packs.test.ts holds each path to loading none that way).
// `node scripts/pack-hot.mjs [<dist dir>]`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'

const dist = process.argv[2] ?? fileURLToPath(new URL('../dist/', import.meta.url))

/**
 * What main loads for every command that prints (its output's escaping; the handler that cleans up on a signal, whose
 * one line of words, cli/messages/recovery.js, loads only when a signal comes), and the feed commands' road to the cache.
 */
const MAIN = ['cli/main.js', 'core/escape.js', 'cli/half-done.js', 'adapters/git/interrupt.js']
const FEED = [...MAIN, 'adapters/feed/feed-key.js']
/** The secret scan, loaded lazily where a text is screened. */
const SCAN = ['core/secrets.js', 'core/keyword-scan.js', 'core/secret-rules.js', 'core/git-args.js']
/**
 * The modules each path imports lazily on a warm cache (bin.ts, cli/main.ts, the command and what it calls); the
 * modules these import at their top level come with them.
 */
const PACKS = {
  observe: ['cli/commands/observe.js', 'cli/commands/capture.js', 'cli/context.js'],
  recall: [
    ...FEED,
    'cli/context.js',
    'core/recall-gate.js',
    'core/search-recall.js',
    'cli/commands/recall.js',
    'adapters/feed/recall.js',
    'cli/messages/feed.js',
  ],
  staged: [
    ...MAIN,
    ...SCAN,
    'adapters/git/index-reader.js',
    'cli/commands/check.js',
    'core/names.js',
    'core/check.js',
    'core/agent-safety.js',
    'core/directives.js',
    'core/sha256.js',
    'core/text-lines.js',
    'core/compare.js',
    'core/directive-trailer.js',
    'core/learning.js',
    'core/frontmatter-fast.js',
    'core/sections.js',
    'core/validate.js',
    'core/triggers.js',
    'core/lifecycle.js',
    'core/trailers.js',
    'adapters/store/validators.js',
    'generated/learning-validator.cjs',
    'core/config-schema.js',
    'adapters/store/config.js',
    'adapters/feed/feed-key.js',
  ],
  search: [
    ...FEED,
    ...SCAN,
    'cli/commands/search.js',
    'cli/parse-args.js',
    'core/suggest.js',
    'adapters/state/journal.js',
    'core/search.js',
    'core/sections.js',
    'core/triggers.js',
    'core/normalize-error.js',
    'core/error-words.js',
    'core/owned.js',
    'core/terms.js',
    'core/search-score.js',
    'core/search-top.js',
  ],
  context: [
    ...FEED,
    ...SCAN,
    'cli/commands/context.js',
    'adapters/state/events.js',
    'adapters/store/read-bounded.js',
    'adapters/state/event-line.js',
    'core/usage.js',
    'core/jsonl.js',
    'adapters/feed/search-index.js',
    'adapters/feed/cache-files.js',
    'adapters/feed/catalog-rows.js',
    'adapters/feed/catalog-blocks.js',
    'adapters/feed/cached-index.js',
    'core/search-merge.js',
    'adapters/feed/index-files.js',
    'core/search-postings.js',
    'adapters/feed/status-file.js',
    'core/context.js',
    'core/confidence.js',
    'core/iso-time.js',
    'core/compare.js',
    'core/lazy-order.js',
    'adapters/git/fast.js',
    'core/evidence.js',
    'core/config-schema.js',
  ],
}

/** The relative modules a compiled module requires at its top level (a line that starts a statement). */
const topLevelRequires = (/** @type {string} */ text) =>
  [...text.matchAll(/^(?![ \t]).*?require\("(\.\.?\/[^"]+)"\)/gm)].map((m) => /** @type {string} */ (m[1]))

/** `entries` and every module they import at their top level, as paths under dist/. */
function closure(/** @type {string[]} */ entries) {
  const seen = new Set()
  const todo = [...entries]
  while (todo.length) {
    const rel = /** @type {string} */ (todo.pop())
    if (seen.has(rel) || rel.startsWith('vendor/')) continue // the vendor bundles are one file each already
    seen.add(rel)
    if (!/\.c?js$/.test(rel)) continue
    for (const req of topLevelRequires(readFileSync(join(dist, rel), 'utf8')))
      todo.push(posix.normalize(posix.join(posix.dirname(rel), req)))
  }
  return [...seen].sort()
}

/** A module's code in the function Node's loader would compile it into. */
function wrapped(/** @type {string} */ rel) {
  const text = readFileSync(join(dist, rel), 'utf8')
  const body = rel.endsWith('.json') ? `module.exports = JSON.parse(${JSON.stringify(text)});` : text
  return `${JSON.stringify(rel)}: function (exports, require, module, __filename, __dirname) {\n${body}\n},\n`
}

mkdirSync(join(dist, 'packs'), { recursive: true })
for (const [name, entries] of Object.entries(PACKS)) {
  const modules = closure(entries)
  const out = join(dist, 'packs', `${name}.js`)
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(
    out,
    `// Built by scripts/pack-hot.mjs: ${modules.length} modules.\nmodule.exports = {\n${modules.map(wrapped).join('')}};\n`,
  )
}
