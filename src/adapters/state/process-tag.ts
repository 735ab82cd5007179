/**
 * Which side of a shared repository a process runs on. A process id names a process only within one PID namespace on
 * one machine, and a repository is often seen from two: a dev container and its host (the work tree bind-mounted into
 * the container, where a coding agent runs its hooks while the person runs `git learn approve` outside), or two
 * machines on one network file system. Locks, journals and scratch files that name a process by its id alone were
 * judged by `kill(pid, 0)` on the other side, where the id means nothing: a host's approval in flight was seen from
 * the container as killed, its index lock removed and its journal taken for a half-done transition.
 *
 * So what names a process also holds this tag: 8 hex digits of a hash of the host name and the PID namespace
 * (`/proc/self/ns/pid` on Linux; the host name alone elsewhere), as git's `gc.pid` holds the host name beside the
 * pid. A file of another tag is never judged by its process id here: it is that side's to clear, or waits for its age
 * (a transition's journal and index lock: LEFT_BEHIND_MS; a capture or recall lock: its own). A file without a tag
 * (written by an earlier version) is judged as before.
 *
 * node:fs and node:os only: every command looks for journals before it starts.
 */
import { readlinkSync } from 'node:fs'
import { hostname } from 'node:os'

let tag: string | undefined

/**
 * How old another side's transition journal or index lock is before it is taken for left behind, and judged here: a
 * transition holds them for seconds, and a side can be gone for good (a dev container stopped, restarted or rebuilt
 * runs in a new PID namespace, most often under a new host name; a host renamed), leaving nobody there to finish or
 * clear them.
 */
export const LEFT_BEHIND_MS = 3_600_000

/** This process's tag: 8 lowercase hex digits, the same for every process of one namespace on one machine. */
export function processTag(): string {
  return (tag ??= fnv1a(`${safeHostname()}\0${pidNamespace()}`))
}

/** Whether a file of `other`'s tag was written on this side (undefined: an earlier version's file, taken as ours). */
export function onThisSide(other: string | undefined): boolean {
  return other === undefined || other === processTag()
}

/** What names this process in a scratch file's name: `<pid>@<tag>` (journal.ts scratchDir sweeps by it). */
export function scratchOwner(): string {
  return `${process.pid}@${processTag()}`
}

function safeHostname(): string {
  try {
    return hostname()
  } catch {
    return ''
  }
}

/** The PID namespace's link text ("pid:[4026531836]"), or '' where there is none to read (not Linux, no /proc). */
function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid')
  } catch {
    return ''
  }
}

/** 32-bit FNV-1a of the string's UTF-16 code units, as 8 hex digits: a name, not a secret. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, '0')
}
