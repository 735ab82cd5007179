/**
 * Commit messages of lifecycle commits and the audit trail read back from them. Tokens have no spaces, values
 * are single lines, repeated tokens are allowed. Trailers are found anywhere in a message, not only in its last
 * paragraph, because a forge's squash merge folds several branch messages into one body.
 */
import { SecretInMessageError } from './errors.js'
import type { LearningState } from './errors.js'
import { scanSecrets } from './secrets.js'
import type { Action } from './lifecycle.js'

export interface Trailer {
  token: string
  value: string
}

export interface CommitMessageInput {
  action: Action
  names: readonly string[]
  from: LearningState | null
  to: LearningState
  /** `Approved-by` and the like, with the identity as value. */
  by?: Trailer
  reason?: string
  body?: string
  extra?: readonly Trailer[]
  /** Trailers that belong to one learning's group (its gates, its origin), keyed by name. */
  perName?: Readonly<Record<string, readonly Trailer[]>>
}

/** Fold a value to one line: newlines and runs of white space become one space. */
export function foldValue(value: string): string {
  return value.replace(/\s+/g, ' ').trim()
}

/** What `core.commentChar=auto` tries, in order: the first that starts no line of the message (git's commit.c). */
const AUTO_COMMENT_CHARS = '#;@!$%^&|:'

/** git's scissors line after its comment prefix (wt-status.c `cut_line`), newline included. */
const CUT_LINE = ' ------------------------ >8 ------------------------\n'

/**
 * A commit message file as `git commit` will record it, for the commit-msg hook (git runs the hook before it cleans
 * the message): cut at git's scissors line, which `commit.verbose` (the diff below it) and `commit.cleanup=scissors`
 * put there, and without comment lines. `comment` is `core.commentChar` (or `core.commentString`): a scissors line
 * after another prefix is not cut by git, so a diff's quoted trailers would count. With `auto` git chose a character
 * from AUTO_COMMENT_CHARS that the hook cannot see: the scissors line of any of them is cut (a line git keeps is
 * dropped at worst, which can only refuse, never accept, a move) and comment lines are read after that one's prefix.
 * Comment lines never join or split a paragraph of trailers, so dropping them only tidies.
 */
export function committedMessage(raw: string, comment: string): string {
  const prefixes = comment === 'auto' ? [...AUTO_COMMENT_CHARS] : [comment || '#']
  let end = raw.length
  let prefix = prefixes[0] as string
  for (const p of prefixes) {
    const line = `${p}${CUT_LINE}`
    const after = raw.indexOf(`\n${line}`)
    const found = raw.startsWith(line) ? 0 : after < 0 ? -1 : after + 1
    if (found >= 0 && found < end) {
      end = found
      prefix = p
    }
  }
  return raw
    .slice(0, end)
    .split('\n')
    .filter((l) => !l.startsWith(prefix))
    .join('\n')
}

/** Subject, optional body, one trailer block. */
export function buildCommitMessage(input: CommitMessageInput): string {
  const subject = `learn: ${input.action} ${input.names.join(', ')}`
  const trailers: Trailer[] = []
  for (const name of input.names) {
    trailers.push({ token: 'Learning', value: name })
    trailers.push({ token: 'Learning-Action', value: input.action })
    if (input.from) trailers.push({ token: 'Learning-From', value: input.from })
    trailers.push({ token: 'Learning-To', value: input.to })
    trailers.push(...(input.perName?.[name] ?? []))
  }
  if (input.by) trailers.push(input.by)
  if (input.reason) trailers.push({ token: 'Learning-Reason', value: input.reason })
  trailers.push(...(input.extra ?? []))
  const block = trailers.map((t) => `${t.token}: ${foldValue(t.value)}`).join('\n')
  const body = input.body?.trim()
  return `${subject}\n\n${body ? `${body}\n\n` : ''}${block}\n`
}

/** One lifecycle event read back from a commit. */
export interface AuditEvent {
  commit: string
  date: string
  author: string
  name: string
  action: string
  from: string | null
  to: string | null
  by: string | null
  byRole: string | null
  reason: string | null
  trailers: Trailer[]
  /**
   * A `git revert` of a lifecycle commit (read with `reverts`): the commit it reverts and that commit's action for this
   * learning (`revert` again for a revert of a revert). Its from/to are the reverted event's, swapped.
   */
  reverts?: { commit: string; action: string }
}

export interface RawCommit {
  commit: string
  date: string
  author: string
  message: string
}

/**
 * A trailer line, `Token: value`: the token, then the value up to the line's end without its trailing blanks, and
 * nothing after the line but whitespace (what `/^([A-Za-z][A-Za-z0-9-]*):[ \t]+(.*\S)\s*$/` matches). Read with
 * string scans: that expression took quadratic time in a value holding a long run of blanks (a commit message is a
 * contributor's text, which `check --base` reads in CI).
 */
export function trailerLine(line: string): { token: string; value: string } | undefined {
  const head = /^([A-Za-z][A-Za-z0-9-]*):[ \t]+/.exec(line)
  if (!head) return undefined
  const rest = line.slice(head[0].length)
  const end = lineEnd(rest)
  if (!/^\s*$/.test(rest.slice(end))) return undefined
  const value = rest.slice(0, end).trimEnd()
  return value ? { token: head[1] as string, value } : undefined
}

/** Where the first line of `text` ends: its first line terminator (what `.` does not match), or its length. */
function lineEnd(text: string): number {
  const m = /[\n\r\u2028\u2029]/.exec(text)
  return m ? m.index : text.length
}

/**
 * Every `Learning:` group in a message, each with the trailers that follow it until the next `Learning:` or the
 * end of its paragraph; groups of one paragraph share `*-by` and `Learning-Reason` (one commit moving several).
 */
export function parseLearningTrailers(message: string): Trailer[][] {
  return parseGroups(message).map((g) => g.trailers)
}

interface Group {
  paragraph: number
  trailers: Trailer[]
}

function parseGroups(message: string): Group[] {
  const groups: Group[] = []
  let current: Group | undefined
  let paragraph = 0
  for (const raw of message.split(/\r?\n/)) {
    if (!raw.trim()) {
      paragraph++
      current = undefined
      continue
    }
    const m = trailerLine(raw.replace(/^\s*[*-]?\s*/, ''))
    if (!m) continue
    const { token, value } = m
    if (token === 'Learning') {
      current = { paragraph, trailers: [{ token, value }] }
      groups.push(current)
    } else if (current && (token.startsWith('Learning-') || /-by$/.test(token))) current.trailers.push({ token, value })
  }
  return groups
}

/**
 * git's own line in the message of a revert (and of a "Reapply", the revert of a revert): "This reverts commit
 * <full id>." (sometimes with ", reversing\nchanges made to <id>." for a merge). A squash of several reverts holds one
 * such line per revert: indented by `git merge --squash`, at the start of the line in a forge's squash.
 */
const REVERTS_LINE = /^[ \t]*This reverts commit ([0-9a-f]{7,64})\b/gm

/**
 * The audit events of a list of commits (newest first stays newest first), optionally for one learning. With
 * `reverts` (the audit trail `log` shows), a commit without trailers whose message is a `git revert` of a lifecycle
 * commit of the list is an event too: action `revert`, the reverted event's move swapped, by the revert's author. Not
 * for the guards and prune, which read approvals from trailers alone (CONTRIBUTING.md: a revert is not an un-approval).
 */
export function parseAuditTrail(commits: readonly RawCommit[], name?: string, reverts = false): AuditEvent[] {
  const out: AuditEvent[] = []
  const byId = reverts ? new Map(commits.map((c) => [c.commit, c])) : undefined
  for (const c of commits) {
    const start = out.length
    const groups = parseGroups(c.message)
    if (byId && !groups.length) {
      out.push(...revertEvents(c, byId, name, 0))
      continue
    }
    for (const { paragraph, trailers: g } of groups) {
      const first = (token: string) => g.find((t) => t.token === token)?.value ?? null
      const learning = first('Learning') as string
      if (name && learning !== name) continue
      const shared = groups.filter((o) => o.paragraph === paragraph).flatMap((o) => o.trailers)
      const byTrailer = g.find((t) => /-by$/.test(t.token)) ?? shared.find((t) => /-by$/.test(t.token))
      out.push({
        commit: c.commit,
        date: c.date,
        author: c.author,
        name: learning,
        action: first('Learning-Action') ?? 'unknown',
        from: first('Learning-From'),
        to: first('Learning-To'),
        by: byTrailer?.value ?? null,
        byRole: byTrailer?.token ?? null,
        reason: first('Learning-Reason') ?? shared.find((t) => t.token === 'Learning-Reason')?.value ?? null,
        trailers: g,
      })
    }
    newestFirst(out, start)
  }
  return out
}

/** The events of a revert commit `c` (none when it reverts no lifecycle commit of `byId`); `depth` bounds a chain. */
function revertEvents(
  c: RawCommit,
  byId: ReadonlyMap<string, RawCommit>,
  name: string | undefined,
  depth: number,
): AuditEvent[] {
  if (depth > 20) return []
  const ids = new Set([...c.message.matchAll(REVERTS_LINE)].map((m) => m[1] as string))
  return [...ids].flatMap((id) => {
    const target =
      byId.get(id) ?? (id.length < 40 ? [...byId.values()].find((o) => o.commit.startsWith(id)) : undefined)
    return target ? revertsOf(c, target, byId, name, depth) : []
  })
}

/** The events of revert commit `c` for the one commit `target` it reverts. */
function revertsOf(
  c: RawCommit,
  target: RawCommit,
  byId: ReadonlyMap<string, RawCommit>,
  name: string | undefined,
  depth: number,
): AuditEvent[] {
  const reverted = parseGroups(target.message).length
    ? parseAuditTrail([target], name)
    : revertEvents(target, byId, name, depth + 1)
  return reverted.map((e) => ({
    commit: c.commit,
    date: c.date,
    author: c.author,
    name: e.name,
    action: 'revert',
    from: e.to,
    to: e.from,
    by: c.author,
    byRole: null,
    reason: null,
    trailers: [],
    reverts: { commit: target.commit, action: e.action },
  }))
}

/**
 * One commit can carry several steps of one learning (a squash merge of a branch that proposed and approved it),
 * listed oldest first by a forge and newest first by `git merge --squash`: put them newest first, as the commits
 * are, by their chain (a step that leaves the state another step entered is the later one).
 */
function newestFirst(events: AuditEvent[], start: number): void {
  for (let i = start + 1; i < events.length; i++)
    for (let j = i; j > start; j--) {
      const a = events[j - 1] as AuditEvent
      const b = events[j] as AuditEvent
      if (a.name !== b.name || a.to === null || a.to !== b.from) break
      events[j - 1] = b
      events[j] = a
    }
}

/**
 * Who put `name` into pending/, by the record, from the commits that added its file: the `Proposed-by` (or
 * `Restored-by`) of each commit's groups for it, through squash bodies too; the commit's author only when its
 * message names nobody. Who pressed merge on a squash is not who proposed.
 */
export function proposersOf(name: string, commits: readonly RawCommit[]): string[] {
  return commits.flatMap((c) => {
    const by = parseAuditTrail([c], name).flatMap((e) => (e.to === 'pending' && e.by ? [e.by] : []))
    return by.length ? by : [c.author]
  })
}

/** Who put a learning into pending/ by the record a clone holds, and whether that record reaches its beginning. */
export interface ProposalRecord {
  proposers: string[]
  /** False in a shallow clone whose history is cut before the learning's beginning: a proposer may be missing. */
  complete: boolean
}

/**
 * proposersOf in a clone whose history may be cut short (`git clone --depth`). A shallow boundary commit (`shallow`:
 * git shows it without its parents) lists every file it holds as added, so it proves only what its own trailers
 * record, never by its author. `heldAtCut`: the boundary commits that hold the learning in any state; the record is
 * whole unless one of them does and is not its own `add` (then it was proposed, or restored, before the cut).
 */
export function proposalRecord(
  name: string,
  commits: readonly RawCommit[],
  shallow: ReadonlySet<string>,
  heldAtCut: readonly string[],
): ProposalRecord {
  const recorded = (c: RawCommit) => parseAuditTrail([c], name).filter((e) => e.to === 'pending' && e.by)
  const proposers = commits.flatMap((c) =>
    shallow.has(c.commit) ? recorded(c).map((e) => e.by as string) : proposersOf(name, [c]),
  )
  const addedBy = (id: string) => commits.some((c) => c.commit === id && recorded(c).some((e) => e.from === null))
  return { proposers, complete: heldAtCut.every(addedBy) }
}

/** Split `git log` output written with RAW_LOG_FORMAT into commits. */
export const RAW_LOG_FORMAT = '%H%x1f%aI%x1f%an <%ae>%x1f%B%x1e'

/**
 * RAW_LOG_FORMAT with the committer date in place of the author date, for when a commit reached the branch: a rebase,
 * a cherry-pick or `git commit --amend` keeps the author date (possibly months old) and writes a new committer date.
 */
export const COMMITTED_LOG_FORMAT = '%H%x1f%cI%x1f%an <%ae>%x1f%B%x1e'

/**
 * Sample: "3f2c…\x1f2026-11-20T10:00:00+01:00\x1fJane <j@x>\x1flearn: approve x\n\nLearning: x\n…\x1e\n"
 */
export function parseRawLog(out: string): RawCommit[] {
  return out
    .split('\x1e')
    .map((r) => r.replace(/^\n/, ''))
    .filter((r) => r.includes('\x1f'))
    .map((r) => {
      const [commit = '', date = '', author = '', message = ''] = r.split('\x1f')
      return { commit, date, author, message }
    })
}

/** Refuse a value bound for a commit message when it carries a credential: a commit message is on disk for good. */
export function assertNoSecretInMessage(value: string, what: string): void {
  const found = scanSecrets(value)
  if (found.length)
    throw new SecretInMessageError(
      what,
      found.map((f) => ({ description: f.description, rule: f.rule, masked: f.masked })),
    )
}
