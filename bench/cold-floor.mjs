// How low can a search after the cache is gone go? The least any search that reads and indexes every learning does,
// measured against `node -e 0` and git-learn's own cold search in the same run, interleaved run for run.
//
//   node bench/cold-floor.mjs [--runs 7] [--size 10000 | --store <repository>] [--bin <dist/bin.js>]
//
// Rows (each a fresh Node process, so each pays Node's start as git-learn does):
//   read only       read every learning's file (the store's two zones) and split off its frontmatter;
//   tokens only     that, plus each text cut into lower-cased words counted per document (a bag of words: the
//                   least an inverted index for BM25 needs; no stop words, no stemming, no index structure);
//   MiniSearch      that, indexed by MiniSearch with its default settings (the "plain BM25" baseline),
//                   then one query;
//   git-learn       `git learn search --json -` of the bench's pasted failure with `.git/learn/cache` removed
//                   (parse, validate, normalize, screen, index, write the cache, answer).
// None of the floors validates, normalizes, screens for secrets or writes anything: they are what is left when
// every guarantee is dropped.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, FAILURE, makeStoreRepo } from './lib.mjs'

/** Every learning file's text, split at its frontmatter. */
function readStore(root) {
  const docs = []
  for (const zone of ['active', 'pending']) {
    const dir = join(root, '.learnings', zone)
    if (!existsSync(dir)) continue
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.md')) continue
      const text = readFileSync(join(dir, name), 'utf8')
      const end = text.indexOf('\n---', 4)
      docs.push({ id: docs.length, head: text.slice(4, end), body: text.slice(end + 4) })
    }
  }
  return docs
}

async function floor(kind, root) {
  const docs = readStore(root)
  if (kind === 'read') return docs.length
  if (kind === 'tokens') {
    let terms = 0
    for (const d of docs) {
      const counts = new Map()
      for (const w of `${d.head}\n${d.body}`.toLowerCase().split(/[^\p{L}\p{N}_]+/u))
        if (w) counts.set(w, (counts.get(w) ?? 0) + 1)
      terms += counts.size
    }
    return terms
  }
  const { default: MiniSearch } = await import('minisearch')
  const index = new MiniSearch({ fields: ['head', 'body'] })
  index.addAll(docs)
  return index.search(FAILURE).length
}

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : fallback
}

if (opt('--floor')) {
  process.stdout.write(`${await floor(opt('--floor'), opt('--root'))}\n`)
} else {
  const runs = Number(opt('--runs', '7'))
  const bin = opt('--bin', BIN)
  const root = opt('--store') ?? makeStoreRepo(Number(opt('--size', '10000'))).root
  const self = new URL(import.meta.url).pathname
  /** @type {{ label: string, argv: string[], cold?: boolean, ms: number[], ratio: number[] }[]} */
  const rows = [
    { label: 'node -e 0', argv: [process.execPath, '-e', '0'], ms: [], ratio: [] },
    { label: 'read only', argv: [process.execPath, self, '--floor', 'read', '--root', root], ms: [], ratio: [] },
    { label: 'tokens only', argv: [process.execPath, self, '--floor', 'tokens', '--root', root], ms: [], ratio: [] },
    {
      label: 'MiniSearch defaults',
      argv: [process.execPath, self, '--floor', 'minisearch', '--root', root],
      ms: [],
      ratio: [],
    },
    {
      label: 'git-learn search, cache gone',
      argv: [process.execPath, bin, 'search', '--json', '-'],
      cold: true,
      ms: [],
      ratio: [],
    },
  ]
  /** @param {string[]} argv */
  const time = (argv) => {
    const t = process.hrtime.bigint()
    const r = spawnSync(argv[0] ?? '', argv.slice(1), { cwd: root, input: FAILURE, stdio: ['pipe', 'ignore', 'pipe'] })
    if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`)
    return Number(process.hrtime.bigint() - t) / 1e6
  }
  execFileSync('git', ['update-index', '-q', '--refresh'], { cwd: root })
  for (let i = 0; i < runs; i++) {
    let base = 0
    for (const row of rows) {
      if (row.cold) rmSync(join(root, '.git', 'learn', 'cache'), { recursive: true, force: true })
      const t = time(row.argv)
      if (base === 0) base = t
      row.ms.push(t)
      row.ratio.push(t / base)
    }
  }
  /** @param {number[]} v */
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? NaN
  const files = readStore(root).length
  process.stdout.write(`store: ${root} (${files} learnings), ${runs} runs interleaved\n`)
  process.stdout.write('| work | median ms | ratio to node -e 0 (range) |\n| --- | --- | --- |\n')
  for (const row of rows) {
    const lo = Math.min(...row.ratio).toFixed(1)
    const hi = Math.max(...row.ratio).toFixed(1)
    process.stdout.write(
      `| ${row.label} | ${median(row.ms).toFixed(0)} | ${median(row.ratio).toFixed(1)}× (${lo}–${hi}) |\n`,
    )
  }
  if (!opt('--store')) rmSync(root, { recursive: true, force: true })
}
