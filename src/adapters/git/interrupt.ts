/**
 * SIGINT, SIGTERM and SIGHUP while git learn works, handled as git's sigchain handles them: what this process holds
 * (our index lock, a transition's journal whose commit never landed, scratch files, git process groups of its own) is
 * removed by the cleanups registered here, then the signal is raised again with its default action, so a shell shows
 * 130, 143 or 129 and the parent sees the signal. A short critical section (moving the branch and bringing the index
 * and work tree in line under the index lock) defers the signal until it ends: the repository is then exactly as
 * after that commit. The git processes started inside one run in a session of their own, so a terminal's Ctrl-C,
 * sent to the whole foreground group, does not kill them half way; the signal reaches this process and waits.
 *
 * Listeners exist only while a cleanup is registered, a section is deferring, or the CLI asked to report signals
 * (`reportInterrupts`): otherwise a signal has its default action, as before this module.
 */
import { constants } from 'node:os'
import { writeSync } from 'node:fs'

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

const cleanups = new Set<() => void>()
const stops = new Set<() => void>()
let deferring = 0
let running = 0
let ending: NodeJS.Signals | undefined
let pending: NodeJS.Signals | undefined
/** `pending` came from a git of ours that died of it (gitSignalled): this process's own share may follow. */
let pendingByGit = false
let listening = false
/**
 * What a signal leaves: `nothing`; `unfinished`, a critical section ended with its commit made and the index or work
 * tree not in line; `unknown`, a second signal ended a critical section (its commit may or may not land). In both of
 * the latter a journal is left for `git learn doctor`.
 */
export type InterruptLeft = 'nothing' | 'unfinished' | 'unknown'
let report: ((signal: NodeJS.Signals, left: InterruptLeft) => string) | undefined
let left: InterruptLeft = 'nothing'

function listen(): void {
  if (listening) return
  listening = true
  for (const s of SIGNALS) process.on(s, onProcessSignal)
}

function stopListening(): void {
  if (!listening) return
  listening = false
  for (const s of SIGNALS) process.removeListener(s, onProcessSignal)
}

/** Stop listening once nothing asks for it (the default action of each signal is back). */
function settleListeners(): void {
  if (!cleanups.size && !deferring && !report) stopListening()
}

/** Node calls a signal's listeners with its name and number: only the name is passed on. */
const onProcessSignal = (signal: NodeJS.Signals): void => onSignal(signal, false)

/**
 * `fromGit`: a git of ours died of it (gitSignalled), the same Ctrl-C as this process's own: never a second one for a
 * critical section (which it would end as a kill does). Outside one it ends the command now, as before.
 */
function onSignal(signal: NodeJS.Signals, fromGit: boolean): void {
  if (deferring > 0) {
    if (!pending) {
      pending = signal
      pendingByGit = fromGit
      return
    }
    // The Ctrl-C that killed that git, which reaches this process too: one signal, not two.
    if (fromGit || pendingByGit) {
      pendingByGit = false
      return
    }
    // A second signal while a critical section waits (a hook of git's that hangs, a slow disk): end now, as a kill
    // would, without the cleanups (they would remove a journal whose commit may be landing), the index lock and the
    // journal left for the next command and `git learn doctor`.
    left = 'unknown'
    cleanups.clear()
    finish(signal)
  }
  // A second signal while the first waits for git processes to end: end now.
  if (ending) finish(signal)
  ending = signal
  for (const stop of stops) stop()
  if (!running) finish(signal)
  // git processes of ours still run (a SIGTERM sent to this process alone): they end first, so that none writes a
  // file after its cleanup removed it (an index being prepared); the last one to end finishes (gitStarted). Work
  // that goes on meanwhile may open a critical section: it is then waited for too (finishLater).
  else setTimeout(() => finishLater(signal), GIT_END_WAIT_MS)
}

/** Finish now, or at the end of the critical section open now (deferInterrupts). */
function finishLater(signal: NodeJS.Signals): void {
  if (deferring > 0) pending ??= signal
  else finish(signal)
}

/** How long a signal waits for git processes of ours to end before it ends this process anyway (ms). */
const GIT_END_WAIT_MS = 5000

/** Run every cleanup (the newest first), say why in one line, and end by the signal itself. */
function finish(signal: NodeJS.Signals): never {
  for (const c of [...cleanups].reverse())
    try {
      c()
    } catch {
      // One cleanup that fails does not keep the others from running.
    }
  cleanups.clear()
  const line = report?.(signal, left)
  if (line)
    try {
      writeSync(2, line)
    } catch {
      // No stderr to write to (a closed terminal): the exit code says it.
    }
  report = undefined
  stopListening()
  process.kill(process.pid, signal)
  // The signal's default action ends the process before kill returns; should it not, the code a shell would show.
  process.exit(128 + (constants.signals[signal] ?? 0))
}

/**
 * Run `cleanup` if a signal ends this process before the returned function is called (which unregisters it).
 * A cleanup is synchronous and removes only what this process made.
 */
export function onInterrupt(cleanup: () => void): () => void {
  cleanups.add(cleanup)
  listen()
  return () => {
    cleanups.delete(cleanup)
    settleListeners()
  }
}

/**
 * Run `stop` as soon as a signal comes, before git processes of ours are waited for (a process group of our own that
 * no terminal signal reaches: run.ts), until the returned function is called.
 */
export function stopOnInterrupt(stop: () => void): () => void {
  stops.add(stop)
  const off = onInterrupt(() => undefined)
  return () => {
    stops.delete(stop)
    off()
  }
}

/**
 * A git process started (run.ts); call the returned function once it has ended and before its answer is used. A
 * signal that came meanwhile, when it was the last one, ends this process there.
 */
export function gitStarted(): () => void {
  running++
  let done = false
  return () => {
    if (done) return
    done = true
    running--
    if (ending && !running) finishLater(ending)
  }
}

/**
 * A git of ours ended by SIGINT, SIGTERM or SIGHUP that this process did not send: the terminal's Ctrl-C (or a closed
 * terminal, a CI cancel of the group) reached it, and reaches this process too, maybe a moment later. Taken as this
 * process's own signal, as a shell does when its child dies of SIGINT, so that the command ends as interrupted rather
 * than with git's failure. Only where the process entry reports signals (`reportInterrupts`); call it before the
 * git's end is counted (gitStarted).
 */
export function gitSignalled(signal: string | null): void {
  if (report && (SIGNALS as readonly string[]).includes(signal ?? '')) onSignal(signal as NodeJS.Signals, true)
}

/**
 * Defer SIGINT, SIGTERM and SIGHUP until the returned function is called; a signal that came meanwhile is acted on
 * then (cleanups, message, the signal raised again), inside that call. Sections nest. Call it with `leftHalfDone` when
 * the section leaves something for `git learn doctor` (its commit landed, the index or work tree did not follow): the
 * message then says so rather than that nothing is left half done.
 */
export function deferInterrupts(): (leftHalfDone?: boolean) => void {
  deferring++
  listen()
  let ended = false
  return (leftHalfDone = false) => {
    if (ended) return
    ended = true
    deferring--
    if (leftHalfDone) left = 'unfinished'
    // The critical section's git processes have ended: what runs beside it is not waited for.
    const signal = pending ?? ending
    if (!deferring && signal) finish(signal)
    settleListeners()
  }
}

/** Whether a signal is ending this process (it waits for the git processes of ours still running). */
export function interruptEnding(): boolean {
  return ending !== undefined
}

/** Whether a deferring section is open (git started now runs in a session of its own: run.ts). */
export function interruptsDeferred(): boolean {
  return deferring > 0
}

/** Whether a signal came during a deferring section and waits for its end (a wait for a lock gives up). */
export function interruptPending(): boolean {
  return pending !== undefined
}

/**
 * The process entry only: a signal ends this process with the line `say` gives (on stderr) after the cleanups;
 * `left`: what it leaves for `git learn doctor` (InterruptLeft).
 */
export function reportInterrupts(say: (signal: NodeJS.Signals, left: InterruptLeft) => string): void {
  report = say
  listen()
}
