/**
 * A reviewer's view of a pull request, as markdown for GitHub's job summary (`$GITHUB_STEP_SUMMARY`): each learning
 * the pull request adds, moves or edits, with what a reviewer needs to approve it in one screen — type, trigger,
 * gates, near-duplicates (name and a short diff), secrets (masked) and stale evidence.
 */
import type { GateResult } from './gates.js'
import { redactSecrets } from './secrets.js'

export interface ReviewItem {
  name: string
  path: string
  /** "added to pending", "pending → active", "edited in active". */
  change: string
  type: string
  trigger: string | null
  gates: readonly GateResult[]
  duplicates: readonly { name: string; similarity: number; diff: string }[]
  /** The secrets findings' messages (values masked by the scanner). */
  secrets: readonly string[]
  stale: string | null
}

/** Markdown text is data here: no HTML, no links, no table breakers, one line, bounded. */
const cell = (s: string, max = 200) => {
  const one = redactSecrets(s)
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  const cut = one.length > max ? `${one.slice(0, max - 1)}…` : one
  return cut.replace(/[\\`*_[\]<>|#!~]/g, (c) => `\\${c}`)
}

/** The fenced block of a diff, with a fence longer than any run of backticks inside it. */
function fenced(raw: string, lang: string): string {
  const lines = redactSecrets(raw)
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '?')
    .split('\n')
  const text =
    lines.length > 40 ? [...lines.slice(0, 40), `… ${lines.length - 40} more lines`].join('\n') : lines.join('\n')
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = '`'.repeat(longest + 1)
  return `${fence}${lang}\n${text.replace(/\n$/, '')}\n${fence}`
}

const GATE_MARK: Record<string, string> = { pass: '✅', fail: '❌', 'n/a': '—' }

export function buildReviewSummary(items: readonly ReviewItem[], base: string): string {
  const out = [
    `## git-learn: ${items.length} learning${items.length === 1 ? '' : 's'} in this pull request (since ${cell(base, 80)})`,
    '',
  ]
  if (!items.length) return `${out.join('\n')}No change under .learnings/.\n`
  out.push(
    '| learning | change | type | trigger | gates | duplicates | secrets | stale |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  )
  for (const i of items) {
    const gates = i.gates.map((g) => `${g.gate} ${GATE_MARK[g.outcome] ?? g.outcome}`).join(' ')
    const dups = i.duplicates.map((d) => `${cell(d.name, 64)} (${Math.round(d.similarity * 100)}%)`).join(', ')
    out.push(
      `| ${cell(i.name, 64)} | ${cell(i.change, 40)} | ${cell(i.type, 20)} | ${cell(i.trigger ?? '—', 120)} | ${gates || '—'} | ${dups || 'none'} | ${i.secrets.length ? `❌ ${i.secrets.length}` : 'none'} | ${i.stale ? '⚠️' : '—'} |`,
    )
  }
  for (const i of items) {
    const notes = [
      ...i.gates.filter((g) => g.outcome === 'fail').map((g) => `- gate ${g.gate}: ${cell(g.reason, 300)}`),
      ...i.secrets.map((s) => `- secret: ${cell(s, 300)}`),
      ...(i.stale ? [`- stale: ${cell(i.stale, 300)}`] : []),
    ]
    if (!notes.length && !i.duplicates.length) continue
    out.push('', `### ${cell(i.name, 64)}`, '', ...notes)
    for (const d of i.duplicates)
      out.push('', `Near ${cell(d.name, 64)} (${Math.round(d.similarity * 100)}% similar):`, '', fenced(d.diff, 'diff'))
  }
  return `${out.join('\n')}\n`
}
