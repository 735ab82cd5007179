/** Sentences of the guards: hook installation, CI setup, and the admission refusals of add. */

export interface HookChangeLine {
  file: string
  action: string
  note?: string
  manager?: string
  concerns?: readonly { kind: 'may-exit' | 'unparsed'; line: number; text: string }[]
}

/** core.hooksPath points at a folder this work tree lacks: git runs no hook here (a warning; exit code unchanged). */
export function hooksPathMissing(m: { hooksPath: string; dir: string; husky: boolean }): string {
  const fix = m.husky
    ? 'husky makes that folder and gitignores it, so a new `git worktree` lacks it: run `npx husky` in this worktree (`npm install` does when package.json has "prepare": "husky")'
    : 'run `git learn hook install` in this worktree to write the guards there'
  return `warning: core.hooksPath is "${m.hooksPath}", which does not exist in this worktree (${m.dir}): git runs no hook here, so no git learn guard runs; ${fix}.\n`
}

/** What may keep a guard line from running, one `warning: file:line:` each (stderr; install still exits 0). */
export function hookWarnings(changes: readonly HookChangeLine[]): string {
  return changes
    .flatMap((c) =>
      (c.concerns ?? []).map((k) =>
        k.kind === 'may-exit'
          ? `warning: ${c.file}:${k.line}: \`${k.text}\` can end the hook before the git learn line, which then does not run: make sure it cannot skip the check, or move the git learn line above it\n`
          : `warning: ${c.file}:${k.line}: git learn could not follow the if/case/loop nesting of this hook, so it cannot tell whether its line (line ${k.line}) runs: check it by hand\n`,
      ),
    )
    .join('')
}

/** A hook manager's hooks that do not run git-learn yet (adapters/git/hooks.ts ManagedHooks). */
export interface ManagedHooksLine {
  manager: string
  config: string
  hooks: readonly string[]
  entries: string
  shimDir: string
  portable: boolean
}

const MANAGER_INSTALL: Record<string, (hooks: readonly string[]) => string> = {
  lefthook: () => '`lefthook install`',
  'pre-commit': (hooks) => `\`pre-commit install ${hooks.map((h) => `--hook-type ${h}`).join(' ')}\``,
  'simple-git-hooks': () => '`npx simple-git-hooks`',
}

/** What to add to a hook manager's config, and the command that makes it write the hooks again. */
function managedReport(m: ManagedHooksLine): string {
  const install = MANAGER_INSTALL[m.manager]?.(m.hooks) ?? `${m.manager}'s install`
  const where =
    m.manager === 'pre-commit'
      ? ' (under `repos:`; pre-commit 3.2 or later names the stages so)'
      : m.manager === 'simple-git-hooks'
        ? m.config.endsWith('.json')
          ? ` (${m.config === 'package.json' ? 'its "simple-git-hooks" object' : 'its object'}; a hook's command that is there already is kept, ours after \`&&\`)`
          : // A JavaScript config is never run: the team's commands are not in these entries.
            ` (its exported object; git learn does not run ${m.config}, so these are ours alone: where a hook has a command there, keep it and put ours after it with \`&&\`)`
        : ''
  const indented = m.entries.replace(/^(?=.)/gm, '    ')
  // A path of this machine's in a config the team commits: a teammate's commit would run a shim that is not there.
  const local = m.portable
    ? ''
    : `warning: these entries run the shims of this machine's git-learn (${m.shimDir}), which a teammate's checkout does not have, so their commits would fail: add git-learn to the project's devDependencies (\`npm i -D <git-learn tarball or git URL>\`), then run \`git learn hook install\` again for entries that name its copy in node_modules.\n`
  return `${m.manager} writes ${m.hooks.join(' and ')} from ${m.config}: a line added to the hook would be gone at its next install, so add these entries to ${m.config}${where}, then run ${install}:\n${indented}${local}`
}

export function hookReport(
  kind: 'husky' | 'hooks-dir',
  changes: readonly HookChangeLine[],
  uninstall: boolean,
  managed: readonly ManagedHooksLine[] = [],
): string {
  // A husky hook is the user's file: uninstall took our line out of it, not the file.
  const what = (c: HookChangeLine) =>
    kind === 'husky' && uninstall && c.action === 'removed' ? `the git-learn line from ${c.file}` : c.file
  const lines = changes.map((c) => `  ${c.action.padEnd(9)} ${what(c)}${c.note ? ` (${c.note})` : ''}`)
  const where = kind === 'husky' ? 'husky hooks (.husky/)' : 'git hooks'
  const skipped = changes.some((c) => c.action === 'skipped' && !c.manager)
  const tail = uninstall
    ? ''
    : managed.map(managedReport).join('') +
      `${skipped ? 'A hook of your own was left in place: add `git learn check --staged` (pre-commit) and `git learn hook commit-msg "$1"` (commit-msg) to it, or run `git learn hook install --force` to replace it (yours is kept as a backup).\n' : ''}` +
      'The hooks run `git-learn`, which must be on PATH (or in node_modules/.bin); GIT_LEARN_HOOKS=0 skips them once.\n'
  return `${uninstall ? 'removed git learn from' : 'git learn guards'} ${where}:\n${lines.join('\n')}\n${tail}`
}

export function ciReport(created: readonly string[], existing: readonly string[], pinned: boolean): string {
  const lines = [
    ...created.map((c) => `  created ${c}`),
    ...existing.map((c) => `  kept    ${c} (already there; compare with templates/ of git-learn)`),
    ...(pinned
      ? []
      : [
          'The workflow runs the git-learn your lockfile pins (npm ci, then ./node_modules/.bin/git-learn), and',
          'package.json does not list it yet: add it with `npm i -D <git-learn tarball or git URL>` and commit the lockfile.',
        ]),
  ]
  return `${lines.join('\n')}
Make the pull request the human approval:
  1. Commit .github/workflows/git-learn.yml and .github/CODEOWNERS (it names who approves .learnings/active/;
     edit the team name in it).
  2. In the repository settings, protect the default branch: "Require a pull request before merging",
     "Require review from Code Owners", and require the status check "git-learn / check".
A learning then reaches active/ only through a reviewed pull request whose check passed.
`
}

/** After the findings of `check --staged`, when they stop the commit: names the hook that ran. */
export const checkStopped = (hook: 'pre-commit' | 'pre-merge-commit') =>
  hook === 'pre-merge-commit'
    ? 'The merge was stopped by git learn (pre-merge-commit). Fix the files above, stage them, and conclude the merge with `git commit`.\n'
    : 'The commit was stopped by git learn (pre-commit). Fix the files above, stage them, and commit again.\n'

/** After the commit-msg findings, when they stop the commit: a move without its trailers, or directives alone. */
export const commitMsgStopped = (moves: boolean) =>
  moves
    ? 'The commit was stopped by git learn (commit-msg). Lifecycle moves go through `git learn approve`, `reject`, `prune` and `restore`, which write the trailers.\n'
    : 'The commit was stopped by git learn (commit-msg). Rewrite each directive above as a description, or, if it is meant, put the line it names in the commit message, and commit again.\n'

export const squashMessageDropped =
  'This is a squash merge: the message git prepared (.git/SQUASH_MSG) carries the branch\'s trailers, which are the review. Commit with it (`git commit` without -m, or keep its "Learning…" and "…-by" lines in yours).\n'

export const refreshRenderFailed = (who: string, reason: string) =>
  `git learn ${who}: refreshing the rendered files failed (${reason}); run \`git learn render\` yourself.\n`
