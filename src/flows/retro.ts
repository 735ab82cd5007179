/**
 * `git learn retro`: stream the observation logs through the detectors and, with `write`, propose every candidate
 * through the admission of `add` (src/flows/admit.ts) into pending/ in one commit. The drafts of one run are
 * compared with each other first: the store's duplicate check cannot see them.
 */
import { join } from 'node:path'
import { commitTransition } from './transition.js'
import { assertNothingHalfDone } from './recovery.js'
import { assertNoOperationInProgress, assertStoreCheckedOut, readHead, readIdentity } from '../adapters/git/simple.js'
import { listObservationFiles, observationBytes, readObservationLines } from '../adapters/state/observations.js'
import { openRepo } from '../adapters/store/repo.js'
import { findLearningPath } from '../adapters/store/store.js'
import { GitLearnError, RefusedError } from '../core/errors.js'
import { learningPath, parseLearning } from '../core/learning.js'
import type { Learning } from '../core/learning.js'
import { createRetroAnalysis } from '../core/retro/analyze.js'
import type { RetroResult } from '../core/retro/analyze.js'
import { dedupeDrafts } from '../core/retro/dedupe-drafts.js'
import type { DraftSkip } from '../core/retro/dedupe-drafts.js'
import { RETRO_CONFIDENCE, formatCandidateLearning } from '../core/retro/drafts.js'
import { buildCommitMessage } from '../core/trailers.js'
import type { Trailer } from '../core/trailers.js'
import { admitLearning } from './admit.js'

/** Logs larger than this get a progress report. */
const PROGRESS_BYTES = 32 * 1024 * 1024

export interface RetroOptions {
  session: string | undefined
  since: string | undefined
  write: boolean
  now: Date
  /** Reading a large log (over 32 MB): its size and the number of files, before the reading starts. */
  reading: (bytes: number, files: number) => void
  warn: (path: string, message: string) => void
}

export interface RetroWrite {
  written: { name: string; path: string }[]
  /** Candidates the admission (or the draft's own validation) refused, in order, with the error that says why. */
  refused: { name: string; error: GitLearnError }[]
  /** Candidates left out because another candidate of the run has their name or (nearly) their text. */
  skipped: DraftSkip[]
  commit: string | null
}

export interface RetroOutcome {
  result: RetroResult
  files: number
  stateDir: string
  /** Only with `write`. */
  write?: RetroWrite
}

export async function retro(cwd: string, opts: RetroOptions): Promise<RetroOutcome> {
  const repo = await openRepo(cwd)
  const { git } = repo
  const stateDir = join(git.commonDir, 'learn')
  const files = listObservationFiles(stateDir)
  const bytes = observationBytes(files)
  if (bytes > PROGRESS_BYTES) opts.reading(bytes, files.length)
  const analysis = createRetroAnalysis({ session: opts.session, since: opts.since })
  for await (const line of readObservationLines(files)) analysis.feedLine(line)
  const result = analysis.finish()
  if (!opts.write) return { result, files: files.length, stateDir }

  assertNoOperationInProgress(git)
  await assertNothingHalfDone(git)
  await assertStoreCheckedOut(git)
  const config = await repo.config()
  const commit = await readHead(git)
  const identity = await readIdentity(git)
  const written: { name: string; path: string; text: string }[] = []
  const refused: RetroWrite['refused'] = []
  const refuse = (name: string, err: unknown) => {
    if (!(err instanceof GitLearnError)) throw err
    refused.push({ name, error: err })
  }
  const drafts: Learning[] = []
  for (const c of result.candidates) {
    try {
      drafts.push(
        parseLearning(
          formatCandidateLearning(c, { now: opts.now, commit, root: git.root }),
          learningPath('pending', c.name),
        ),
      )
    } catch (err) {
      refuse(c.name, err)
    }
  }
  const { kept, skipped } = dedupeDrafts(drafts, config.dedupe)
  const perName: Record<string, Trailer[]> = {}
  for (const learning of kept) {
    const existing = findLearningPath(git.root, learning.name)
    if (existing) {
      refused.push({
        name: learning.name,
        error: new RefusedError(`a learning named ${learning.name} already exists: ${existing.path}`),
      })
      continue
    }
    try {
      const admitted = await admitLearning(repo, learning, {})
      for (const w of admitted.warnings) opts.warn(learning.path, w)
      perName[learning.name] = admitted.trailers
      written.push({ name: learning.name, path: learning.path, text: admitted.text })
    } catch (err) {
      refuse(learning.name, err)
    }
  }
  let sha: string | null = null
  if (written.length) {
    const message = buildCommitMessage({
      action: 'add',
      names: written.map((w) => w.name),
      from: null,
      to: 'pending',
      by: { token: 'Proposed-by', value: identity },
      body: `Proposed by git learn retro from ${result.records} observation(s); confidence ${RETRO_CONFIDENCE}.`,
      perName,
    })
    sha = await commitTransition(
      git,
      written.map((w) => ({ kind: 'create' as const, path: w.path, text: w.text })),
      message,
    )
  }
  return {
    result,
    files: files.length,
    stateDir,
    write: { written: written.map(({ name, path }) => ({ name, path })), refused, skipped, commit: sha },
  }
}
