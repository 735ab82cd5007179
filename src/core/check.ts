/**
 * The check engine (DESIGN section 5): pure rules over files (their path, mode and text), the changes since a base
 * and commit messages. The three entry points (pre-commit, commit-msg, CI) gather inputs through adapters and
 * call these; every finding names its rule, severity, file, line and the fix.
 *
 * Why one file of 500 lines: the rules share one Finding shape, one zone matcher and one audit-trail reading, and the
 * three entry points must agree rule for rule; splitting them apart would let the pre-commit and CI readings drift.
 */
import type { DiffEntry } from './check-diff.js'
import { isCommitId } from './git-args.js'
import { SYMLINK_MODE } from './check-diff.js'
import { isLearningShaped, isLocalStateFile, isRendered, isStoreSupportFile } from './check-zones.js'
import { DECODED, scanForAgents } from './agent-safety.js'
import { directiveAcceptance, directivesAllowedLine } from './directive-trailer.js'
import type { DirectiveAcceptances } from './directive-trailer.js'
import type { DirectiveFinding } from './directives.js'
import { LearningParseError } from './errors.js'
import type { LearningState } from './errors.js'
import { learningPath, parseLearning, parseStorePath, validateLearning } from './learning.js'
import type { Learning } from './learning.js'
import { MOVES, identityKey, isAllowedMove } from './lifecycle.js'
import type { AuditEvent } from './trailers.js'
import { parseAuditTrail, parseLearningTrailers } from './trailers.js'
import type { SchemaValidator } from './validate.js'

export type Severity = 'error' | 'warning' | 'note'
export type RuleId =
  'schema' | 'zone' | 'transition' | 'secrets' | 'stale' | 'budget' | 'directives' | 'rendered' | 'tier'

/** Every rule with its default severity and what it holds. */
export const RULES: Readonly<Record<RuleId, { severity: Severity; summary: string }>> = {
  schema: {
    severity: 'error',
    summary: 'frontmatter valid, required sections present, name = file name, unique across states',
  },
  zone: {
    severity: 'error',
    summary:
      'learnings only in .learnings/{pending,active,archived}; none hand-made in a system zone; no local state files; no symlinks in the store',
  },
  transition: {
    severity: 'error',
    summary: 'added only to pending/, only lifecycle moves, no deletions, a move into active/ approved in a commit',
  },
  secrets: { severity: 'error', summary: 'no credentials in a learning or a system-zone file' },
  directives: {
    severity: 'error',
    summary:
      'no prompt-injection-like instructions unless a person accepted each by its fingerprint (add --allow-directives, a Learning-Directives-Allowed trailer)',
  },
  stale: { severity: 'warning', summary: 'an active learning whose evidence.paths changed since evidence.commit' },
  budget: {
    severity: 'warning',
    summary: "the summed descriptions of active learnings fit the agents' skill-listing budget",
  },
  rendered: {
    severity: 'warning',
    summary: 'a rendered skill in the tree matches the active learning it was rendered from',
  },
  tier: {
    severity: 'warning',
    summary: 'every pinned tier is here (fetched on first use) and readable, so no agent silently misses it',
  },
}

/**
 * Characters of active descriptions agents list. Claude Code lists skills' descriptions within a character budget
 * (SLASH_COMMAND_TOOL_CHAR_BUDGET, 15,000 by default); past it, descriptions are cut and agents miss learnings.
 */
export const LISTING_BUDGET_CHARS = 15_000

export interface Finding {
  rule: RuleId
  severity: Severity
  path: string
  /** 1-based; 1 when the finding is about the whole file. */
  line: number
  message: string
  /** A directive's fingerprint (core/directives.ts), what a `Learning-Directives-Allowed` trailer names to accept it. */
  fingerprint?: string
}

export function finding(
  rule: RuleId,
  path: string,
  line: number,
  message: string,
  severity: Severity = RULES[rule].severity,
): Finding {
  return { rule, severity, path, line: Math.max(1, line), message }
}

/** A file to check: its repository-relative path, git mode, and text (absent when it was skipped). */
export interface CheckFile {
  path: string
  mode: string
  text?: string
  /** Why the text was not read: binary, or larger than the limit. */
  skipped?: string
}

export interface ContentOptions {
  validator: SchemaValidator
  inZone: (path: string) => boolean
  secretsAllow?: readonly string[]
  /**
   * Whether to look for directives (pre-commit leaves them to the commit-msg hook, which sees the trailers). Those a
   * person accepted are taken out by acceptDirectives, once the trailers are read.
   */
  directives: boolean
  /** Frontmatter block → mapping (parseYamlMapping by default; the CI check puts a cache in front of it). */
  parseYaml?: (matter: string) => Record<string, unknown>
}

export interface ContentResult {
  findings: Finding[]
  learnings: Learning[]
}

/** The schema, zone, secrets and directives rules over a set of files. */
export function checkFiles(files: readonly CheckFile[], opts: ContentOptions): ContentResult {
  const findings: Finding[] = []
  const learnings: Learning[] = []
  for (const f of files) {
    const inStore = f.path.startsWith('.learnings/')
    const where = parseStorePath(f.path)
    if (isLocalStateFile(f.path)) {
      findings.push(
        finding(
          'zone',
          f.path,
          1,
          `${f.path} looks like a copy of git learn's local state (observations, usage events, its logs), which never leaves the machine: delete it (git rm --cached ${f.path} first if git has it)`,
        ),
      )
      continue
    }
    if (inStore) {
      if (f.mode === SYMLINK_MODE) {
        findings.push(
          finding(
            'zone',
            f.path,
            1,
            `${f.path} is a symbolic link; the store holds only regular files: replace it with the file itself (or remove it)`,
          ),
        )
        continue
      }
      if (!where) {
        if (!isStoreSupportFile(f.path))
          findings.push(
            finding(
              'zone',
              f.path,
              1,
              `${f.path} is not where learnings live: a learning is .learnings/{pending,active,archived}/<name>.md; propose it with \`git learn add --file ${f.path}\` and remove this copy`,
            ),
          )
        // The store's own files are screened for credentials too: a token in config.yaml (a tier's URL) is printed by
        // `tier list`, warnings and CI logs, and is committed for good.
        else if (f.text !== undefined) scanText(f, findings, { ...opts, directives: false })
        continue
      }
      if (f.text === undefined) {
        findings.push(
          finding(
            'schema',
            f.path,
            1,
            `${f.path} is not a learning: ${f.skipped ?? 'unreadable'}; a learning is UTF-8 markdown of at most 1 MB`,
          ),
        )
        continue
      }
      let learning: Learning
      try {
        learning = parseLearning(f.text, f.path, opts.parseYaml)
      } catch (err) {
        if (!(err instanceof LearningParseError)) throw err
        findings.push(
          finding(
            'schema',
            f.path,
            err.line ?? 1,
            `${err.reason}; fix the file (\`git learn add -h\` lists a learning's fields)`,
          ),
        )
        scanText(f, findings, opts)
        continue
      }
      learnings.push(learning)
      const { errors, warnings } = validateLearning(learning, opts.validator)
      for (const e of errors) findings.push(finding('schema', f.path, 1, e))
      for (const w of warnings) findings.push(finding('schema', f.path, 1, w, 'warning'))
      scanText(f, findings, opts, learning.name, learning.data)
      continue
    }
    if (opts.inZone(f.path)) {
      if (f.text === undefined) {
        findings.push(finding('zone', f.path, 1, `skipped ${f.path}: ${f.skipped ?? 'unreadable'}`, 'note'))
        continue
      }
      if (isLearningShaped(f.text) && !isRendered(f.text))
        findings.push(
          finding(
            'zone',
            f.path,
            1,
            `${f.path} is a learning (its frontmatter has source or evidence) inside a system zone, where agents obey it without review: propose it with \`git learn add --file ${f.path}\`, and let \`git learn render\` write the approved version here`,
          ),
        )
      scanText(f, findings, { ...opts, directives: false })
    }
  }
  return { findings, learnings }
}

/**
 * The secrets and (with `opts.directives`) directives of a file's text; of a learning (`data`, its frontmatter), also
 * of each value as YAML decodes it (core/agent-safety.ts): a `\x41KIA…` escape is what an agent reads.
 */
function scanText(
  f: CheckFile,
  findings: Finding[],
  opts: ContentOptions,
  name?: string,
  data?: Record<string, unknown>,
): void {
  const scan = scanForAgents(f.text ?? '', opts.secretsAllow ?? [], data, opts.directives)
  for (const s of scan.secrets)
    findings.push(
      finding(
        'secrets',
        f.path,
        s.line,
        `${s.description} (${s.rule}) ${s.decoded ? DECODED : `at column ${s.column}`}: ${s.masked}; remove it and rotate the credential (a reviewed false positive goes into secrets.allow as "${s.fingerprint}")`,
      ),
    )
  for (const d of scan.directives) findings.push(directiveFinding(f.path, name ?? '', d))
}

/**
 * The finding of a directive in the learning `name` at `path` (check and the commit-msg hook): what it is, its
 * fingerprint, and the trailer line that accepts exactly it.
 */
export function directiveFinding(path: string, name: string, d: DirectiveFinding): Finding {
  const what = `${d.description}${d.decoded ? ` (${DECODED})` : ''}`
  if (d.fingerprint === undefined)
    return finding('directives', path, d.line, `${what}; agents would read what was not screened: make it smaller`)
  return {
    ...finding(
      'directives',
      path,
      d.line,
      `${what}: "${d.excerpt}" (fingerprint ${d.fingerprint}); agents read learnings as instructions: rewrite it as a description, or, if it is meant, accept exactly this one with the line "${directivesAllowedLine(name, [d.fingerprint])}" in the commit's message (\`git learn add --allow-directives\` writes it for a new learning)`,
    ),
    fingerprint: d.fingerprint,
  }
}

/**
 * The findings less the directives a person accepted (`acceptances`: the trailers of the commit being made and of
 * HEAD's history; core/directives.ts directiveAcceptance decides). A learning whose directives only a trailer of an
 * earlier version accepts (its name alone, so anything added to it later would pass) gets a warning instead, with
 * the trailer line that ties the acceptance to what it holds now.
 */
export function acceptDirectives(findings: readonly Finding[], acceptances: DirectiveAcceptances): Finding[] {
  const out: Finding[] = []
  const byName = new Map<string, Finding[]>()
  for (const f of findings) {
    const name = f.rule === 'directives' ? parseStorePath(f.path)?.name : undefined
    const how = name === undefined ? undefined : directiveAcceptance(acceptances, name, f.fingerprint)
    if (how === 'name') byName.set(name as string, [...(byName.get(name as string) ?? []), f])
    if (!how) out.push(f)
  }
  for (const [name, accepted] of byName) {
    const first = accepted[0] as Finding
    const line = directivesAllowedLine(
      name,
      accepted.map((f) => f.fingerprint as string),
    )
    const lines = [...new Set(accepted.map((f) => f.line))].join(', ')
    out.push(
      finding(
        'directives',
        first.path,
        first.line,
        `${name}'s directives (line ${lines}) are accepted by its name alone, a Learning-Directives-Allowed trailer without fingerprints (from an earlier git-learn), so one added to it later would pass as well: read them, and if each is meant, tie the acceptance to them with a commit whose message carries the line "${line}" (\`git commit --allow-empty --only -m "learn: accept the directives of ${name}" -m "${line}"\`); from then on only those are accepted`,
        'warning',
      ),
    )
  }
  return out
}

/** Names used by more than one learning across the states; findings only for the paths in `report` (all when absent). */
export function checkUniqueNames(paths: readonly string[], report?: ReadonlySet<string>): Finding[] {
  const byName = new Map<string, string[]>()
  for (const p of paths) {
    const w = parseStorePath(p)
    if (!w) continue
    const list = byName.get(w.name) ?? []
    list.push(p)
    byName.set(w.name, list)
  }
  const out: Finding[] = []
  for (const [name, list] of byName) {
    if (list.length < 2) continue
    for (const p of list) {
      if (report && !report.has(p)) continue
      const others = list.filter((o) => o !== p)
      out.push(
        finding(
          'schema',
          p,
          1,
          `the name "${name}" is also used by ${others.join(', ')}; names are unique across pending, active and archived: rename one (file and name field), or archive the older one`,
        ),
      )
    }
  }
  return out
}

/** The listing-budget warning when the active learnings' descriptions add up to more than `budget` characters. */
export function checkBudget(learnings: readonly Learning[], budget = LISTING_BUDGET_CHARS): Finding[] {
  const active = learnings.filter((l) => l.state === 'active')
  const total = active.reduce((n, l) => n + (typeof l.data.description === 'string' ? l.data.description.length : 0), 0)
  if (total <= budget) return []
  return [
    finding(
      'budget',
      '.learnings/active',
      1,
      `the ${active.length} active learnings' descriptions add up to ${total} characters, over the ${budget}-character listing budget agents load (Claude Code's skill listing): shorten descriptions, or prune unused learnings (\`git learn prune\`)`,
    ),
  ]
}

/** A learning's evidence pin, when it has one: the commit and the paths it rests on. */
export function readEvidence(l: Learning): { commit: string; paths: string[] } | undefined {
  const e = l.data['evidence']
  if (!e || typeof e !== 'object') return undefined
  const commit = (e as Record<string, unknown>)['commit']
  const paths = (e as Record<string, unknown>)['paths']
  if (typeof commit !== 'string' || !isCommitId(commit) || !Array.isArray(paths)) return undefined
  const ps = paths.filter(
    (p): p is string => typeof p === 'string' && p.length > 0 && !p.startsWith('/') && !p.includes('${'),
  )
  return ps.length ? { commit, paths: ps } : undefined
}

/** The stale warning of one active learning, given the evidence paths that changed since its commit. */
export function staleFinding(l: Learning, commit: string, changed: readonly string[]): Finding | undefined {
  if (!changed.length) return undefined
  const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? ` and ${changed.length - 5} more` : '')
  return finding(
    'stale',
    l.path,
    1,
    `${l.name} rests on files changed since ${commit.slice(0, 12)}: ${shown}; re-verify it and update evidence.commit, or archive it (\`git learn prune\`)`,
  )
}

function stateOf(path: string): LearningState | undefined {
  return parseStorePath(path)?.state
}

/** Trailers a lifecycle move must carry, per target state. */
const BY_TOKENS: Record<LearningState, readonly string[]> = {
  active: [MOVES.approve.by],
  archived: [MOVES.reject.by, MOVES.prune.by, MOVES.supersede.by],
  pending: [MOVES.restore.by],
}

/** Whether the trailers record a reviewed move of `name` into `state` (its `*-by` trailer is one of that move's). */
function reviewedIn(events: readonly AuditEvent[], name: string, state: LearningState): boolean {
  return events.some(
    (e) => e.name === name && e.to === state && !!e.by && e.byRole !== null && BY_TOKENS[state].includes(e.byRole),
  )
}

/**
 * Whether recorded commits moved `name` from one state to another in steps the lifecycle allows, each with its
 * trailers and its `*-by`: a restore (archived → pending) and then an approve (pending → active) on one branch show as
 * archived → active from the merge base, or in one squashed commit, which no single command does. The events'
 * order is not relied on (a forge's squash message lists the branch's commits oldest first, git's SQUASH_MSG newest
 * first); each recorded step is used once.
 */
function movedInSteps(events: readonly AuditEvent[], name: string, from: LearningState, to: LearningState): boolean {
  // A step counts with the `*-by` of the command that makes it (Restored-by for archived → pending, Approved-by for
  // pending → active …), as each lifecycle commit records it.
  const made = (e: AuditEvent) =>
    Object.values(MOVES).some((m) => m.from === e.from && m.to === e.to && m.by === e.byRole)
  const steps = events.filter((e) => e.name === name && e.by && made(e))
  const used = new Set<number>()
  let state: LearningState = from
  while (state !== to) {
    const at = steps.findIndex(
      (e, k) => !used.has(k) && e.from === state && isAllowedMove(state, e.to as LearningState),
    )
    if (at < 0) return false
    used.add(at)
    state = (steps[at] as AuditEvent).to as LearningState
  }
  return true
}

/**
 * What the distinct-approver rule (`approval.distinct_approver`) reads beside the trailers being checked: whether it is
 * on, and who put a learning into pending/ by the record of the history (the `Proposed-by`/`Restored-by` of each commit
 * that added its pending file, else that commit's author), as `git learn approve` reads them.
 */
export interface ApprovalRecord {
  distinct: boolean
  proposers: (name: string) => readonly string[]
  /** Whether the clone is shallow and its history cut before the learning was proposed: a proposer may be missing. */
  cutShort?: (name: string) => boolean
}

/**
 * The finding when the newest approval of `name` in `events` was given by one of its proposers: approval is a second
 * person's review, and trailers are plain text anyone can write (a hand `git mv` with a hand-written `Approved-by`), so
 * the hooks and CI hold them to the rule `git learn approve` holds. The newest approval is the one that put the file
 * where it is; an earlier one (before a prune and a restore) was judged when it was made. Proposers are the history's
 * and those recorded in `events` themselves (a squash merge's folded add or restore).
 */
function selfApproval(
  events: readonly AuditEvent[],
  name: string,
  path: string,
  approval: ApprovalRecord | undefined,
): Finding | undefined {
  if (!approval?.distinct) return undefined
  const approver = events.find((e) => e.name === name && e.to === 'active' && e.byRole === MOVES.approve.by && e.by)?.by
  if (!approver) return undefined
  const recorded = events.filter((e) => e.name === name && e.to === 'pending' && e.by).map((e) => e.by as string)
  const proposer = [...approval.proposers(name), ...recorded].find((p) => identityKey(p) === identityKey(approver))
  if (proposer === undefined && approval.cutShort?.(name))
    return finding(
      'transition',
      path,
      1,
      `cannot tell who proposed ${name}, approved by ${approver}: this clone is shallow and its history stops after the learning was proposed, so approval.distinct_approver (a second person approves) cannot be checked. Fetch the rest of the history (\`git fetch --unshallow\`; in CI, actions/checkout with fetch-depth: 0), then run this again`,
    )
  if (proposer === undefined) return undefined
  return finding(
    'transition',
    path,
    1,
    `${name} is approved by ${approver}, who proposed it${proposer === approver ? '' : ` (as ${proposer}, the same e-mail)`} or restored it to pending/, which counts as proposing it: approval is a second person's review (approval.distinct_approver). Move it back (\`git mv ${path} ${learningPath('pending', name)}\`) and ask a teammate to run \`git learn approve ${name}\`; for solo use set approval.distinct_approver: false in .learnings/config.yaml`,
  )
}

/**
 * Whether the transition rule needs the range's commits (their trailers) to judge `changes`: a move, a deletion (one
 * half of a move git did not pair), an add anywhere but pending/. An edit in place and a proposal are judged from the
 * diff alone, so a shallow clone whose history is cut inside the range can still judge them; so is a change to a file
 * of the store that is no learning (`.gitkeep`, README.md), which the rule does not judge (checkTransitions).
 */
export function needsAuditTrail(changes: readonly DiffEntry[]): boolean {
  return changes.some((c) => {
    if (c.status === 'M' || c.status === 'T') return false
    const to = parseStorePath(c.path)
    const from = c.status === 'R' ? parseStorePath(c.oldPath ?? '') : undefined
    // A learning gone from where it was: a move, or a deletion.
    if (from !== undefined || (c.status === 'D' && to !== undefined)) return true
    // A learning that appears (an add, or a rename from a file that was none): only pending/ needs no approval.
    return c.status !== 'D' && to !== undefined && to.state !== 'pending'
  })
}

/**
 * The transition rule over the changes from the merge base to HEAD: added only to pending/, moves only as the
 * lifecycle allows (a delete and an add of the same name count as a move when git's rename detection missed it),
 * no deletions, and every move into active/ approved by a commit in the range (`events`, from its trailers), by
 * someone other than its proposers when `approval` says so.
 */
export function checkTransitions(
  changes: readonly DiffEntry[],
  events: readonly AuditEvent[],
  approval?: ApprovalRecord,
): Finding[] {
  const out: Finding[] = []
  const deleted = new Map<string, DiffEntry>()
  const added = new Map<string, DiffEntry>()
  const moves: { name: string; from: string; to: string; fromState: LearningState; toState: LearningState }[] = []
  for (const c of changes) {
    const to = parseStorePath(c.path)
    if (c.status === 'R') {
      const from = parseStorePath(c.oldPath ?? '')
      if (from && to)
        moves.push({ name: to.name, from: c.oldPath as string, to: c.path, fromState: from.state, toState: to.state })
      else if (from) deleted.set(from.name, { ...c, path: c.oldPath as string })
      else if (to) added.set(to.name, c)
      const renamed = renameFinding(c)
      if (renamed) out.push(renamed)
      continue
    }
    if (!to) continue
    if (c.status === 'D') deleted.set(to.name, c)
    else if (c.status === 'A' || c.status === 'C') added.set(to.name, c)
  }
  for (const [name, a] of [...added]) {
    const d = deleted.get(name)
    if (!d) continue
    moves.push({
      name,
      from: d.path,
      to: a.path,
      fromState: stateOf(d.path) as LearningState,
      toState: stateOf(a.path) as LearningState,
    })
    added.delete(name)
    deleted.delete(name)
  }
  for (const [name, a] of added) {
    const state = stateOf(a.path) as LearningState
    // Proposed and approved (or rejected) within the range: the net change is an add, the trailers show the path.
    if (state === 'active' && reviewedIn(events, name, state)) {
      const self = selfApproval(events, name, a.path, approval)
      if (self) out.push(self)
    }
    if (state === 'pending' || reviewedIn(events, name, state)) continue
    // Its proposal is in the range and its approval is not: the approval's message was dropped on the way.
    const proposed = events.some((e) => e.name === name && e.to === 'pending' && e.from === null)
    out.push(
      finding(
        'transition',
        a.path,
        1,
        proposed
          ? `${a.path} was added straight into ${state}/: the range proposes ${name} but no commit in it carries its ${state === 'active' ? 'approval' : 'move'} (${BY_TOKENS[state].join('/')}), as a rebase's \`fixup\` of that commit into the proposal (or a reword or squash that left its trailers out) leaves it: rebase again keeping them (\`squash\`, not \`fixup\`, in \`git rebase -i\`), or move it back to .learnings/pending/ and run \`git learn ${state === 'active' ? 'approve' : 'reject'} ${name}\``
          : `${a.path} was added straight into ${state}/: new learnings start in pending/ and reach ${state}/ through review: \`git learn add --file ${a.path}\` (to .learnings/pending/), then \`git learn approve\` (if a squash merge brought it in reviewed, the squash message left out the trailers its branch's commits carried: have squash merges keep the commit messages, docs/guards.md "CI: the pull request is the approval")`,
      ),
    )
  }
  for (const [, d] of deleted)
    out.push(
      finding(
        'transition',
        d.path,
        1,
        `${d.path} was deleted; learnings are never deleted: restore it (\`git checkout <base> -- ${d.path}\`) and archive it with \`git learn ${stateOf(d.path) === 'pending' ? `reject ${parseStorePath(d.path)?.name ?? '<name>'} --reason …` : 'prune'}\``,
      ),
    )
  for (const m of moves) {
    if (m.fromState === m.toState) continue
    if (!isAllowedMove(m.fromState, m.toState) && !movedInSteps(events, m.name, m.fromState, m.toState)) {
      out.push(
        finding(
          'transition',
          m.to,
          1,
          `${m.name} moved ${m.fromState} → ${m.toState}, which the lifecycle does not allow (pending → active|archived, active → archived, archived → pending): ${wayBack(m.name, m.fromState, m.toState)}`,
        ),
      )
      continue
    }
    if (m.toState === 'active') {
      const ok = events.some((e) => e.name === m.name && e.to === 'active' && e.byRole === MOVES.approve.by && e.by)
      const self = ok ? selfApproval(events, m.name, m.to, approval) : undefined
      if (self) out.push(self)
      if (!ok)
        out.push(
          finding(
            'transition',
            m.to,
            1,
            `${m.name} moved into active/ without an approving commit in the range (trailers "Learning: ${m.name}", "Learning-To: active", "Approved-by: …"): move it back and run \`git learn approve ${m.name}\``,
          ),
        )
    }
  }
  return out
}

/**
 * What to do instead of a move the lifecycle has no command for. Both come from `git revert` (which runs no commit
 * hook, so CI is where they are met): of an approval (active → pending) and of a prune (archived → active).
 */
function wayBack(name: string, from: LearningState, to: LearningState): string {
  const undo = 'take that commit out of the branch (`git rebase -i <base>` and drop it, or `git revert` the revert)'
  if (from === 'active' && to === 'pending')
    return `an approved learning leaves active/ by being archived, and a \`git revert\` of its approval does not do that: ${undo}, then retire it with \`git learn prune ${name} --reason "…" --yes\` (and \`git learn restore ${name}\` to have it reviewed again)`
  if (from === 'archived' && to === 'active')
    return `an archived learning comes back through review, and a \`git revert\` of its prune skips it: ${undo}, then \`git learn restore ${name}\` and have a teammate run \`git learn approve ${name}\``
  return 'move it back and use git learn approve, reject, prune or restore'
}

/**
 * A rename that changes a learning's name (a `git mv` between file names, in one state or across two): the name is
 * the learning's identity in its trail (Learning trailers, approvals, recall's records), so a new name is a new
 * learning. Read the same way by `check --base` and the commit-msg hook.
 */
function renameFinding(c: DiffEntry): Finding | undefined {
  const from = parseStorePath(c.oldPath ?? '')
  const to = parseStorePath(c.path)
  if (c.status !== 'R' || !from || !to || from.name === to.name) return undefined
  return finding(
    'transition',
    c.path,
    1,
    `${c.oldPath} was renamed to ${c.path}: a learning keeps its name through its life (its trail is under it). Undo it with \`git mv ${c.path} ${c.oldPath}\`; for a new name, propose it under that name (\`git learn add --file <copy>\`) and reject the old one (\`git learn reject ${from.name} --reason "renamed to ${to.name}"\`)`,
  )
}

/**
 * The commit-msg rule: each staged move or add into active/ or archived/ needs a trailer group naming it
 * (Learning, Learning-Action, Learning-From, Learning-To) and a `*-by` trailer of that move.
 */
export function checkCommitMessage(
  staged: readonly DiffEntry[],
  message: string,
  approval?: ApprovalRecord,
): Finding[] {
  const groups = parseLearningTrailers(message)
  const events = parseAuditTrail([{ commit: '', date: '', author: '', message }])
  const paragraphBy = new Set(
    groups
      .flat()
      .filter((t) => /-by$/.test(t.token))
      .map((t) => t.token),
  )
  const out: Finding[] = []
  for (const c of staged) {
    const renamed = renameFinding(c)
    if (renamed) {
      out.push(renamed)
      continue
    }
    const to = parseStorePath(c.path)
    if (!to) continue
    let fromState: LearningState | undefined
    if (c.status === 'R') fromState = stateOf(c.oldPath ?? '')
    else if (c.status === 'A' || c.status === 'C') {
      const deletedTwin = staged.find((d) => d.status === 'D' && parseStorePath(d.path)?.name === to.name)
      fromState = deletedTwin ? stateOf(deletedTwin.path) : undefined
    } else continue
    if (fromState === to.state) continue
    // A new proposal needs nothing; a move back into pending/ (a restore, or a `git revert` of an approval) is a move.
    if (!fromState && to.state === 'pending') continue
    // What would do it: a command that makes this move, or, for one the lifecycle has no command for (active →
    // pending, a revert of an approval), what to do instead.
    const how =
      fromState === 'active' && to.state === 'pending'
        ? `an active learning does not go back to pending/: archive it with \`git learn prune ${to.name} --reason "…" --yes\` and propose a new version`
        : `commit lifecycle moves with git learn (\`git learn ${to.state === 'active' ? 'approve' : to.state === 'pending' ? 'restore' : 'reject|prune'} ${to.name}\`)`
    const fix = `${how}; undo this one with \`git restore --staged ${c.path}${c.oldPath ? ` ${c.oldPath}` : ''}\` and move the file back`
    // A squash merge (a forge's, or `git merge --squash`) lands a branch that proposed and approved a learning as one
    // add into active/: its message carries the branch's trailers, and they are the review, as \`check --base\` reads them.
    if (!fromState && reviewedIn(events, to.name, to.state)) {
      const self = to.state === 'active' ? selfApproval(events, to.name, c.path, approval) : undefined
      if (self) out.push(self)
      continue
    }
    if (!fromState) {
      out.push(
        finding(
          'transition',
          c.path,
          1,
          `${c.path} is added straight into ${to.state}/: learnings start in pending/ (\`git learn add\`): ${fix}`,
        ),
      )
      continue
    }
    // A squash of a branch that restored and then approved it: each step is in the message with its trailers.
    if (!isAllowedMove(fromState, to.state) && movedInSteps(events, to.name, fromState, to.state)) {
      const self = to.state === 'active' ? selfApproval(events, to.name, c.path, approval) : undefined
      if (self) out.push(self)
      continue
    }
    if (!isAllowedMove(fromState, to.state)) {
      out.push(
        finding(
          'transition',
          c.path,
          1,
          `${to.name} moves ${fromState} → ${to.state}, which the lifecycle does not allow: ${fix}`,
        ),
      )
      continue
    }
    const g = groups.find((gr) => gr.some((t) => t.token === 'Learning' && t.value === to.name))
    const has = (token: string, value?: string) =>
      g?.some((t) => t.token === token && (value === undefined || t.value === value)) ?? false
    const byOk = BY_TOKENS[to.state].some((b) => has(b) || paragraphBy.has(b))
    const self = to.state === 'active' ? selfApproval(events, to.name, c.path, approval) : undefined
    if (self) out.push(self)
    if (!g || !has('Learning-Action') || !has('Learning-From', fromState) || !has('Learning-To', to.state) || !byOk)
      out.push(
        finding(
          'transition',
          c.path,
          1,
          `${to.name} moves ${fromState} → ${to.state} but the commit message lacks its trailers (Learning: ${to.name}, Learning-Action, Learning-From: ${fromState}, Learning-To: ${to.state}, ${BY_TOKENS[to.state].join('/')}): ${fix}`,
        ),
      )
  }
  return out
}

export interface CheckReport {
  ok: boolean
  findings: Finding[]
}

/** Sort findings (errors first, then by path and line) and decide: ok unless any error. */
export function buildReport(findings: readonly Finding[]): CheckReport {
  const rank: Record<Severity, number> = { error: 0, warning: 1, note: 2 }
  const sorted = [...findings].sort(
    (a, b) => rank[a.severity] - rank[b.severity] || a.path.localeCompare(b.path) || a.line - b.line,
  )
  return { ok: !sorted.some((f) => f.severity === 'error'), findings: sorted }
}

/** `--format text`: `path:line: severity [rule] message`. */
export function formatText(report: CheckReport): string {
  const lines = report.findings.map((f) => `${f.path}:${f.line}: ${f.severity} [${f.rule}] ${f.message}`)
  const errors = report.findings.filter((f) => f.severity === 'error').length
  const warnings = report.findings.filter((f) => f.severity === 'warning').length
  lines.push(
    report.ok
      ? `git learn check: ok${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`
      : `git learn check: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`,
  )
  return `${lines.join('\n')}\n`
}

const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
const escapeProp = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')

/** `--format github`: workflow commands that GitHub turns into annotations on the pull request's files. */
export function formatGithub(report: CheckReport): string {
  const kind: Record<Severity, string> = { error: 'error', warning: 'warning', note: 'notice' }
  return report.findings
    .map(
      (f) =>
        `::${kind[f.severity]} file=${escapeProp(f.path)},line=${f.line},title=${escapeProp(`git-learn ${f.rule}`)}::${escapeData(f.message)}\n`,
    )
    .join('')
}
