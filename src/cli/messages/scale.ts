/** Sentences of the lifecycle-at-scale commands: prune, evolve, export, import, tier, promote. */
import type { TierProblem } from '../../adapters/feed/tiers.js'
import type { TierRow } from '../../flows/tier.js'
import type { EvolvedCluster } from '../../flows/evolve.js'
import type { Promoted } from '../../flows/promote.js'
import type { MoveResult } from './lifecycle.js'
import { shownUrl } from '../../core/git-args.js'

const short = (c: string | null | undefined) => (c ? c.slice(0, 7) : '')
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

export interface PruneRow {
  name: string
  reason: string
  path: string
}

export function pruneReport(
  rows: readonly PruneRow[],
  pruned: readonly MoveResult[],
  o: {
    yes: boolean
    named: boolean
    settings: { after_days: number; min_matches: number }
    held?: readonly PruneRow[]
  },
): string {
  const held = o.held?.length ? heldBackNote(o.held) : ''
  if (!rows.length)
    return held
      ? `nothing to prune by the dates this clone holds.\n${held}`
      : `nothing to prune: every active learning was used in the last ${o.settings.after_days} days, matched at least ${o.settings.min_matches} times, and is superseded by none.\n`
  if (o.yes)
    return (
      `${pruned.map((p) => `pruned ${p.name}: .learnings/active/${p.name}.md → ${p.path} (commit ${short(p.commit)})`).join('\n')}\n` +
      `${plural(pruned.length, 'learning')} archived, one commit each; \`git learn restore <name>\` brings one back.\n${held}`
    )
  const lines = rows.map((r) => `  ${r.name}  — ${r.reason}`)
  const next = o.named
    ? `git learn prune ${rows.map((r) => r.name).join(' ')} --reason "…" --yes`
    : 'git learn prune --yes'
  return `${o.named ? 'would retire' : 'would prune'} ${plural(rows.length, 'active learning')} (nothing changed):\n${lines.join('\n')}\nRun \`${next}\` to archive them, one commit each.\n${held}`
}

/** The learnings a shallow clone cannot date (their approval is past the cut), with what their `created` date says. */
const heldBackNote = (held: readonly PruneRow[]) =>
  `held back: this shallow clone holds no approval of ${plural(held.length, 'learning')} that their \`created\` date alone would prune (they may have been approved since), so none of them is pruned:\n` +
  `${held.map((r) => `  ${r.name}  — ${r.reason}`).join('\n')}\n` +
  'Run `git fetch --unshallow` to read their approval dates, then `git learn prune` again.\n'

export const supersededNote = (skill: string, old: readonly string[], dryRun: boolean) =>
  `${dryRun ? 'would archive' : 'archived'} in the same commit, superseded by ${skill}: ${old.map((o) => `.learnings/active/${o}.md → .learnings/archived/${o}.md`).join(', ')}\n`

/** A cluster as the report shows it: the refusal as its sentence. */
export type EvolveRow = Omit<EvolvedCluster, 'refused'> & { refused: string | null }

export function evolveReport(rows: readonly EvolveRow[], o: { write: boolean; active: number }): string {
  if (!rows.length)
    return `nothing to cluster: no 3 or more of the ${plural(o.active, 'active learning')} share a domain, tags and similar triggers or text (skills and learnings a skill already supersedes are left out).\n`
  const lines = rows.map((r) => {
    const head = `${r.name}  ← ${r.members.join(', ')}${r.sharedTags.length ? `  [${r.sharedTags.join(', ')}]` : ''}`
    if (!o.write) return `  ${head}`
    if (r.refused) return `  ${head}\n    refused: ${r.refused.replace(/\n/g, '\n    ')}`
    return `  ${head}\n    added ${r.path} (commit ${short(r.commit)})`
  })
  const next = o.write
    ? 'Review each skill in a pull request; `git learn approve <skill>` archives the learnings it supersedes in the same commit.\n'
    : 'Run `git learn evolve --write` to add these drafts to .learnings/pending/ (one commit each).\n'
  return `${o.write ? 'drafted' : 'would draft'} ${plural(rows.length, 'skill')} from clusters of related learnings:\n${lines.join('\n')}\n${next}`
}

const STRIP_WORDS: Record<string, [string, string]> = {
  codeBlocks: ['code block', 'code blocks'],
  absolutePaths: ['absolute path', 'absolute paths'],
  sessionIds: ['session id', 'session ids'],
  emails: ['e-mail address', 'e-mail addresses'],
  timestamps: ['old timestamp', 'old timestamps'],
  secrets: ['secret', 'secrets'],
}

/** "stripped from x: 2 code blocks, 1 e-mail address" per learning that lost anything. */
export function strippedLines(rows: readonly { name: string; stripped: Partial<Record<string, number>> }[]): string {
  const lines = rows
    .map((r) => ({ name: r.name, kinds: Object.entries(r.stripped).filter(([, n]) => n) }))
    .filter((r) => r.kinds.length)
    .map(
      (r) =>
        `stripped from ${r.name}: ${r.kinds.map(([k, n]) => plural(n ?? 0, ...(STRIP_WORDS[k] ?? [k, k]))).join(', ')}`,
    )
  return lines.length ? `${lines.join('\n')}\n` : ''
}

export const exportReport = (count: number, out: string) =>
  `exported ${plural(count, 'learning')} to ${out}\nImport it elsewhere with \`git learn import ${out}\`; every entry lands in pending/ for review.\n`

export interface ImportRow {
  name: string
  action: 'added' | 'updated' | 'skipped' | 'proposed-update'
  path: string | null
  reason: string | null
}

/**
 * Progress of an import on stderr: on a terminal a bar redrawn in place (at most every 1%), piped a line of counts at
 * every tenth; nothing for a bundle of 100 entries or fewer.
 */
export function importProgress(origin: string, tty: boolean): (done: number, total: number) => string {
  let shown = 0
  return (done, total) => {
    if (total <= 100) return ''
    if (done === 0) return tty ? '' : `importing ${total} entries from ${origin}…\n`
    const step = tty ? Math.max(1, Math.floor(total / 100)) : Math.max(1, Math.ceil(total / 10))
    if (done !== total && done - shown < step) return ''
    shown = done
    if (!tty) return `importing: ${done}/${total}\n`
    const width = 30
    const fill = Math.round((done / total) * width)
    return `\r[${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${done}/${total}${done === total ? '\n' : ''}`
  }
}

/** Warnings of an import, summed up by kind: one line each, with a count and one example. */
export function importWarnings(summary: readonly { kind: string; count: number; example: string }[]): string {
  return summary
    .map((w) =>
      w.count === 1 ? `warning: ${w.example}\n` : `warning: ${w.count} entries: ${w.kind} (for example ${w.example})\n`,
    )
    .join('')
}

export function importReport(
  origin: string,
  rows: readonly ImportRow[],
  commit: string | null,
  dryRun: boolean,
): string {
  if (!rows.length) return `${origin} holds no learnings; nothing to import.\n`
  const verb = (a: ImportRow['action']) =>
    dryRun
      ? { added: 'would add', updated: 'would update', skipped: 'would skip', 'proposed-update': 'proposed update' }[a]
      : a
  // A line per entry up to 50 entries; beyond, counts per action and the skip reasons summed up by kind.
  const lines =
    rows.length <= 50
      ? rows.map(
          (r) =>
            `  ${verb(r.action).padEnd(15)} ${r.name}${r.path ? ` → ${r.path}` : ''}${r.reason ? `\n                  ${r.reason}` : ''}`,
        )
      : summarizeRows(rows, verb)
  const written = rows.filter((r) => r.action === 'added' || r.action === 'updated').length
  const tail = dryRun
    ? 'dry run: nothing was written.\n'
    : written
      ? `${plural(written, 'learning')} in .learnings/pending/ (commit ${short(commit)}); review them and \`git learn approve <name>\` what holds.\n`
      : 'nothing was written.\n'
  return `import from ${origin}:\n${lines.join('\n')}\n${tail}`
}

function summarizeRows(rows: readonly ImportRow[], verb: (a: ImportRow['action']) => string): string[] {
  const byAction = new Map<ImportRow['action'], number>()
  const reasons = new Map<string, { count: number; example: string }>()
  for (const r of rows) {
    byAction.set(r.action, (byAction.get(r.action) ?? 0) + 1)
    if (r.action === 'skipped' || r.action === 'proposed-update') {
      const kind = (r.reason ?? '')
        .replace(/\([^)]*\)/g, '')
        .replace(/:.*$/s, '')
        .slice(0, 80)
      const k = reasons.get(kind)
      if (k) k.count++
      else reasons.set(kind, { count: 1, example: r.name })
    }
  }
  return [
    ...[...byAction].map(([a, n]) => `  ${verb(a).padEnd(15)} ${n}`),
    ...[...reasons].map(([kind, k]) => `    ${k.count} × ${kind} (e.g. ${k.example})`),
    '  (`--json` lists every entry)',
  ]
}

export function tierAdded(
  t: { name: string; url: string; ref?: string | undefined; commit?: string | undefined; weight?: number | undefined },
  count: number,
  configCommit: string,
): string {
  return (
    `added tier ${t.name}: ${shownUrl(t.url)} ${t.ref ?? 'main'} → refs/learn/tiers/${t.name} at ${short(t.commit)} (${plural(count, 'active learning')}, weight ${t.weight ?? 0.9})\n` +
    `pinned in .learnings/config.yaml (commit ${short(configCommit)}); search, context and recall now include it.\n` +
    `Check it any time with \`git learn tier verify\`; move the pin with \`git learn tier update ${t.name}\`.\n`
  )
}

export function tierList(rows: readonly TierRow[]): string {
  if (!rows.length) return 'no tiers configured. Add one with `git learn tier add <name> <git-url> [--ref main]`.\n'
  return `${rows
    .map(
      (r) =>
        `${r.name}  ${shownUrl(r.url)}  ${r.ref}  ${r.commit ? r.commit.slice(0, 12) : '(not pinned)'}  weight ${r.weight}  ${r.learnings === null ? 'objects missing: run `git learn tier update ' + r.name + '`' : plural(r.learnings, 'active learning')}`,
    )
    .join('\n')}\n`
}

export function tierRemoved(r: {
  name: string
  pin: string | null
  configCommit: string
  refDeleted: boolean
}): string {
  return (
    `removed tier ${r.name}${r.pin ? ` (pinned at ${short(r.pin)})` : ''} from .learnings/config.yaml (commit ${short(r.configCommit)}); ` +
    `search, context and recall no longer include it.\n` +
    (r.refDeleted ? `deleted refs/learn/tiers/${r.name}. ` : '') +
    `Its URL and pin stay in that commit: \`git show ${short(r.configCommit)}\` to see them, \`git learn tier add\` to bring it back.\n`
  )
}

export function tierUpdated(
  name: string,
  from: string | undefined,
  to: string,
  diff: { added: string[]; removed: string[]; changed: string[] } | null,
  commit: string | null,
): string {
  if (from === to) return `tier ${name} is up to date at ${short(to)}; nothing to commit.\n`
  const list = (label: string, xs: readonly string[]) =>
    xs.length ? `  ${label} (${xs.length}): ${xs.join(', ')}\n` : ''
  const changes = diff
    ? list('added', diff.added) + list('removed', diff.removed) + list('changed', diff.changed) ||
      '  no learning changed under .learnings/active/\n'
    : '  (the old pinned commit is not in this repository, so the changes cannot be listed)\n'
  return `tier ${name}: ${short(from) || '(none)'} → ${short(to)}\n${changes}committed the new pin in .learnings/config.yaml (commit ${short(commit)}); it is reviewed like any change.\n`
}

/** A tier URL with a credential in it, refused by `tier add` or `tier update` before anything was fetched or written. */
export const tierUrlCredential = (tier: string, url: string, inConfig: boolean, findings: string) =>
  `the URL of tier ${tier} (${url}) carries a credential, and .learnings/config.yaml is committed and shared; ` +
  `nothing was fetched or changed:\n${findings}\n` +
  (inConfig
    ? `Take it out of the tier's url in .learnings/config.yaml, then run \`git learn tier update ${tier}\` again. `
    : '') +
  `Give git the URL without it and the credential another way: a credential helper for https (your platform's, or ` +
  `\`git config --global credential.helper store\`; in CI, the checkout's token), or an SSH key with an ssh:// or ` +
  `git@host: URL.`

/** One reason a tier fails `git learn tier verify`. */
export function tierVerifyProblem(name: string, p: TierProblem): string {
  switch (p.kind) {
    case 'no-pin':
      return `no commit is pinned in .learnings/config.yaml; run \`git learn tier update ${name}\``
    case 'no-ref':
      return `${p.ref} does not exist and could not be made at the pin (the pinned commit could not be fetched, or git could not write the ref): run \`git learn tier verify ${name}\` again once the tier's URL answers (\`git learn tier update ${name}\` would pin another commit)`
    case 'ref-moved':
      return `${p.ref} points at ${p.at.slice(0, 12)}, not the pinned ${p.pin.slice(0, 12)}: the ref was moved outside \`git learn tier update\`. Look at what it points at (\`git log -1 ${p.at.slice(0, 12)}\`), then put it back at the pin: \`git update-ref ${p.ref} ${p.pin}\``
    case 'pin-missing':
      return `the pinned commit ${p.pin.slice(0, 12)} is missing from this repository; fetching it from ${p.url} failed: ${p.fetch}`
    case 'object-missing':
      return `object ${p.oid.slice(0, 12)} (${p.path}) is missing`
    case 'object-tampered':
      return `object ${p.oid.slice(0, 12)} (${p.path}) does not match its hash: the object store was tampered with`
    case 'fsck':
      return `git fsck found problems in the tier's objects: ${p.detail}`
  }
}

export function tierVerified(
  results: readonly { name: string; commit: string | null; ok: boolean; problems: string[] }[],
): string {
  if (!results.length) return 'no tiers configured; nothing to verify.\n'
  return `${results
    .map((r) =>
      r.ok
        ? `ok     ${r.name} at ${short(r.commit)}`
        : `ERROR  ${r.name}:\n${r.problems.map((p) => `         ${p}`).join('\n')}`,
    )
    .join(
      '\n',
    )}\n${results.every((r) => r.ok) ? '' : 'A tier that fails verification is not what was reviewed: find out who moved it before trusting its learnings.\n'}`
}

export const promoted = (r: Promoted) =>
  `pushed ${r.name} to ${shownUrl(r.url)} as branch ${r.branch} (commit ${short(r.commit)}): it adds ${r.path} on top of tier ${r.tier}'s pinned commit.\n` +
  `Next: open a pull request from ${r.branch} in the tier repository; its reviewers approve it there.\n`
