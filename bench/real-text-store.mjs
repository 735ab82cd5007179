// A store of real text for measuring a rebuild: `node bench/real-text-store.mjs <n> <dir>` copies the real-world
// evaluation set's learnings (test/fixtures/eval/real-world/learnings) to n learnings in a new repository at <dir>,
// each copy renamed, about 30 % of its longer lower-case words swapped for words of the repository's docs and its
// numbers varied (a fixed seed: the same store for the same docs), every tenth pending, then committed. The bench's
// generated store (lib.mjs makeStoreRepo) has a small vocabulary and the frontmatter `add` writes; these learnings are
// twice as long and written by hand (flow mappings, quoted errors), which is what a rebuild meets in a real store.
// About 2 % of the copies come out skipped: a word varied right after a backslash (`\nerror` → `\gadget`) makes an
// invalid escape in a double-quoted value (~1.2 %), and a varied connection string reads as a credential (~0.9 %).
// Left so: the figures measured on this store stay comparable, and a real store holds such files too.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './lib.mjs'

const n = Number(process.argv[2] ?? 10_000)
const root = process.argv[3]
if (!Number.isInteger(n) || n < 1 || !root) throw new Error('usage: node bench/real-text-store.mjs <n> <dir>')

const source = join(ROOT, 'test', 'fixtures', 'eval', 'real-world', 'learnings')
const docs = join(ROOT, 'docs')
const vocabulary = [
  ...new Set(readdirSync(docs).flatMap((f) => readFileSync(join(docs, f), 'utf8').match(/[A-Za-z][a-z]{2,14}/g) ?? [])),
]
const texts = readdirSync(source)
  .filter((f) => f.endsWith('.md'))
  .map((f) => readFileSync(join(source, f), 'utf8'))
let seed = 12345
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
/** @param {string} s */
const vary = (s) =>
  s
    .replace(/\b[a-z]{4,}\b/g, (w) =>
      random() < 0.3 ? (vocabulary[Math.floor(random() * vocabulary.length)] ?? w).toLowerCase() : w,
    )
    .replace(/\b\d+\b/g, () => String(Math.floor(random() * 100_000)))

/** @param {string[]} args */
const git = (...args) => execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 })
mkdirSync(root, { recursive: true })
git('init', '-q', '-b', 'main')
git('config', 'user.name', 'Bench')
git('config', 'user.email', 'bench@example.com')
git('config', 'commit.gpgsign', 'false')
for (const s of ['pending', 'active', 'archived']) mkdirSync(join(root, '.learnings', s), { recursive: true })
for (let i = 0; i < n; i++) {
  const text = texts[i % texts.length] ?? ''
  const end = text.indexOf('\n---', 3)
  const name = `${/^name: (\S+)/m.exec(text)?.[1] ?? 'learning'}-${i}`
  // The description's and the triggers' words vary too (`: ` and `# ` dropped so that plain scalars stay plain).
  const frontmatter = text
    .slice(0, end)
    .replace(/^name: \S+/m, `name: ${name}`)
    .replace(
      /^(description| {2}- |trigger):?(.*)$/gm,
      (line, _key, rest) => `${line.slice(0, line.length - rest.length)}${vary(rest).replace(/[#:]\s/g, ' ')}`,
    )
  const state = i % 10 === 0 ? 'pending' : 'active'
  writeFileSync(join(root, '.learnings', state, `${name}.md`), `${frontmatter}\n---${vary(text.slice(end + 4))}`)
}
writeFileSync(join(root, 'README.md'), '# bench\n')
git('add', '-A')
git('commit', '-q', '-m', `bench: ${n} learnings of real text`)
