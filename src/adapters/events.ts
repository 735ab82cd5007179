/**
 * The usage-events log: `<git common dir>/learn/events.jsonl`, one JSON object a line, append-only. Each event
 * is written with one appendFileSync call of one line (O_APPEND: concurrent writers of lines under PIPE_BUF
 * never interleave), so hooks of parallel agent sessions can write at the same time.
 */
import { appendFileSync, createReadStream, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { UsageEvent } from '../core/usage.js'
import { parseUsageEvent } from '../core/usage.js'

export type { UsageEvent, UsageEventKind } from '../core/usage.js'

/** `<common dir>/learn`, the local state directory (never committed, shared by worktrees). */
export function stateDir(commonDir: string): string {
  return join(commonDir, 'learn')
}

/** The events file of a repository. */
export function eventsPath(commonDir: string): string {
  return join(stateDir(commonDir), 'events.jsonl')
}

/** Longest note kept in an event; longer notes are cut so a line stays one small atomic write. */
const MAX_NOTE = 500

/** Append one event as one line, in a single write. */
export function appendEvent(commonDir: string, event: UsageEvent): void {
  mkdirSync(stateDir(commonDir), { recursive: true })
  const e: UsageEvent = { ...event, ...(event.note !== undefined ? { note: event.note.replace(/\s+/g, ' ').slice(0, MAX_NOTE) } : {}) }
  appendFileSync(eventsPath(commonDir), `${JSON.stringify(e)}\n`)
}

/** Every well-formed event, in file order; malformed or torn lines are skipped. */
export async function* readEvents(commonDir: string): AsyncGenerator<UsageEvent> {
  const file = eventsPath(commonDir)
  if (!existsSync(file)) return
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })
  for await (const line of lines) {
    const e = parseUsageEvent(line)
    if (e) yield e
  }
}

/** All events at once (for commands that need them all anyway; faster than the stream for small logs). */
export function readEventsSync(commonDir: string): UsageEvent[] {
  const file = eventsPath(commonDir)
  if (!existsSync(file)) return []
  const out: UsageEvent[] = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const e = parseUsageEvent(line)
    if (e) out.push(e)
  }
  return out
}
