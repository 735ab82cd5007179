/**
 * The retrospective's detectors, fed one record at a time in log order (records of several sessions interleave;
 * each detector keeps its state per session). State is bounded: sessions, open failures, n-grams and program
 * counts are capped, so memory stays flat on a log of millions of lines.
 *
 * Why one file of 500 lines: the detectors share the per-session state and the one pass over the log; each detector
 * is a small class of its own below.
 */
import type { LearningType } from '../learning-schema.js'
import {
  callKey,
  commandOf,
  editedPaths,
  errorTrigger,
  failureText,
  isRejection,
  isToolResult,
  programOf,
  slugify,
  stepLabel,
  testRunnerOf,
  toolKind,
} from './records.js'
import type { RetroRecord } from './records.js'

export type CandidateKind =
  'error-solution' | 'retry-loop' | 'rapid-switching' | 'repeated-workflow' | 'user-correction' | 'tool-preference'

/** A learning the log suggests, with the evidence that made the detector propose it. */
export interface RetroCandidate {
  kind: CandidateKind
  name: string
  type: LearningType
  trigger: string
  description: string
  evidence: RetroEvidence
}

export interface RetroEvidence {
  /** How many times it was seen. */
  count: number
  sessions: string[]
  agent: string
  first_ts: string
  last_ts: string
  [key: string]: unknown
}

export interface Detector {
  feed(r: RetroRecord): void
  finish(): RetroCandidate[]
}

const MAX_SESSIONS = 2000
const MAX_OPEN = 100
const MAX_PATHS = 20
const MAX_LIST = 10
const MAX_GROUPS = 20000

/** A per-session state map that forgets the least recently started session past MAX_SESSIONS. */
class Sessions<T> {
  private map = new Map<string, T>()
  constructor(private make: () => T) {}
  get(id: string): T {
    let s = this.map.get(id)
    if (!s) {
      s = this.make()
      this.map.set(id, s)
      if (this.map.size > MAX_SESSIONS) this.map.delete(this.map.keys().next().value as string)
    }
    return s
  }
  values(): IterableIterator<T> {
    return this.map.values()
  }
}

/** Occurrences grouped by a key: count, sessions, first and last time, first agent, and kind-specific data. */
class Groups<D> {
  readonly map = new Map<
    string,
    { count: number; sessions: string[]; agent: string; first_ts: string; last_ts: string; data: D }
  >()
  add(key: string, r: RetroRecord, data: () => D, merge?: (d: D) => void): void {
    let g = this.map.get(key)
    if (!g) {
      if (this.map.size >= MAX_GROUPS) return
      g = { count: 0, sessions: [], agent: r.agent, first_ts: r.ts, last_ts: r.ts, data: data() }
      this.map.set(key, g)
    } else merge?.(g.data)
    g.count++
    g.last_ts = r.ts
    if (!g.sessions.includes(r.session) && g.sessions.length < MAX_LIST) g.sessions.push(r.session)
  }
}

const base = (g: {
  count: number
  sessions: string[]
  agent: string
  first_ts: string
  last_ts: string
}): RetroEvidence => ({
  count: g.count,
  sessions: g.sessions,
  agent: g.agent,
  first_ts: g.first_ts,
  last_ts: g.last_ts,
})

const quote = (s: string, max = 120) => `\`${s.length > max ? `${s.slice(0, max)}…` : s}\``

interface OpenFailure {
  command: string
  trigger: string
  failures: number
  edits: string[]
  ts: string
}

/** A command fails, files are edited, the same command (or the same test runner) then passes. */
export function errorSolutionDetector(): Detector {
  const sessions = new Sessions(() => new Map<string, OpenFailure>())
  const found = new Groups<{
    command: string
    verification: string
    edited_paths: string[]
    error_excerpt: string
    failures: number
  }>()
  return {
    feed(r) {
      if (!isToolResult(r) || isRejection(r)) return
      const open = sessions.get(r.session)
      const kind = toolKind(r.tool)
      if (kind === 'edit') {
        if (!r.ok) return
        for (const f of new Set(open.values()))
          for (const p of editedPaths(r)) if (!f.edits.includes(p) && f.edits.length < MAX_PATHS) f.edits.push(p)
        return
      }
      const cmd = commandOf(r)
      if (!cmd) return
      const keys = [`$ ${cmd}`]
      const runner = testRunnerOf(cmd)
      if (runner) keys.push(`runner ${runner}`)
      if (r.ok === false) {
        const existing = keys.map((k) => open.get(k)).find(Boolean)
        if (existing) {
          existing.failures++
          return
        }
        const f: OpenFailure = { command: cmd, trigger: errorTrigger(failureText(r)), failures: 1, edits: [], ts: r.ts }
        for (const k of keys) open.set(k, f)
        while (open.size > MAX_OPEN) open.delete(open.keys().next().value as string)
        return
      }
      const f = keys.map((k) => open.get(k)).find(Boolean)
      if (!f) return
      for (const [k, v] of open) if (v === f) open.delete(k)
      if (!f.edits.length) return
      found.add(
        `${f.trigger}\n${testRunnerOf(f.command) ?? f.command}`,
        r,
        () => ({
          command: f.command,
          verification: cmd,
          edited_paths: [...f.edits],
          error_excerpt: f.trigger,
          failures: f.failures,
        }),
        (d) => {
          for (const p of f.edits)
            if (!d.edited_paths.includes(p) && d.edited_paths.length < MAX_PATHS) d.edited_paths.push(p)
        },
      )
    },
    finish() {
      return [...found.map.values()].map((g) => ({
        kind: 'error-solution' as const,
        name: `fix-${slugify(g.data.error_excerpt, 50)}`,
        type: 'error-solution' as const,
        trigger: g.data.error_excerpt,
        description: `Fix "${g.data.error_excerpt.slice(0, 160)}" from ${quote(g.data.command, 80)}: edit ${g.data.edited_paths.slice(0, 3).join(', ')}, then ${quote(g.data.verification, 80)} passes. Use when that error shows up again.`,
        evidence: { ...base(g), ...g.data },
      }))
    },
  }
}

interface Streak {
  count: number
  trigger: string
  label: string
  command: string
}

/** The same call failing 3+ times in a row, with no edit in between: an anti-pattern. */
export function retryLoopDetector(min = 3): Detector {
  const sessions = new Sessions(() => new Map<string, Streak>())
  const found = new Groups<{ call: string; trigger: string; max_in_a_row: number }>()
  let last: RetroRecord | undefined
  const close = (s: Streak, r: RetroRecord) => {
    if (s.count < min) return
    found.add(
      s.command,
      r,
      () => ({ call: s.command, trigger: s.trigger, max_in_a_row: s.count }),
      (d) => void (d.max_in_a_row = Math.max(d.max_in_a_row, s.count)),
    )
  }
  return {
    feed(r) {
      if (!isToolResult(r) || isRejection(r)) return
      last = r
      const streaks = sessions.get(r.session)
      if (toolKind(r.tool) === 'edit' && r.ok) {
        for (const s of streaks.values()) close(s, r)
        streaks.clear()
        return
      }
      const key = callKey(r)
      const s = streaks.get(key)
      if (r.ok) {
        if (s) {
          close(s, r)
          streaks.delete(key)
        }
        return
      }
      if (s) s.count++
      else {
        streaks.set(key, {
          count: 1,
          trigger: errorTrigger(failureText(r)),
          label: stepLabel(r),
          command: commandOf(r) ?? key,
        })
        while (streaks.size > MAX_OPEN) streaks.delete(streaks.keys().next().value as string)
      }
    },
    finish() {
      if (last) for (const streaks of sessions.values()) for (const s of streaks.values()) close(s, last)
      return [...found.map.values()].map((g) => ({
        kind: 'retry-loop' as const,
        name: `avoid-retrying-${slugify(g.data.call, 45)}`,
        type: 'anti-pattern' as const,
        trigger: g.data.trigger,
        description: `Do not rerun ${quote(g.data.call, 80)} unchanged after it fails with "${g.data.trigger.slice(0, 120)}": it failed ${g.data.max_in_a_row} times in a row. Read the error and change something first.`,
        evidence: { ...base(g), ...g.data },
      }))
    },
  }
}

interface Switching {
  /** Tool results since the last passing shell run, within the window. */
  window: { ms: number; target: string; ok: boolean; trigger: string | null; label: string }[]
  flagged: boolean
}

/** What a call touched: the file of an edit or a read, the program of a shell command, else the tool. */
function targetOf(r: RetroRecord): string {
  const paths = editedPaths(r)
  if (paths[0]) return `file ${paths[0]}`
  const cmd = commandOf(r)
  const prog = cmd ? programOf(cmd) : undefined
  return prog ? `$ ${prog}` : `tool ${r.tool ?? '?'}`
}

/**
 * Rapid tool switching: within a short window (at most `windowCalls` tool results in `windowMs`), many different
 * tools or files touched (`minTargets`) with failures (`minFailures`) and no passing shell run in between — an agent
 * thrashing instead of reading the first error. An anti-pattern, once per streak, grouped by the first error.
 */
export function rapidSwitchingDetector(
  opts: { windowMs?: number; windowCalls?: number; minTargets?: number; minFailures?: number } = {},
): Detector {
  const windowMs = opts.windowMs ?? 3 * 60_000
  const windowCalls = opts.windowCalls ?? 10
  const minTargets = opts.minTargets ?? 5
  const minFailures = opts.minFailures ?? 3
  const sessions = new Sessions<Switching>(() => ({ window: [], flagged: false }))
  const found = new Groups<{
    first_error: string
    targets: string[]
    failures: number
    calls: number
    /** From the earliest to the latest of the calls' times; null when fewer than two of them parse. */
    seconds: number | null
    steps: string[]
  }>()
  return {
    feed(r) {
      if (!isToolResult(r) || isRejection(r)) return
      const s = sessions.get(r.session)
      if (r.ok && toolKind(r.tool) === 'shell') {
        s.window = []
        s.flagged = false
        return
      }
      const ms = Date.parse(r.ts)
      // Calls further apart than the window, either way: a clock set back mid-session (or records from two machines)
      // puts later calls before earlier ones. A time that does not parse (NaN) is far from none: such a call is held
      // by the count alone.
      const far = s.window.findLastIndex((w) => Math.abs(ms - w.ms) > windowMs)
      if (far >= 0) s.window.splice(0, far + 1)
      s.window.push({
        ms,
        target: targetOf(r),
        ok: r.ok === true,
        trigger: r.ok ? null : errorTrigger(failureText(r)),
        label: stepLabel(r),
      })
      while (s.window.length > windowCalls) s.window.shift()
      if (s.flagged) return
      const targets = [...new Set(s.window.map((w) => w.target))]
      const failures = s.window.filter((w) => !w.ok)
      if (targets.length < minTargets || failures.length < minFailures) return
      s.flagged = true
      const first = failures[0]?.trigger ?? 'a failure'
      const w = s.window
      found.add(first, r, () => ({
        first_error: first,
        targets: targets.slice(0, MAX_PATHS),
        failures: failures.length,
        calls: w.length,
        seconds: spanSeconds(w.map((x) => x.ms)),
        steps: w.map((x) => x.label).slice(0, MAX_LIST),
      }))
    },
    finish() {
      return [...found.map.values()].map((g) => ({
        kind: 'rapid-switching' as const,
        name: `avoid-switching-after-${slugify(g.data.first_error, 40)}`,
        type: 'anti-pattern' as const,
        trigger: g.data.first_error,
        description: `Do not jump between tools and files after "${g.data.first_error.slice(0, 120)}": ${g.data.calls} calls touched ${g.data.targets.length} different tools or files${g.data.seconds === null ? '' : ` in ${g.data.seconds} s`} with ${g.data.failures} failures and no passing run. Read the first error and fix it, then run the check again.`,
        evidence: { ...base(g), ...g.data },
      }))
    },
  }
}

/** Whole seconds from the earliest to the latest of the times that parse (in any order); null for fewer than two. */
function spanSeconds(times: readonly number[]): number | null {
  const known = times.filter((t) => !Number.isNaN(t))
  return known.length < 2 ? null : Math.round((Math.max(...known) - Math.min(...known)) / 1000)
}

/** The same sequence of 3 steps (shell program, edit, tool) in 3+ places: a pattern. */
export function workflowDetector(opts: { length?: number; min?: number; top?: number } = {}): Detector {
  const n = opts.length ?? 3
  const min = opts.min ?? 3
  const sessions = new Sessions(() => [] as string[])
  const found = new Groups<{ steps: string[] }>()
  return {
    feed(r) {
      if (!isToolResult(r)) return
      const window = sessions.get(r.session)
      const label = stepLabel(r)
      if (window[window.length - 1] === label) return
      window.push(label)
      if (window.length > n) window.shift()
      if (window.length < n) return
      // Only sequences that do something: at least one shell or edit step, and not A → B → A.
      if (!window.some((l) => l.startsWith('Bash') || /^(Edit|Write|MultiEdit)/.test(l))) return
      if (new Set(window).size < n) return
      found.add(window.join(' → '), r, () => ({ steps: [...window] }))
    },
    finish() {
      return [...found.map.values()]
        .filter((g) => g.count >= min)
        .sort((a, b) => b.count - a.count)
        .slice(0, opts.top ?? 5)
        .map((g) => ({
          kind: 'repeated-workflow' as const,
          name: `workflow-${slugify(g.data.steps.join(' '), 52)}`,
          type: 'pattern' as const,
          trigger: `the sequence ${g.data.steps.join(' → ')}`,
          description: `A recurring workflow: ${g.data.steps.join(' → ')} (seen ${g.count} times in ${g.sessions.length} session(s)). Use when starting this kind of task, to follow the same steps.`,
          evidence: { ...base(g), ...g.data },
        }))
    },
  }
}

/** A prompt that corrects the agent: "no, …", "don't …", "instead …", "stop …", "wrong …". */
const CORRECTION =
  /^\s*(?:no\b|nope\b|don'?t\b|do not\b|stop\b|wrong\b|that'?s (?:wrong|not)|not (?:like )?that\b|never\b|please (?:don'?t|do not|use)\b|use \S+ instead\b|instead\b|actually,? (?:use|do|we)\b)|\binstead of\b|\buse \S+,? not\b/i
const USE_X = /\buse\s+`?([A-Za-z][\w.+-]{0,39})`?/i

/** Is this prompt a correction of what the agent just did? */
export function isCorrection(prompt: string): boolean {
  return CORRECTION.test(prompt.slice(0, 400))
}

const PREFERENCE_PAIRS: readonly (readonly [string, string])[] = [
  ['pnpm', 'npm'],
  ['yarn', 'npm'],
  ['bun', 'npm'],
  ['rg', 'grep'],
  ['fd', 'find'],
  ['uv', 'pip'],
  ['podman', 'docker'],
]

/** User corrections (an instinct each) and tool preferences (from corrections and from known alternatives). */
export function correctionDetector(opts: { minPreferred?: number } = {}): Detector {
  const minPreferred = opts.minPreferred ?? 3
  const lastAction = new Sessions(() => ({ r: undefined as RetroRecord | undefined }))
  const corrections = new Groups<{ correction: string; after: string; after_command: string | null }>()
  const programs = new Map<string, number>()
  const corrected = new Map<
    string,
    {
      preferred: string
      over: string
      uses_after: number
      correction: string
      session: string
      ts: string
      agent: string
    }
  >()
  return {
    feed(r) {
      if (isToolResult(r)) {
        lastAction.get(r.session).r = r
        const cmd = commandOf(r)
        const prog = cmd ? programOf(cmd) : undefined
        if (prog && (programs.has(prog) || programs.size < 5000)) programs.set(prog, (programs.get(prog) ?? 0) + 1)
        if (prog) for (const c of corrected.values()) if (c.preferred === prog) c.uses_after++
        return
      }
      if (r.event !== 'UserPromptSubmit' || typeof r.input !== 'string') return
      const slot = lastAction.get(r.session)
      const prev = slot.r
      slot.r = undefined
      // The user's words right after the agent's action: a correction when they say so, or when they came with a
      // refusal of that action (Claude Code records a refused call and the reason given).
      if (!prev || !(isCorrection(r.input) || isRejection(prev))) return
      const text = r.input.replace(/\s+/g, ' ').trim().slice(0, 300)
      const prevCmd = commandOf(prev) ?? null
      corrections.add(text.toLowerCase(), r, () => ({
        correction: text,
        after: stepLabel(prev),
        after_command: prevCmd,
      }))
      const preferred = USE_X.exec(text)?.[1]
      const over = prevCmd ? programOf(prevCmd) : undefined
      if (preferred && over && preferred !== over && corrected.size < 1000 && !corrected.has(`${preferred}>${over}`))
        corrected.set(`${preferred}>${over}`, {
          preferred,
          over,
          uses_after: 0,
          correction: text,
          session: r.session,
          ts: r.ts,
          agent: r.agent,
        })
    },
    finish() {
      const out: RetroCandidate[] = [...corrections.map.values()].map((g) => ({
        kind: 'user-correction' as const,
        name: `correction-${slugify(g.data.correction, 50)}`,
        type: 'instinct' as const,
        trigger: g.data.after_command
          ? `about to run ${g.data.after_command.slice(0, 150)}`
          : `about to use ${g.data.after}`,
        description: `The user corrected the agent after ${g.data.after_command ? quote(g.data.after_command, 80) : g.data.after}: "${g.data.correction.slice(0, 200)}". Use when about to do that again.`,
        evidence: { ...base(g), ...g.data },
      }))
      const seen = new Set<string>()
      for (const c of corrected.values()) {
        if (c.uses_after < minPreferred) continue
        seen.add(`${c.preferred}>${c.over}`)
        out.push(
          preference(c.preferred, c.over, programs, {
            count: c.uses_after,
            sessions: [c.session],
            agent: c.agent,
            first_ts: c.ts,
            last_ts: c.ts,
            correction: c.correction,
          }),
        )
      }
      for (const [preferred, over] of PREFERENCE_PAIRS) {
        const p = programs.get(preferred) ?? 0
        const o = programs.get(over) ?? 0
        if (seen.has(`${preferred}>${over}`) || p < 5 || o * 5 > p) continue
        out.push(
          preference(preferred, over, programs, {
            count: p,
            sessions: [],
            agent: 'unknown',
            first_ts: '',
            last_ts: '',
          }),
        )
      }
      return out
    },
  }
}

function preference(preferred: string, over: string, programs: Map<string, number>, ev: RetroEvidence): RetroCandidate {
  const p = programs.get(preferred) ?? 0
  const o = programs.get(over) ?? 0
  const why =
    typeof ev['correction'] === 'string' ? ` after the correction "${String(ev['correction']).slice(0, 120)}"` : ''
  return {
    kind: 'tool-preference',
    name: `prefer-${slugify(preferred, 25)}-over-${slugify(over, 25)}`,
    type: 'instinct',
    trigger: `about to run ${over} in a repository that uses ${preferred}`,
    description: `Use ${preferred}, not ${over}, in this repository${why}: ${preferred} ran ${p} times, ${over} ${o} times.`,
    evidence: { ...ev, preferred, over, preferred_runs: p, other_runs: o },
  }
}
