/** Sentences of `git learn retro`. */
import type { RetroCandidate } from '../../core/retro/detectors.js'

export interface RetroReport {
  candidates: readonly RetroCandidate[]
  records: number
  skipped_lines: number
  files: number
}

const clip = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

function evidenceLines(c: RetroCandidate): string[] {
  const e = c.evidence
  const out: string[] = []
  const show = (label: string, v: unknown) => {
    if (v === undefined || v === null || v === '') return
    out.push(`    ${label}: ${clip(Array.isArray(v) ? v.join(', ') : String(v))}`)
  }
  show('command', e['command'] ?? e['call'])
  show('edited', e['edited_paths'])
  show('verified by', e['verification'])
  show('steps', e['steps'] ? (e['steps'] as string[]).join(' → ') : undefined)
  show('touched', e['targets'])
  show('after', e['after_command'] ?? e['after'])
  show('correction', e['correction'])
  show('sessions', e.sessions)
  return out
}

export function retroReport(r: RetroReport): string {
  const head = `read ${r.records} observation(s) from ${r.files} file(s)${r.skipped_lines ? `; skipped ${r.skipped_lines} corrupt line(s)` : ''}\n`
  if (!r.candidates.length) return `${head}no candidates: nothing repeated often enough to suggest a learning.\n`
  const blocks = r.candidates.map((c) =>
    [
      `${c.kind}  ${c.name}  (${c.type}, seen ${c.evidence.count}×)`,
      `    trigger: ${clip(c.trigger)}`,
      `    ${clip(c.description, 300)}`,
      ...evidenceLines(c),
    ].join('\n'),
  )
  return `${head}${r.candidates.length} candidate(s):\n\n${blocks.join('\n\n')}\n\nNext: judge them; write the good ones with \`git learn add\`, or propose all with \`git learn retro --write\` (low confidence, into .learnings/pending/).\n`
}

export interface RetroWriteReport {
  written: readonly { name: string; path: string }[]
  refused: readonly { name: string; reason: string }[]
  /** Candidates left out because another candidate of the run has their name or (nearly) their text. */
  skipped?: readonly { name: string; reason: string }[]
  commit: string | null
}

export function retroWritten(r: RetroWriteReport): string {
  const lines: string[] = []
  if (r.written.length)
    lines.push(
      `proposed ${r.written.length} learning(s) in one commit ${r.commit ? r.commit.slice(0, 7) : ''}:`,
      ...r.written.map((w) => `  ${w.path}`),
    )
  else lines.push('no learning was written.')
  if (r.refused.length)
    lines.push(
      `refused ${r.refused.length}:`,
      ...r.refused.map((x) => `  ${x.name}: ${clip(x.reason.replace(/\s+/g, ' '), 200)}`),
    )
  if (r.skipped?.length)
    lines.push(`skipped ${r.skipped.length}:`, ...r.skipped.map((x) => `  ${x.name}: ${clip(x.reason, 200)}`))
  if (r.written.length)
    lines.push(
      `Next: review them in a pull request; approve with \`git learn approve ${r.written.map((w) => w.name).join(' ')}\`.`,
    )
  return `${lines.join('\n')}\n`
}

export const retroNoObservations = (stateDir: string) =>
  `no observations yet in ${stateDir}: register the hook with \`git learn init --agent claude\` and work a session first.\n`

/** Progress on stderr before a long read. */
export const retroReading = (bytes: number, files: number) =>
  `retro: reading ${(bytes / 1048576).toFixed(0)} MB of observations in ${files} file(s)…\n`

/** retro --write: a candidate with a name another candidate of the same run already has. */
export function retroSameName(name: string): string {
  return `another candidate of this run is already named ${name}; kept the first`
}

/** retro --write: a candidate nearly identical to another candidate of the same run. */
export function retroNearTwin(other: string, similarity: number): string {
  return `near duplicate of ${other}, another candidate of this run (similarity ${similarity.toFixed(2)}); kept the first`
}
