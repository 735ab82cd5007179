/** Sentences of recovery: what a crash or an older version left half done, and the one command that settles it. */
import type { HalfDone } from '../../core/errors.js'
import { parseStorePath } from '../../core/layout.js'

const short = (oid: string) => oid.slice(0, 12)

/** How many paths a sentence names before "and N more": an import of 2,000 learnings named all 2,000 (100 KB). */
const NAMED_PATHS = 5

/** Paths for a sentence: the first few, then how many more (`git status` shows them all). */
function pathList(paths: readonly string[]): string {
  if (paths.length <= NAMED_PATHS + 1) return paths.join(', ')
  return `${paths.slice(0, NAMED_PATHS).join(', ')} and ${(paths.length - NAMED_PATHS).toLocaleString('en-US')} more`
}

/** The command that makes each legal move between state folders, with its review trailers. */
const MOVE_COMMANDS: Readonly<Record<string, string>> = {
  'pending>active': 'git learn approve <name>',
  'pending>archived': 'git learn reject <name> --reason "…"',
  'active>archived': 'git learn prune <name> --reason "…"',
  'archived>pending': 'git learn restore <name>',
}

/** One half-done state as a sentence that ends with what to run. */
export function describeHalfDone(p: HalfDone): string {
  switch (p.kind) {
    case 'index-lock':
      return `git's index is locked (${p.path} exists): a git process is running, or one was killed. If none is running, remove the lock: \`rm ${p.path}\``
    case 'ref-lock':
      return `the branch ${p.ref} is locked (${p.path} exists): a git process is moving it, or one was killed while it did. If none is running, remove the lock: \`rm ${p.path}\``
    case 'running':
      return p.elsewhere
        ? `another git learn (process ${p.pid} in another container or on another machine that shares this repository) is committing "${p.subject}", or was stopped there while it did: \`git learn doctor\` run there tells which (and \`--continue\` there finishes it). If nothing runs there any more (a container stopped since), it is taken for stopped here once an hour old`
        : `another git learn (process ${p.pid}) is committing "${p.subject}" right now`
    case 'unfinished':
      return `"${p.subject}" was committed (${short(p.commit)}), but the process stopped before your index and work tree were brought in line for ${pathList(p.paths)}. Finish it: \`git learn doctor --continue\` (or undo it: \`git learn doctor --abort\`)`
    case 'staged-move': {
      const from = parseStorePath(p.from)
      const to = parseStorePath(p.to)
      // The feed reads the work tree: until the move is undone or made, agents get the file where it now is.
      const fed = to?.state === 'active' ? ', though agents are fed it as active until then' : ''
      const still = from ? `: it is still ${from.state}${fed}` : ''
      const command =
        from && to && from.name === to.name
          ? MOVE_COMMANDS[`${from.state}>${to.state}`]?.replace('<name>', to.name)
          : undefined
      const then = command ? `make the move with \`${command}\`` : 'run the command again'
      return `${p.from} → ${p.to} is staged but was never committed (an interrupted move of an older git-learn, or a move by hand): nothing was approved, rejected or archived${still}. Undo it: \`git learn doctor --abort\` (or \`git mv ${p.to} ${p.from}\`), then ${then}`
    }
    case 'staged-new':
      return `${p.path} is staged but not committed (\`git learn add --no-commit\`, or an interrupted import of an older git-learn): commit it with \`git commit\`, or unstage it with \`git learn doctor --abort\` (the file is kept)`
    case 'staged-removal':
      return `the removal of ${p.path} is staged but not committed (learnings are archived, never deleted). Undo it: \`git learn doctor --abort\``
    case 'torn-journal':
      return `${p.path} is the journal of a git learn command that stopped, and it cannot be read (torn by a crash or a power loss, or written by another version): what it recorded is lost. If \`git status\` shows a learning moved between state folders that you did not move, \`git learn doctor --abort\` undoes that; \`git learn doctor --abort\` also removes the journal (or \`rm ${p.path}\`)`
    case 'orphan-tier-ref': {
      const name = p.ref.replace(/^refs\/learn\/tiers\//, '')
      return `${p.ref} (at ${short(p.commit)}) is a tier that no .learnings/config.yaml names, on any branch: a \`git learn tier add ${name}\` stopped between its fetch and its commit, or the commit that pinned it was reverted or reset away (nothing reads the ref then). Pin it by running that \`git learn tier add ${name} <git-url>\` again, or delete it: \`git learn doctor --abort\``
    }
  }
}

/** The note every command prints when it finds something half done (it goes on; committing commands refuse). */
export function halfDoneNote(problems: readonly HalfDone[]): string {
  return problems.map((p) => `warning: ${describeHalfDone(p)}\n`).join('') + 'Run `git learn doctor` to see it all.\n'
}

/** After a hook's refusal, when an interrupted transition of ours is why the index differs from HEAD. */
export function unfinishedBeforeCommit(problems: readonly HalfDone[]): string {
  return (
    'The index still lags a git learn command that was interrupted after its commit, which is why the moves above ' +
    'are staged; they are not yours to commit:\n' +
    problems.map((p) => `- ${describeHalfDone(p)}\n`).join('')
  )
}

/** `git learn doctor` without options. */
export function doctorReport(problems: readonly HalfDone[]): string {
  if (!problems.length)
    return 'Nothing half done: no lock left, no interrupted transition, no learning staged and not committed.\n'
  return `${problems.map((p) => `- ${describeHalfDone(p)}`).join('\n')}\n`
}

/** After --continue or --abort. */
export function doctorDone(
  action: 'continue' | 'abort',
  settled: readonly HalfDone[],
  left: readonly { problem: HalfDone; why: string }[],
): string {
  const lines: string[] = []
  for (const p of settled) {
    if (p.kind === 'unfinished')
      lines.push(
        action === 'continue'
          ? `finished "${p.subject}" (${short(p.commit)}): index and work tree in line`
          : `undid "${p.subject}": the branch is back where it was, and so are ${pathList(p.paths)}`,
      )
    else if (p.kind === 'staged-move') lines.push(`moved ${p.to} back to ${p.from} and unstaged both`)
    else if (p.kind === 'staged-new') lines.push(`unstaged ${p.path} (the file is still there, untracked)`)
    else if (p.kind === 'staged-removal') lines.push(`restored ${p.path}`)
    else if (p.kind === 'orphan-tier-ref')
      lines.push(`deleted ${p.ref} (it was at ${short(p.commit)}; no config named it)`)
    else if (p.kind === 'torn-journal') lines.push(`removed ${p.path}, which could not be read`)
  }
  for (const l of left) lines.push(`left as is: ${describeHalfDone(l.problem)} (${l.why})`)
  if (!lines.length) lines.push(`nothing to ${action}`)
  return `${lines.join('\n')}\n`
}

/** Another process moved the branch or the learning's paths: nothing changed. */
export const concurrentChange = (subject: string, reason: string) =>
  `"${subject}" was not committed: ${reason}. Nothing changed; look at \`git log -1\` and run the command again.`

/** The branch's lock file exists: no commit can move it; a retry cannot help while it is there. */
export const refLocked = (ref: string, lock: string) =>
  `${ref} is locked: ${lock} exists. Another git process may be running (or one was killed while it moved the branch). Nothing changed.\nIf no git process is running, remove the lock (\`rm ${lock}\`), then run the command again.`

/** The commit landed, the index or work tree did not follow. */
export const transitionIncomplete = (subject: string, commit: string, paths: readonly string[], reason: string) =>
  `"${subject}" was committed (${short(commit)}), but your index and work tree were not brought in line for ${pathList(paths)}: ${reason}\nFinish it with \`git learn doctor --continue\` once the cause is gone (undo it with \`git learn doctor --abort\`).`

/** A signal ended a command: what it held was removed, and no commit of it is half made. */
export const interrupted = (signal: string) =>
  `interrupted by ${signal}; nothing is left half done (\`git learn log\` shows any commit it made, each whole)`

/** A second signal ended a command while its commit was being made: it may have landed, its journal says. */
export const interruptedAgain = (signal: string) =>
  `interrupted again by ${signal} while its commit was being made: \`git learn doctor\` says whether it landed, \`git learn doctor --continue\` finishes it and \`--abort\` undoes what is left`

/** A signal ended a command whose commit landed while the index or work tree could not follow (a journal is left). */
export const interruptedHalfDone = (signal: string) =>
  `interrupted by ${signal} after its commit landed, and your index and work tree were not brought in line with it: \`git learn doctor\` says what is left, \`git learn doctor --continue\` finishes it`
