import { lstatSync, realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { writeFileNoClobber } from '../../adapters/store/write-file.js'
import { openRepo } from '../../adapters/store/repo.js'
import { readStore } from '../../adapters/store/store.js'
import { MAX_BUNDLE_ENTRIES, buildBundle, stripLearning } from '../../core/bundle.js'
import { MAX_BUNDLE_BYTES } from '../../adapters/store/bundle-io.js'
import { RefusedError, UsageError } from '../../core/errors.js'
import type { LearningState } from '../../core/errors.js'
import { STATES, STORE_DIR } from '../../core/learning.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { warnUnreadable } from '../messages/lifecycle.js'
import { exportExists, exportIntoStore, exportReport, strippedLines } from '../messages/scale.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'export',
  summary: 'Write a bundle of learnings (one JSON document) stripped of what must not leave the repository.',
  usage: 'git learn export [--out <file>] [--state active|pending|archived|all] [--keep-code] [--force] [--json]',
  details:
    'Stripped from every learning: fenced code blocks (unless --keep-code), absolute paths (the file name is kept),\n' +
    'session ids (source.session), e-mail addresses, timestamps older than a week, and secrets. What was stripped\n' +
    'is listed per learning on stderr (or in the --json report). Without --out the bundle goes to stdout.\n' +
    'Bring it into another repository with `git learn import <file>`.',
  options: {
    out: { type: 'string', value: 'file', description: 'write the bundle here (an existing file needs --force; never inside .learnings/)' },
    state: { type: 'string', value: 'state', description: 'which learnings: active (default), pending, archived or all' },
    'keep-code': { type: 'boolean', description: 'keep fenced code blocks' },
    force: { type: 'boolean', description: 'overwrite an existing --out file' },
    json: { type: 'boolean', description: 'print {"out","count","stripped":[{name,stripped}]} (and "bundle" when there is no --out)' },
  },
}

const isInside = (root: string, path: string) => {
  const rel = relative(root, path)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/** The real path of `path` as far as it exists (the file itself may not exist yet). */
function realish(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    const parent = dirname(path)
    return parent === path ? path : join(realish(parent), basename(path))
  }
}

/** Refuse an --out inside .learnings/ (whatever --force says) and an existing file without --force. */
function assertExportTarget(root: string, outPath: string, force: boolean): void {
  const store = join(root, STORE_DIR)
  if (isInside(store, outPath) || isInside(realish(store), realish(outPath)))
    throw new RefusedError(exportIntoStore(outPath), ['choose an --out outside .learnings/'])
  if (!force && lstatSync(outPath, { throwIfNoEntry: false }))
    throw new RefusedError(exportExists(outPath, isInside(root, outPath)), ['choose another --out, or pass --force to overwrite it'])
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const state = stringOpt(args, 'state') ?? 'active'
  if (state !== 'all' && !STATES.includes(state as LearningState))
    throw new UsageError(`--state must be active, pending, archived or all, not "${state}"`, 'export')
  const repo = await openRepo(ctx.cwd)
  const config = await repo.config()
  const out = stringOpt(args, 'out')
  const outPath = out === undefined ? undefined : isAbsolute(out) ? out : resolve(ctx.cwd, out)
  if (outPath) assertExportTarget(repo.root, outPath, flag(args, 'force'))
  const scan = readStore(repo.root, state === 'all' ? STATES : [state as LearningState])
  for (const p of scan.problems) ctx.stderr(warnUnreadable(p.path, p.reason))
  const opts = { keepCode: flag(args, 'keep-code'), now: ctx.now(), allow: config.secrets.allow }
  const stripped = scan.learnings
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((l) => stripLearning(l, opts))
  const bundle = buildBundle(stripped.map((s) => s.entry), ctx.now())
  const report = stripped.map((s) => ({ name: s.entry.name, stripped: s.stripped }))
  const text = `${JSON.stringify(bundle, null, 2)}\n`
  // What export writes, import accepts: the same two limits, checked here before anything is written.
  const bytes = Buffer.byteLength(text)
  if (bytes > MAX_BUNDLE_BYTES || bundle.learnings.length > MAX_BUNDLE_ENTRIES)
    throw new RefusedError(`the bundle would hold ${bundle.learnings.length} learnings in ${bytes} bytes; \`git learn import\` takes at most ${MAX_BUNDLE_ENTRIES} learnings and ${MAX_BUNDLE_BYTES} bytes`, ['export fewer at a time: one --state at a time, or without --keep-code'])
  if (outPath) {
    try {
      writeFileNoClobber(outPath, text, flag(args, 'force'))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new RefusedError(exportExists(outPath, isInside(repo.root, outPath)), ['choose another --out, or pass --force to overwrite it'])
      throw err
    }
  }
  const shown = outPath ? relative(ctx.cwd, outPath) || outPath : null
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify({ out: shown, count: bundle.learnings.length, stripped: report, ...(outPath ? {} : { bundle }) })}\n`)
  else {
    if (!outPath) ctx.stdout(text)
    ctx.stderr(strippedLines(report))
    if (outPath) ctx.stdout(exportReport(bundle.learnings.length, shown ?? join(outPath)))
  }
  return ExitCode.ok
}
