/** Sentences of the feeding commands: search, context, recall, feedback, status, render, eval. */
import { directivesAllowedLine } from '../../core/directive-trailer.js'
import type { EvalReport, RecallFigures, SearchFigures } from '../../core/eval.js'

export interface SearchRow {
  name: string
  tier: string
  type: string
  state: string
  score: number
  path: string
  description: string
}

const cut = (s: string, n: number) => {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > n ? `${t.slice(0, n - 1)}…` : t
}

/** Files named one by one before the rest are counted by kind (a broken store must not bury a command's output). */
export const PROBLEMS_LISTED = 5

/** A tier's problem (`<tier>:<path>` or its ref): `git learn check` reads the project's store, not a tier's. */
const fromTier = (path: string) => path.startsWith('refs/') || /^[^/:]+:/.test(path)

/**
 * Warnings for files that could not be read as learnings, on stderr: the first PROBLEMS_LISTED one line each, the
 * rest in one line counted by kind (what a reason says before its first colon or semicolon).
 */
export function warnProblems(problems: readonly { path: string; reason: string }[]): string {
  const listed = problems
    .slice(0, PROBLEMS_LISTED)
    .map(
      (p) =>
        `warning: ${p.path}: ${p.reason} (${fromTier(p.path) ? 'skipped' : 'skipped; `git learn check` explains'})\n`,
    )
  const rest = problems.slice(PROBLEMS_LISTED)
  if (!rest.length) return listed.join('')
  const kinds = new Map<string, number>()
  for (const p of rest) {
    const kind = cut(p.reason.split(/[:;]/)[0] ?? p.reason, 48)
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  }
  const counted = [...kinds]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ')
  return `${listed.join('')}warning: ${rest.length} more file${rest.length === 1 ? '' : 's'} skipped (${counted}); \`git learn check\` lists each\n`
}

export function searchResults(rows: readonly SearchRow[], state: string): string {
  if (!rows.length)
    return `no ${state === 'all' ? '' : `${state} `}learning matches.\n${state === 'active' ? 'Try `--state all`, or fewer words.\n' : ''}`
  const wn = Math.max(...rows.map((r) => r.name.length))
  const lines = rows.map((r) => {
    const tier = r.tier === 'project' ? '' : ` [${r.tier}]`
    return `${r.score.toFixed(2).padStart(7)}  ${r.name.padEnd(wn)}  ${r.type}${tier}${r.state === 'active' ? '' : ` (${r.state})`}  ${cut(r.description, 80)}`
  })
  return `${lines.join('\n')}\nRead one with \`git learn show <name>\`.\n`
}

export function feedbackDone(name: string, kind: string, before: number, after: number): string {
  return `recorded: ${name} was ${kind}. Effective confidence ${before.toFixed(2)} → ${after.toFixed(2)}.\n`
}

/** feedback whose event could not be written (a read-only or full state directory): nothing changed. */
export function feedbackNotRecorded(name: string, kind: string, confidence: number): string {
  return `not recorded: ${name} was ${kind}. Effective confidence stays ${confidence.toFixed(2)}.\n`
}

export function recallContext(
  items: readonly { name: string; tier?: string; fix: string; description: string }[],
): string {
  return items
    .map(
      (i) =>
        `git-learn: ${i.name}${i.tier && i.tier !== 'project' ? ` [tier ${i.tier}: reviewed in that repository, not here]` : ''} — ${cut(i.fix || i.description, 240)} (git learn show ${i.name})`,
    )
    .join('\n')
}

export interface StatusView {
  counts: { pending: number; active: number; archived: number }
  tiers: Record<string, { pending: number; active: number; archived: number }>
  domains: {
    domain: string
    learnings: {
      name: string
      tier: string
      confidence: number
      matches: number
      successes?: number
      failures?: number
      success_rate?: number | null
      lastUsed: string | null
    }[]
  }[]
  stale: { name: string; paths: string[] }[]
  prune: { name: string; reason: string }[]
  pending: { name: string; description: string }[]
}

/** The dashboard: at most about 60 lines unless `all`. */
export function statusText(s: StatusView, opts: { all: boolean; bar: (v: number) => string }): string {
  const lines: string[] = []
  const c = s.counts
  lines.push(`learnings: ${c.active} active · ${c.pending} pending · ${c.archived} archived`)
  const tierNames = Object.keys(s.tiers).filter((t) => t !== 'project')
  if (tierNames.length)
    lines.push(
      `tiers: ${Object.keys(s.tiers)
        .map((t) => `${t} ${s.tiers[t]?.active ?? 0} active`)
        .join(' · ')}`,
    )
  const cap = (n: number) => (opts.all ? Infinity : n)
  let hidden = false
  if (s.domains.length) {
    lines.push('', 'active, by domain (effective confidence · recall matches · fixes that worked · last use):')
    const budget = cap(32)
    let used = 0
    for (const d of s.domains) {
      lines.push(`  ${d.domain} (${d.learnings.length})`)
      const room = opts.all
        ? d.learnings.length
        : Math.max(2, Math.min(d.learnings.length, Math.floor(budget / s.domains.length), budget - used))
      const wn = Math.min(40, Math.max(...d.learnings.map((l) => l.name.length)))
      for (const l of d.learnings.slice(0, room)) {
        const tier = l.tier === 'project' ? '' : ` [${l.tier}]`
        const rate =
          l.success_rate === null || l.success_rate === undefined
            ? ''
            : `  ${Math.round(l.success_rate * 100)}% worked (${l.successes} of ${(l.successes ?? 0) + (l.failures ?? 0)})`
        lines.push(
          `    ${cut(l.name, 40).padEnd(wn)}  ${opts.bar(l.confidence)} ${l.confidence.toFixed(2)}  ${String(l.matches).padStart(3)} match${l.matches === 1 ? ' ' : 'es'}${rate}  ${l.lastUsed ? `last ${l.lastUsed.slice(0, 10)}` : 'never used'}${tier}`,
        )
        used++
      }
      if (d.learnings.length > room) {
        lines.push(`    … ${d.learnings.length - room} more`)
        hidden = true
      }
    }
  }
  const section = (title: string, rows: string[], max: number) => {
    if (!rows.length) return
    lines.push('', title)
    const n = opts.all ? rows.length : Math.min(rows.length, max)
    lines.push(...rows.slice(0, n).map((r) => `  ${r}`))
    if (rows.length > n) {
      lines.push(`  … ${rows.length - n} more`)
      hidden = true
    }
  }
  section(
    'stale (evidence.paths changed since evidence.commit; review them):',
    s.stale.map((x) => `${x.name}: ${x.paths.slice(0, 3).join(', ')}${x.paths.length > 3 ? ', …' : ''}`),
    5,
  )
  section(
    // status reads no history (it is on hook paths): the preview counts from `created`, and says so.
    'prune candidates by `created` date (`git learn prune` counts from the approvals; run it to review):',
    s.prune.map((x) => `${x.name}: ${x.reason}`),
    5,
  )
  section(
    'pending review (`git learn approve <name>` or `git learn reject <name> --reason …`):',
    s.pending.map((x) => `${x.name}: ${cut(x.description, 70)}`),
    5,
  )
  if (hidden) lines.push('', 'More with `git learn status --all` or `--json`.')
  return `${lines.join('\n')}\n`
}

export const renderLeftAlone = (path: string) =>
  `${path} was not written by git learn here (or was edited since); left alone (move that file, or delete it and render again)`

/**
 * render kept a learning out because the feed withholds it from agents; `details` are check's findings, masked,
 * `fingerprints` those of its unaccepted directives.
 */
export const renderWithheld = (
  path: string,
  reason: string,
  details: readonly string[],
  fingerprints: readonly string[],
  name: string,
) =>
  `${path} was not rendered (and a file rendered from it before is removed): ${reason.replace(/; run `git learn check` for the finding$/, '')}: ${details.join('; ')}; fix the file and commit${fingerprints.length ? `, or if the directives are meant, accept exactly these with a commit whose message carries the line "${directivesAllowedLine(name, fingerprints)}"` : ''}, or run \`git learn check\``

/** AGENTS.md or CLAUDE.md holds our markers out of balance: render will not guess which text is whose. */
export const renderUnbalanced = (file: string) =>
  `${file} has its <!-- git-learn:begin --> and <!-- git-learn:end --> markers out of balance (a second begin, an end before the begin, or a begin with no end); left alone: keep one pair around the git-learn section (or delete both markers and what is between them) and run \`git learn render\` again`

export const renderOverBudget = (chars: number, budget: number) =>
  `the rendered skills' descriptions sum to ${chars} characters, over the ${budget}-character listing budget: agents will see them cut; shorten descriptions or prune`

export function renderReport(
  r: { written: string[]; removed: string[]; unchanged: string[]; skipped: string[] },
  dryRun: boolean,
): string {
  const verb = dryRun ? 'would write' : 'wrote'
  const lines = [
    ...r.written.map((p) => `${verb} ${p}`),
    ...r.removed.map(
      (p) =>
        `${dryRun ? 'would remove' : 'removed'} ${p} (its learning is no longer active or is withheld from agents, or its target is no longer rendered)`,
    ),
  ]
  const alone = r.skipped.length ? `, ${r.skipped.length} left alone` : ''
  lines.push(
    dryRun
      ? `${r.written.length} to write, ${r.removed.length} to remove, ${r.unchanged.length} unchanged${alone} (dry run: nothing written).`
      : `${r.written.length} written, ${r.removed.length} removed, ${r.unchanged.length} unchanged${alone}.`,
  )
  if (!dryRun && (r.written.length || r.removed.length))
    lines.push('Commit them with the learnings, or add them to .gitignore if each clone renders its own.')
  return `${lines.join('\n')}\n`
}

export function agentReport(a: {
  settings: string
  hooksAdded: string[]
  hooksUpdated: string[]
  hooksRemoved?: string[]
  commandsWritten: string[]
  commandsKept: string[]
}): string {
  const removed = a.hooksRemoved ?? []
  const lines = [
    ...(a.hooksAdded.length
      ? [`added to ${a.settings} (the rest of it unchanged):\n${a.hooksAdded.map((h) => `  ${h}`).join('\n')}`]
      : []),
    ...(a.hooksUpdated.length
      ? [
          `updated in ${a.settings} (they now run the project's own git-learn, or nothing without it):\n${a.hooksUpdated.map((h) => `  ${h}`).join('\n')}`,
        ]
      : []),
    ...(removed.length
      ? [
          `removed from ${a.settings} (transcript capture records these calls now):\n${removed.map((h) => `  ${h}`).join('\n')}`,
        ]
      : []),
    ...(a.hooksAdded.length || a.hooksUpdated.length || removed.length
      ? []
      : [`${a.settings} already has the git learn hooks; unchanged.`]),
    ...a.commandsWritten.map((c) => `wrote ${c}`),
    ...a.commandsKept.map((c) => `kept ${c} (it exists; delete it to get the shipped one)`),
    "Commit .claude/ so every teammate's agent gets the learnings.",
  ].filter(Boolean)
  return `${lines.join('\n')}\n`
}

/** `eval --learnings <dir>` where the folder holds no learning file: scoring nothing would read as 0 % found. */
export const noLearningsInFolder = (dir: string) =>
  `the learnings folder "${dir}" holds no learning (*.md besides README.md), so there is nothing to evaluate: give --learnings the folder that holds the learning files themselves`

export function evalReport(r: EvalReport & { contextTokens: number }): string {
  // A figure over no query is n/a (null in --json): it is left out.
  const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`)
  const recall = (x: RecallFigures | undefined) =>
    x
      ? ` · recall: ${[x.failures ? `right fix ${pct(x.rightFix)} of ${x.failures}` : '', x.unrelated ? `silent ${pct(x.silence)} of ${x.unrelated}` : ''].filter(Boolean).join(', ')}`
      : ''
  const count = (x: { queries: number; none: number }) =>
    `${x.queries} ${x.queries === 1 ? 'query' : 'queries'}${x.none ? ` (${x.none} more expect none)` : ''}`
  const search = (x: SearchFigures) => (x.queries ? ` · top-1 ${pct(x.top1)} · MRR ${x.mrr?.toFixed(3)}` : '')
  const lines = [
    `${count(r)}${r.queries ? `: top-1 ${pct(r.top1)} · precision@${r.k} ${pct(r.precisionAtK)} · hit@${r.k} ${pct(r.hitAtK)} · MRR ${r.mrr?.toFixed(3)}` : ''}`,
    ...(r.recall ? [`recall${recall(r.recall).slice(' · recall'.length)}`] : []),
    ...Object.entries(r.forms ?? {}).map(([form, f]) => `  ${form}: ${count(f)}${search(f)}${recall(f.recall)}`),
    `context injects about ${r.contextTokens} tokens (characters / 4)`,
    ...r.misses.map(
      (m) =>
        `miss: "${cut(m.query, 60)}" expected ${m.expect.join(' or ')}, got ${m.got ?? 'nothing'}${m.rank ? ` (expected at rank ${m.rank})` : ' (expected not in the results)'}`,
    ),
    ...(r.recallMisses ?? []).map(
      (m) =>
        `recall miss: "${cut(m.query, 60)}" expected ${m.expect.length ? m.expect.join(' or ') : 'silence'}, got ${m.got ?? 'silence'}`,
    ),
  ]
  return `${lines.join('\n')}\n`
}

/** render left out an active learning whose name or frontmatter is not valid. */
export function renderSkippedInvalid(path: string, reason: string): string {
  return `${path} was not rendered: ${reason}; fix it (\`git learn check\` shows every problem)`
}

export function suggestSkillReport(
  name: string,
  current: string | undefined,
  s: { ranked: { skill: string; score: number }[]; best?: { skill: string; score: number } },
): string {
  if (!s.ranked.length) return `no hand-written skills under .claude/skills/ to fold ${name} into.\n`
  const head = s.best
    ? `${name} fits the skill ${s.best.skill} (score ${s.best.score.toFixed(2)}): set \`skill: ${s.best.skill}\` in its frontmatter if you agree, then \`git learn render\`.`
    : `${name}: no clear match among the skills (best ${s.ranked[0]?.skill} at ${s.ranked[0]?.score.toFixed(2)}); leave it a skill of its own, or pick one yourself.`
  const rows = s.ranked.slice(0, 5).map((r) => `  ${r.score.toFixed(2)}  ${r.skill}`)
  return `${[head, ...(current ? [`(it names skill: ${current} now)`] : []), ...rows].join('\n')}\n`
}

export const renderNoSuchSkill = (path: string, skill: string) =>
  `${path} names skill: ${skill}, but .claude/skills/${skill}/SKILL.md is not a hand-written skill here: rendered as a skill of its own (fix the name, or \`git learn suggest-skill\`)`

/** A local state file could not be written (read-only or full): the command goes on without it. */
export const stateNotWritten = (file: string, code: string) =>
  `warning: could not write ${file} (${code}): the event was not recorded. Free space or make the directory writable, then run the command again to record it.\n`

/**
 * `check`'s stale finding and status's warning when git could not read the trees of the evidence commits (a partial
 * clone whose remote did not answer): nothing was judged, which is not "nothing is stale".
 */
export const staleUnread = (reason: string) =>
  `stale not checked: git could not read the trees of evidence.commit (${reason})${
    /promisor remote/.test(reason)
      ? '; this partial clone fetches them from its remote, which did not answer: run again when `git fetch` reaches it'
      : ''
  }`

/** status went on without the usage counts: the usage log could not be read. */
export const usageUnread = (err: unknown) =>
  `warning: the usage counts are left out: learn/events.jsonl could not be read (${(err as Error)?.message ?? String(err)}); make it a file you can read and write (\`ls -l\` it: a \`sudo\` run may own it)\n`

/** hooks.log: an agent hook answered, but the usage log could not be read or written (the answer went out). */
export const usageNotRecorded = (hook: 'recall' | 'context', err: unknown) =>
  `${hook === 'recall' ? 'the recalled fixes were given but not recorded in learn/events.jsonl' : 'the context was given without the usage counts of learn/events.jsonl'} (${(err as Error)?.message ?? String(err)}); make that file readable and writable by you (\`ls -l\` it: a \`sudo\` run may own it)`

/** The context's line for a tier it could not read (its name is config.yaml's, checked: lower-case words and dashes). */
export const tierMissing = (name: string) =>
  `\ngit-learn: tier ${name} is missing from this context; a person can see why with \`git learn tier verify ${name}\`.`
