/**
 * Appending one event with no note to `<common dir>/learn/events.jsonl` (events.ts holds the format, the readers and
 * appendEvent, which redacts a note first): the recall hook's match events carry no note, so its failure path does
 * not load the secret scanner.
 */
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { STATE_FILES } from '../../core/layout.js'
import type { UsageEvent } from '../../core/usage.js'

/** `<common dir>/learn`, the local state directory (never committed, shared by worktrees). */
export function stateDir(commonDir: string): string {
  return join(commonDir, 'learn')
}

/** The events file of a repository. */
export function eventsPath(commonDir: string): string {
  return join(stateDir(commonDir), STATE_FILES.events)
}

/** Append one event as one line, in a single write (O_APPEND: lines of concurrent writers never interleave). */
export function appendEventLine(commonDir: string, event: Omit<UsageEvent, 'note'>): void {
  mkdirSync(stateDir(commonDir), { recursive: true })
  appendFileSync(eventsPath(commonDir), `${JSON.stringify(event)}\n`)
}
