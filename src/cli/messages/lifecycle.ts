/** Sentences of the lifecycle commands. */
import { directivesAllowedLine } from '../../core/directive-trailer.js'
import { trailerLine } from '../../core/trailers.js'
import type { AuditEvent } from '../../core/trailers.js'

export interface MoveResult {
  name: string
  from: string | null
  to: string
  path: string
  commit: string | null
}

const short = (c: string | null) => (c ? c.slice(0, 7) : '')

export function added(r: MoveResult, opts: { dryRun: boolean; committed: boolean }): string {
  if (opts.dryRun)
    return `would add ${r.name} as ${r.path} and ${opts.committed ? 'commit it alone' : 'stage it, not committed'} (dry run: nothing written)\n`
  if (!opts.committed) return `added ${r.path} and staged it (not committed)\n${commitWithTrailers(r)}`
  return `added ${r.name} → ${r.path} (commit ${short(r.commit)})\nNext: open a pull request; a reviewer approves it with \`git learn approve ${r.name}\`.\n`
}

/**
 * The `git commit` that records a staged proposal with its audit trail (`Proposed-by`, `Learning-Gates` …): without
 * them `git learn log` and approve's proposer check know nothing of it. The whole message goes in as written, with
 * `-F -`: `--trailer` went through the user's trailer.* settings, where git matches keys by prefix, so
 * `trailer.ifExists=replace` let `Learning-Action: add` replace `Learning: <name>`, and `doNothing` dropped it.
 */
function commitWithTrailers(r: MoveResult & { message?: string }): string {
  const lines = (r.message ?? '').replace(/\n+$/, '').split('\n')
  // The subject (`learn: add x`) has the shape of a trailer too: the trailers are the lines after it.
  if (!lines.slice(1).some((l) => trailerLine(l))) return `Commit it with: git commit -- ${r.path}\n`
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  return `Commit it with its audit trailers (\`git learn log\` and approve read them):\n  printf '%s\\n' ${lines.map(q).join(' ')} | git commit -F - -- ${r.path}\n`
}

export function moved(action: string, r: MoveResult, dryRun: boolean): string {
  const from = `.learnings/${r.from}/${r.name}.md`
  if (dryRun)
    return `would ${action} ${r.name}: move ${from} to ${r.path} in a commit of those paths alone (dry run: nothing changed)\n`
  const next =
    action === 'approve'
      ? 'It now reaches agents (search, context, recall).'
      : action === 'restore'
        ? `It is pending review again: \`git learn approve ${r.name}\` or \`git learn reject ${r.name} --reason …\`.`
        : `It is kept in archived/; \`git learn restore ${r.name}\` brings it back.`
  return `${pastTense(action)} ${r.name}: ${from} → ${r.path} (commit ${short(r.commit)})\n${next}\n`
}

/** Commits made on a detached HEAD: on no branch, left behind by the next switch unless a branch keeps them. */
export function detachedCommits(commits: readonly string[]): string {
  const one = commits.length === 1
  const ids = commits.map(short).join(', ')
  return (
    `warning: HEAD is detached: the commit${one ? '' : 's'} ${ids} ${one ? 'is' : 'are'} on no branch, and switching ` +
    `away leaves ${one ? 'it' : 'them'} behind.\nKeep ${one ? 'it' : 'them'} on a new branch: \`git switch -c <branch>\` ` +
    `(or, once you have switched away, \`git branch <branch> ${short(commits[commits.length - 1] ?? null)}\`).\n`
  )
}

function pastTense(action: string): string {
  return { approve: 'approved', reject: 'rejected', restore: 'restored', prune: 'pruned' }[action] ?? `${action}d`
}

export function initReport(created: readonly string[], root: string, updated: readonly string[] = []): string {
  const also = updated.map((u) => `.learnings/ added to ${u}: your formatter leaves learnings as they were reviewed.\n`)
  if (!created.length)
    return `${also.join('')}.learnings/ is already set up in ${root}${updated.length ? '' : '; nothing to do'}.\n`
  return `${also.join('')}created in ${root}:\n${created.map((c) => `  ${c}`).join('\n')}\nNext: commit .learnings/, then propose what you learned. This one passes the gates as printed (drop --dry-run to commit it):\n  ${INIT_EXAMPLE}\n`
}

/** The example `init` prints: a learning with every section the gates ask for, from flags and a body on stdin. */
export const INIT_EXAMPLE =
  "printf '## Problem\\nnpm ci failed in CI.\\n\\n## Trigger Conditions\\nnpm ci in a fresh clone.\\n\\n## Root Cause\\nTried clearing the npm cache; the lockfile was out of date.\\n\\n## Solution\\nRun npm install and commit package-lock.json.\\n\\n## Verification\\nnpm ci passed.\\n' | " +
  'git learn add --name npm-ci-lockfile-out-of-sync --type error-solution --description "Fix npm ci refusing to install. Use when npm ci says package.json and package-lock.json are not in sync." ' +
  '--trigger "npm ci can only install packages when your package.json and package-lock.json are in sync" --tags npm,ci --body-file - --dry-run'

export interface ListRow {
  name: string
  state: string
  type: string
  description: string
}

export function listTable(rows: readonly ListRow[]): string {
  if (!rows.length) return 'no learnings match.\n'
  const w = (k: keyof ListRow) => Math.max(...rows.map((r) => r[k].length))
  const ws = w('state')
  const wt = w('type')
  const wn = w('name')
  return `${rows
    .map((r) => {
      const d = r.description.replace(/\s+/g, ' ')
      return `${r.state.padEnd(ws)}  ${r.type.padEnd(wt)}  ${r.name.padEnd(wn)}  ${d.length > 80 ? `${d.slice(0, 79)}…` : d}`
    })
    .join('\n')}\n`
}

/** The note after a shallow clone's trail: where it stops (`cut`: the commits git shows without their parents). */
export const shallowTrail = (cut: readonly string[]) =>
  `note: this clone is shallow: its history stops at ${cut
    .slice(0, 3)
    .map((c) => c.slice(0, 12))
    .join(', ')}${cut.length > 3 ? ` and ${cut.length - 3} more` : ''}, so older lifecycle commits are not listed.\n` +
  'Run `git fetch --unshallow` for the whole trail.\n'

export function logLines(events: readonly AuditEvent[], shallow = false): string {
  if (!events.length)
    return shallow
      ? 'no lifecycle commits in the history this shallow clone holds (they carry a "Learning:" trailer).\n'
      : 'no lifecycle commits found (they carry a "Learning:" trailer).\n'
  return `${events
    .map((e) => {
      // A hand-made edit in place (Learning-Action: edit, no From/To) moves nothing.
      const move = e.from || e.to ? `${e.from ?? '∅'} → ${e.to ?? '?'}` : 'in place'
      const head = `${e.date.slice(0, 10)}  ${e.action.padEnd(8)} ${e.name}  ${move}  by ${e.by ?? e.author}  ${short(e.commit)}`
      if (e.reverts)
        return `${head}\n            reverted ${e.reverts.action} of ${e.name} (${short(e.reverts.commit)})`
      return e.reason ? `${head}\n            reason: ${e.reason}` : head
    })
    .join('\n')}\n`
}

/** The schema's sentences about fields a flag of `add` gave, said of the flags (`field "confidence"` → `--confidence`). */
export const badFlagValues = (problems: readonly string[]) =>
  problems.map((p) => p.replace(/^field "([a-z_]+)(\[\d+\])?"/, (_, f: string, i = '') => `--${f}${i}`)).join('; ')

export const warnUnreadable = (path: string, reason: string) => `warning: skipped ${path}: ${reason}\n`
/** A warning line on stderr; `warningAt` names the file or learning it is about. */
export const warning = (text: string) => `warning: ${text}\n`
export const warningAt = (where: string, text: string) => warning(`${where}: ${text}`)

/** `git learn show`: the path and state, the description, then the body. */
export const showText = (l: { path: string; state: string; data: Record<string, unknown>; body: string }) =>
  `# ${l.path} (${l.state})\n${typeof l.data['description'] === 'string' ? `${l.data['description'].trim()}\n` : ''}\n${l.body.trimEnd()}\n`

/** What show prints as a tier learning's state (as the context labels a tier's learnings). */
export const tierState = (tier: string) => `active in tier ${tier}: reviewed in that repository, not here`

/** `git learn show` of a learning the feed withholds: where it is and why, never its text. */
export const showWithheld = (
  name: string,
  path: string,
  state: string,
  reasons: readonly string[],
  fingerprints: readonly string[] = [],
) =>
  `${name} (${state}, ${path}) is withheld from agents, so show does not print it: agents are told to run \`git learn show\`, and this text must not reach one:\n${reasons.map((r) => `  - ${r}`).join('\n')}\nTo read it yourself, open ${path} in your editor; \`git learn check\` gives each finding and its fix (remove and rotate a credential, or put a reviewed false positive in secrets.allow; ${fingerprints.length ? `a person who read the directives and means them accepts exactly these with a commit whose message carries the line "${directivesAllowedLine(name, fingerprints)}"` : 'a meant directive is accepted by its fingerprint, with `git learn add --allow-directives` or a Learning-Directives-Allowed trailer'}).`

export const secretInMessage = (what: string) =>
  `${what} contains what looks like a credential, and it would be recorded in the commit message for good; nothing was changed. Write it without the secret (and rotate it if it was real):`

export function partialMove(
  action: string,
  done: readonly { name: string; commit: string | null }[],
  failed: string,
  notAttempted: readonly string[],
  cause: string,
  /** The failed one's commit landed, but its files were not brought in line (TransitionIncompleteError). */
  committedAnyway = false,
): string {
  const list = done.map((d) => `${d.name} (commit ${(d.commit ?? '').slice(0, 7)})`).join(', ')
  const rest = notAttempted.length ? `; not attempted: ${notAttempted.join(', ')}` : ''
  if (committedAnyway)
    return `${action} stopped part way: ${list} ${done.length === 1 ? 'was' : 'were'} committed; ${failed} was committed but not finished${rest}.\n${cause}${notAttempted.length ? `\nThen run \`git learn ${action} ${notAttempted.join(' ')}\`.` : ''}`
  return `${action} stopped part way: ${list} ${done.length === 1 ? 'was' : 'were'} committed; ${failed} failed and was put back as it was${rest}.\nWhy ${failed} failed: ${cause}\nFix that, then run \`git learn ${action} ${[failed, ...notAttempted].join(' ')}\`.`
}

/**
 * No .learnings/ in the work tree. When a sparse checkout leaves the repository's store out, `git learn init` would
 * write a new one over its paths: the way in is `git sparse-checkout add`.
 */
export const noStore = (outsideSparseCheckout: boolean) =>
  outsideSparseCheckout
    ? 'note: .learnings/ is in this repository but not in this work tree, which is a sparse checkout that leaves it out.\nAdd it with `git sparse-checkout add .learnings`.\n'
    : 'note: this repository has no .learnings/ yet; run `git learn init` to set up the store.\n'

/** approve found a credential or an agent directive in the file it would move. */
export const approveHazard = (name: string, path: string, fingerprints: readonly string[]) =>
  `${path} holds what must not reach an agent (it was edited after it was proposed, or proposed without the checks), so ${name} was not approved. Remove it, commit the fix, and approve again; a reviewed false positive goes into secrets.allow by its fingerprint${fingerprints.length ? `, and directives a person read and means are accepted by a commit whose message carries the line "${directivesAllowedLine(name, fingerprints)}"` : ''}:`
