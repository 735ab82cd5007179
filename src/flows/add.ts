/**
 * `git learn add` once its input is read: validate the learning, refuse a name already taken (in the work tree or
 * the index), admit it (src/flows/admit.ts), and write and commit `.learnings/pending/<name>.md` alone.
 */
import { commitTransition } from './transition.js'
import { assertNothingHalfDone } from './recovery.js'
import { stageNewFile } from './stage.js'
import { assertNoOperationInProgress, assertStoreCheckedOut, readIdentity } from '../adapters/git/simple.js'
import { openRepo } from '../adapters/store/repo.js'
import { findLearningPath } from '../adapters/store/store.js'
import { loadLearningValidator } from '../adapters/store/validators.js'
import { LearningInvalidError, NameTakenError } from '../core/errors.js'
import { STATES, learningPath, parseLearning, validateLearning } from '../core/learning.js'
import { buildCommitMessage } from '../core/trailers.js'
import { admitLearning } from './admit.js'

export interface AddOptions {
  /** Where the text came from, named in a validation error (undefined: stdin or flags, the pending path is named). */
  source?: string
  force: boolean
  allowDirectives: boolean
  dryRun: boolean
  /** Commit the file (false: write and stage it only). */
  commit: boolean
  /** A warning about the learning, said as soon as it is known (a refusal after it must not hide it). */
  warn: (path: string, message: string) => void
}

export interface AddResult {
  name: string
  from: null
  to: 'pending'
  path: string
  commit: string | null
  /** With `commit: false`: the commit message the staged file should be committed with (its audit trailers). */
  message?: string
}

export async function addLearning(cwd: string, name: string, text: string, opts: AddOptions): Promise<AddResult> {
  const repo = await openRepo(cwd, { readOnly: opts.dryRun })
  const { git } = repo
  assertNoOperationInProgress(git)
  await assertNothingHalfDone(git)
  // Names, duplicates and config.yaml are read from the work tree: a store the sparse checkout hides is refused first.
  await assertStoreCheckedOut(git)
  await repo.config()
  const path = learningPath('pending', name)
  const learning = parseLearning(text, path)
  const { errors, warnings } = validateLearning(learning, await loadLearningValidator())
  if (errors.length) throw new LearningInvalidError(opts.source ?? path, errors)
  const existing = findLearningPath(git.root, name)
  if (existing) throw new NameTakenError(name, existing.path)
  // The index too: in a sparse checkout a learning can be tracked without a file in the work tree.
  const tracked = (
    await git.run(['ls-files', '-z', '--', ...STATES.map((st) => `:(literal)${learningPath(st, name)}`)])
  )
    .split('\0')
    .find(Boolean)
  if (tracked) throw new NameTakenError(name, tracked)
  for (const w of warnings) opts.warn(path, w)
  const admission = await admitLearning(repo, learning, {
    force: opts.force,
    allowDirectives: opts.allowDirectives,
    text,
  })
  for (const w of admission.warnings) opts.warn(path, w)

  const identity = await readIdentity(git)
  const message = buildCommitMessage({
    action: 'add',
    names: [name],
    from: null,
    to: 'pending',
    by: { token: 'Proposed-by', value: identity },
    extra: admission.trailers,
  })
  let sha: string | null = null
  if (!opts.dryRun && opts.commit)
    sha = await commitTransition(git, [{ kind: 'create', path, text: admission.text }], message)
  else if (!opts.dryRun) {
    await stageNewFile(git, path, admission.text)
    return { name, from: null, to: 'pending', path, commit: null, message }
  }
  return { name, from: null, to: 'pending', path, commit: sha }
}
