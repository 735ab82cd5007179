/**
 * `git learn export`: the learnings of the chosen states, stripped of what must not leave the repository, as one
 * bundle; written to `out` (never inside .learnings/, an existing file only with `force`) or handed back.
 */
import { join } from 'node:path'
import { openRepo } from '../adapters/store/repo.js'
import { readStore } from '../adapters/store/store.js'
import { isDirectory, isInside, pathExists, realish, writeFileNoClobber } from '../adapters/store/write-file.js'
import { MAX_BUNDLE_ENTRIES, buildBundle, stripLearning } from '../core/bundle.js'
import { MAX_BUNDLE_BYTES } from '../adapters/store/bundle-io.js'
import type { Bundle, StripCounts } from '../core/bundle.js'
import { FileAccessError, RefusedError } from '../core/errors.js'
import type { LearningState } from '../core/errors.js'
import { STORE_DIR } from '../core/learning.js'

export interface ExportOptions {
  states: readonly LearningState[]
  /** An absolute path to write the bundle to; undefined: the caller prints it. */
  out: string | undefined
  /** `out` as messages name it (as the user gave it, relative to where they are). */
  outShown?: string
  keepCode: boolean
  force: boolean
  now: Date
  unreadable: (path: string, reason: string) => void
}

export interface ExportOutcome {
  bundle: Bundle
  /** The bundle as written (pretty JSON and a newline). */
  text: string
  /** What was stripped from each learning. */
  report: { name: string; stripped: StripCounts }[]
}

const exportIntoStore = (path: string) => `${path} is inside .learnings/; export never writes into the store`
const exportExists = (path: string, insideRepo: boolean) =>
  `${path} already exists${insideRepo ? ' in the repository (it may hold uncommitted work)' : ' and is outside the repository'}; export will not overwrite it`
const EXISTS_FIX = 'choose another --out, or pass --force to overwrite it'

export async function exportLearnings(cwd: string, opts: ExportOptions): Promise<ExportOutcome> {
  const repo = await openRepo(cwd)
  const config = await repo.config()
  const { out } = opts
  const shown = opts.outShown ?? out ?? ''
  if (out) {
    // Refuse an --out inside .learnings/ (whatever --force says), a folder (--force cannot replace one) and an
    // existing file without --force.
    const store = join(repo.root, STORE_DIR)
    if (isInside(store, out) || isInside(realish(store), realish(out)))
      throw new RefusedError(exportIntoStore(shown), ['choose an --out outside .learnings/'])
    if (isDirectory(out)) throw new FileAccessError(shown, 'EISDIR', 'the --out file', true)
    if (!opts.force && pathExists(out))
      throw new RefusedError(exportExists(shown, isInside(repo.root, out)), [EXISTS_FIX])
  }
  const scan = readStore(repo.root, opts.states)
  for (const p of scan.problems) opts.unreadable(p.path, p.reason)
  const strip = { keepCode: opts.keepCode, now: opts.now, allow: config.secrets.allow }
  const stripped = scan.learnings
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((l) => stripLearning(l, strip))
  const bundle = buildBundle(
    stripped.map((s) => s.entry),
    opts.now,
  )
  const report = stripped.map((s) => ({ name: s.entry.name, stripped: s.stripped }))
  const text = `${JSON.stringify(bundle, null, 2)}\n`
  // What export writes, import accepts: the same two limits, checked here before anything is written.
  const bytes = Buffer.byteLength(text)
  if (bytes > MAX_BUNDLE_BYTES || bundle.learnings.length > MAX_BUNDLE_ENTRIES)
    throw new RefusedError(
      `the bundle would hold ${bundle.learnings.length} learnings in ${bytes} bytes; \`git learn import\` takes at most ${MAX_BUNDLE_ENTRIES} learnings and ${MAX_BUNDLE_BYTES} bytes`,
      ['export fewer at a time: one --state at a time, or without --keep-code'],
    )
  if (out) {
    try {
      writeFileNoClobber(out, text, opts.force)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST')
        throw new RefusedError(exportExists(shown, isInside(repo.root, out)), [EXISTS_FIX])
      if (err instanceof FileAccessError) throw new FileAccessError(shown, err.code, 'the --out file', true)
      throw err
    }
  }
  return { bundle, text, report }
}
