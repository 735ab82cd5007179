/** A retrospective candidate written out as a learning draft for `pending/`: low confidence, evidence attached. */
import { escapeControl } from '../escape.js'
import { formatDate } from '../draft.js'
import { FOR_THE_REVIEWER } from '../gates.js'
import { formatLearningFile } from '../learning.js'
import type { Frontmatter } from '../learning.js'
import type { RetroCandidate } from './detectors.js'
import { ANSI } from './records.js'

/** Proposed confidence of every retrospective draft: a counted pattern, not yet a judged one. */
export const RETRO_CONFIDENCE = 0.3

const DOMAIN: Record<RetroCandidate['kind'], string> = {
  'error-solution': 'debugging',
  'retry-loop': 'workflow',
  'rapid-switching': 'workflow',
  'repeated-workflow': 'workflow',
  'user-correction': 'workflow',
  'tool-preference': 'tooling',
}

const list = (xs: readonly string[]) => xs.map((x) => `- \`${x}\``).join('\n')
const code = (s: unknown) => `\`${String(s).replace(/`/g, "'")}\``
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])
const seen = (c: RetroCandidate) =>
  `Seen ${c.evidence.count} time(s) in ${c.evidence.sessions.length || 'several'} session(s) (${c.evidence.agent}), ${c.evidence.first_ts || '?'} to ${c.evidence.last_ts || '?'}; found by \`git learn retro\`.`

function body(c: RetroCandidate): string {
  const e = c.evidence
  switch (c.kind) {
    case 'error-solution':
      return `## Problem
${code(e['command'])} failed with:

    ${c.trigger}

## Trigger Conditions
Running ${code(e['command'])} prints "${c.trigger}".

## Root Cause
${FOR_THE_REVIEWER}: the edits below made it pass; say why.

## Solution
These files were edited before the command passed:

${list(strings(e['edited_paths']))}

## Evidence
${code(e['command'])} failed with the error above; after the edits to the files listed under Solution, ${code(e['verification'])} passed. ${seen(c)}

## Verification
${code(e['verification'])} passed afterwards.

## Changelog
- 1.0.0: proposed by git learn retro.
`
    case 'retry-loop':
      return `## Anti-pattern
Rerunning ${code(e['call'])} unchanged after it fails with "${c.trigger}" (${String(e['max_in_a_row'])} times in a row).

## Correct pattern
Read the error, change something (a file, a flag, the environment), then run it again.

## Rationale
The same call with the same inputs fails the same way. ${seen(c)}

## Changelog
- 1.0.0: proposed by git learn retro.
`
    case 'rapid-switching':
      return `## Anti-pattern
After "${c.trigger}", jumping between tools and files (${String(e['calls'])} calls, ${strings(e['targets']).length} different targets, ${String(e['failures'])} failures${typeof e['seconds'] === 'number' ? ` in ${e['seconds']} s` : ''}) with no passing run in between:

${list(strings(e['steps']))}

## Correct pattern
Stop at the first failure, read its error, fix that one thing, and run the check again before touching anything else.

## Rationale
Each switch adds a change nobody verified; the first error is usually the cause of the rest. ${seen(c)}

## Changelog
- 1.0.0: proposed by git learn retro.
`
    case 'repeated-workflow':
      return `## Anti-pattern
Working the sequence out again each time.

## Correct pattern
${strings(e['steps'])
  .map((s, i) => `${i + 1}. ${s}`)
  .join('\n')}

## Rationale
${seen(c)}

## Changelog
- 1.0.0: proposed by git learn retro.
`
    default:
      return `## Action
${c.kind === 'tool-preference' ? `Use ${code(e['preferred'])} instead of ${code(e['over'])}.` : String(e['correction'] ?? c.description)}

## Evidence
${c.description}

${seen(c)}

## Changelog
- 1.0.0: proposed by git learn retro.
`
  }
}

function tags(c: RetroCandidate): string[] {
  const e = c.evidence
  const words = [c.kind, 'retrospective']
  for (const v of [e['preferred'], e['over']]) if (typeof v === 'string') words.push(v)
  return [
    ...new Set(
      words
        .map((w) =>
          w
            .toLowerCase()
            .replace(/[^a-z0-9-]+/g, '-')
            .slice(0, 64),
        )
        .filter(Boolean),
    ),
  ]
}

/** The learning file text of a candidate, with `source: {kind: retrospective, agent, session}`. */
export function formatCandidateLearning(
  c: RetroCandidate,
  opts: { now: Date; commit?: string | undefined; root?: string | undefined },
): string {
  const prefix = opts.root ? `${opts.root.replace(/\/+$/, '')}/` : undefined
  // The user's machine stays out of the draft: paths inside the repository become repository-relative everywhere
  // (description, trigger, body, evidence); what is left outside it, `add` rewrites to ${PROJECT_ROOT}/… or refuses.
  const inRepo = prefix ? new RegExp(`(?<![\\w.~-])${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'g') : undefined
  // What a tool printed is hostile: its terminal sequences are left out and its control and bidi characters written
  // as `\uXXXX` (core/escape.ts, as printed output), so the file does nothing to a reviewer's terminal or diff view.
  const local = (text: string) => escapeControl((inRepo ? text.replace(inRepo, '') : text).replace(ANSI, ''))
  const e = JSON.parse(JSON.stringify(c.evidence), (_k, v: unknown) =>
    typeof v === 'string' ? local(v) : v,
  ) as RetroCandidate['evidence']
  const paths = strings(e['edited_paths'])
  const draft: RetroCandidate = { ...c, description: local(c.description), trigger: local(c.trigger), evidence: e }
  const data: Frontmatter = {
    name: c.name,
    description: draft.description.slice(0, 1024),
    type: c.type,
    trigger: draft.trigger.slice(0, 2000),
    domain: DOMAIN[c.kind],
    tags: tags(c),
    confidence: RETRO_CONFIDENCE,
    // What was observed, nothing more: no depth is declared (the gate reads the Evidence section written below), and
    // the contexts it applies in are the sessions it was seen in.
    gates: {
      reusability: [...new Set(e.sessions.slice(0, 3).map((s) => `session ${s}`))],
      verification: c.kind === 'error-solution' ? `${String(e['verification'])} passed after the edits` : seen(c),
    },
    ...(opts.commit || paths.length
      ? { evidence: { ...(opts.commit ? { commit: opts.commit } : {}), ...(paths.length ? { paths } : {}) } }
      : {}),
    source: { kind: 'retrospective', agent: e.agent, ...(e.sessions[0] ? { session: e.sessions[0] } : {}) },
    created: formatDate(opts.now),
    version: '1.0.0',
  }
  return formatLearningFile(data, body(draft))
}
