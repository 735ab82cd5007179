/**
 * The usage-events log: `<git common dir>/learn/events.jsonl`, one JSON object a line, append-only. Each event
 * is written with one appendFileSync call of one line (O_APPEND: concurrent writers of lines under PIPE_BUF
 * never interleave), so hooks of parallel agent sessions can write at the same time.
 *
 * Why over 300 lines: the writer, the streaming reader and the totals cache keep one file format; they change together.
 */
import { createHash } from 'node:crypto'
import { closeSync, createReadStream, existsSync, readFileSync, readSync } from 'node:fs'
import type { Stats } from 'node:fs'
import { join } from 'node:path'
import { writeCacheFile } from './cache-file.js'
import { openWithoutWaiting } from '../store/read-bounded.js'
import { appendEventLine, eventsPath, stateDir } from './event-line.js'
import type { UsageEvent, UsageSummary, UsageTotals } from '../../core/usage.js'
import { cloneTotals, foldUsageEvent, parseUsageEvent, summarizeTotals } from '../../core/usage.js'
import { redactSecrets } from '../../core/secrets.js'

export type { UsageEvent, UsageEventKind } from '../../core/usage.js'
export { eventsPath, stateDir }

/** Longest note kept in an event; longer notes are cut so a line stays one small atomic write. */
const MAX_NOTE = 500

/** Append one event as one line, in a single write; its note (if any) redacted of secrets and cut to MAX_NOTE. */
export function appendEvent(commonDir: string, event: UsageEvent): void {
  const note = event.note !== undefined ? redactSecrets(event.note.replace(/\s+/g, ' ').slice(0, MAX_NOTE)) : undefined
  appendEventLine(commonDir, { ...event, ...(note !== undefined ? { note } : {}) })
}

/** Every well-formed event, in file order; malformed or torn lines are skipped. */
export async function* readEvents(commonDir: string): AsyncGenerator<UsageEvent> {
  const file = eventsPath(commonDir)
  if (!existsSync(file)) return
  const { createInterface } = await import('node:readline') // only here: status and context read the summary
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

// ---------------------------------------------------------------------------------------------------------------
// The usage-summary cache: `<common dir>/learn/cache/usage-summary.json` holds the totals per learning of the log's
// first `offset` bytes (always just after a newline), with what identifies those bytes: the file's device and inode,
// and hashes of its first bytes and of the bytes just before `offset`. A read folds only what was appended since;
// a file that shrank, was replaced or rewritten (another inode, other bytes at either place) is folded again from
// the start. A corrupt or foreign cache file is a miss, never an error.

/** Bump when the cache file's format changes, or which lines count as events (3: times must be ISO 8601 instants). */
const SUMMARY_FORMAT = 3
/** A line longer than this is not an event (appendEvent writes lines of a few hundred bytes): skipped as corrupt. */
export const MAX_EVENT_LINE = 64 * 1024
const CHUNK = 4 * 1024 * 1024
const PROBE = 256

export function usageSummaryPath(commonDir: string): string {
  return join(stateDir(commonDir), 'cache', 'usage-summary.json')
}

export interface UsageLog {
  /** Totals per learning name over every well-formed event of the log. */
  totals: Map<string, UsageTotals>
  /** Lines that are not events (torn, hand-edited, over MAX_EVENT_LINE bytes), over the whole log. */
  skipped: number
  /** Bytes of the log read and folded by this call (0 when the cache covered it all). */
  readBytes: number
  /** Whether the log was folded from its start (no usable cache). */
  rebuilt: boolean
}

type TotalsRow = [
  matches: number,
  helpful: number,
  harmful: number,
  applied: number,
  successes: number,
  failures: number,
  lastUsed: string | null,
  lastConfirmed: string | null,
  lastUse: string | null,
  firstMatchMs: number | null,
  recentMatchMs: number[],
]

interface SummaryFile {
  format: number
  dev: number
  ino: number
  offset: number
  head: string
  tail: string
  skipped: number
  totals: Record<string, TotalsRow>
}

const ms = (iso: string | null): number => (iso === null ? -Infinity : Date.parse(iso))

function rowOf(t: UsageTotals): TotalsRow {
  return [
    t.matches,
    t.helpful,
    t.harmful,
    t.applied,
    t.successes,
    t.failures,
    t.lastUsed,
    t.lastConfirmed,
    t.lastUse,
    t.firstMatchMs,
    t.recentMatchMs,
  ]
}

function totalsOf(r: unknown): UsageTotals | undefined {
  if (!Array.isArray(r) || r.length !== 11) return undefined
  const [m, h, x, a, ok, ko, lu, lc, use, first, recent] = r as unknown[]
  const n = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0
  const d = (v: unknown): v is string | null => v === null || (typeof v === 'string' && !Number.isNaN(Date.parse(v)))
  if (
    !n(m) ||
    !n(h) ||
    !n(x) ||
    !n(a) ||
    !n(ok) ||
    !n(ko) ||
    !d(lu) ||
    !d(lc) ||
    !d(use) ||
    !(first === null || typeof first === 'number') ||
    !Array.isArray(recent) ||
    !recent.every((v) => typeof v === 'number')
  )
    return undefined
  return {
    matches: m,
    helpful: h,
    harmful: x,
    applied: a,
    successes: ok,
    failures: ko,
    lastUsed: lu,
    lastConfirmed: lc,
    lastUse: use,
    lastUsedMs: ms(lu),
    lastConfirmedMs: ms(lc),
    lastUseMs: ms(use),
    firstMatchMs: first as number | null,
    recentMatchMs: recent as number[],
  }
}

function readSummaryFile(commonDir: string): (SummaryFile & { map: Map<string, UsageTotals> }) | undefined {
  let f: Record<string, unknown>
  try {
    f = JSON.parse(readFileSync(usageSummaryPath(commonDir), 'utf8')) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (!f || typeof f !== 'object' || f['format'] !== SUMMARY_FORMAT) return undefined
  const num = (k: string) => typeof f[k] === 'number' && Number.isSafeInteger(f[k]) && (f[k] as number) >= 0
  if (
    !num('dev') ||
    !num('ino') ||
    !num('offset') ||
    !num('skipped') ||
    typeof f['head'] !== 'string' ||
    typeof f['tail'] !== 'string'
  )
    return undefined
  const raw = f['totals']
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined
  const map = new Map<string, UsageTotals>()
  for (const [name, row] of Object.entries(raw)) {
    const t = totalsOf(row)
    if (!t) return undefined
    map.set(name, t)
  }
  return { ...(f as unknown as SummaryFile), map }
}

function writeSummaryFile(commonDir: string, f: SummaryFile): void {
  // A read-only git dir only costs speed: the next command folds the log again.
  writeCacheFile(usageSummaryPath(commonDir), JSON.stringify(f))
}

/** sha1 of bytes [start, end) of an open file. */
function hashRange(fd: number, start: number, end: number): string {
  const buf = Buffer.alloc(Math.max(0, end - start))
  let got = 0
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, start + got)
    if (n <= 0) break
    got += n
  }
  return createHash('sha1').update(buf.subarray(0, got)).digest('hex')
}

/**
 * Fold the lines of bytes [from, to) of an open file into `totals`, one bounded chunk at a time. Returns the
 * offset just after the last newline, the corrupt lines counted, and the bytes after that newline (a line still
 * being written, or the last line of a file without a final newline), unless they are over MAX_EVENT_LINE.
 */
function foldRange(
  fd: number,
  from: number,
  to: number,
  totals: Map<string, UsageTotals>,
): { end: number; skipped: number; rest: string | undefined } {
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, to - from)))
  let skipped = 0
  let end = from
  let carry: Buffer[] = []
  let carryBytes = 0
  let overlong = false
  const line = (text: string) => {
    if (!text.trim()) return
    const e = text.length > MAX_EVENT_LINE ? undefined : parseUsageEvent(text)
    if (e) foldUsageEvent(totals, e)
    else skipped++
  }
  for (let pos = from; pos < to;) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos)
    if (n <= 0) break
    const chunk = buf.subarray(0, n)
    const first = chunk.indexOf(0x0a)
    if (first < 0) {
      carryBytes += n
      if (carryBytes > MAX_EVENT_LINE) {
        overlong = true
        carry = []
      } else carry.push(Buffer.from(chunk))
    } else {
      if (overlong) skipped++
      else line(Buffer.concat([...carry, chunk.subarray(0, first)]).toString('utf8'))
      const last = chunk.lastIndexOf(0x0a)
      if (last > first) for (const l of chunk.toString('utf8', first + 1, last).split('\n')) line(l)
      end = pos + last + 1
      overlong = last + 1 < n && n - last - 1 > MAX_EVENT_LINE
      carry = overlong || last + 1 === n ? [] : [Buffer.from(chunk.subarray(last + 1))]
      carryBytes = n - last - 1
    }
    pos += n
  }
  return { end, skipped, rest: overlong || !carry.length ? undefined : Buffer.concat(carry).toString('utf8') }
}

/**
 * The usage totals of the whole log, from the summary cache plus the bytes appended since it was written (the
 * cache is then brought up to date). Equal to folding every event of readEventsSync with foldUsageEvent.
 */
export function readUsageLog(commonDir: string): UsageLog {
  const file = eventsPath(commonDir)
  let fd: number
  let st: Stats
  try {
    // Without blocking: a FIFO in its place would hold the command until something wrote to it.
    ;({ fd, st } = openWithoutWaiting(file))
  } catch {
    return { totals: new Map(), skipped: 0, readBytes: 0, rebuilt: false }
  }
  try {
    // Not a regular file (a directory, a FIFO in its place): said as an error the callers report (they go on without
    // the counts), never read.
    if (!st.isFile()) throw new Error(`${st.isDirectory() ? 'EISDIR' : 'not a regular file'}: ${file} is no usage log`)
    const size = st.size
    const cached = readSummaryFile(commonDir)
    const usable =
      cached &&
      cached.dev === st.dev &&
      cached.ino === st.ino &&
      cached.offset <= size &&
      cached.head === hashRange(fd, 0, Math.min(cached.offset, PROBE)) &&
      cached.tail === hashRange(fd, Math.max(0, cached.offset - PROBE), cached.offset)
    const totals = usable ? cached.map : new Map<string, UsageTotals>()
    const from = usable ? cached.offset : 0
    const folded = foldRange(fd, from, size, totals)
    const skipped = (usable ? cached.skipped : 0) + folded.skipped
    if (!usable || folded.end !== from)
      writeSummaryFile(commonDir, {
        format: SUMMARY_FORMAT,
        dev: st.dev,
        ino: st.ino,
        offset: folded.end,
        head: hashRange(fd, 0, Math.min(folded.end, PROBE)),
        tail: hashRange(fd, Math.max(0, folded.end - PROBE), folded.end),
        skipped,
        totals: Object.fromEntries([...totals].map(([name, t]) => [name, rowOf(t)])),
      })
    // The last line without its newline counts now (as readEventsSync counts it) but is not cached: it may still grow.
    const last = folded.rest === undefined ? undefined : parseUsageEvent(folded.rest)
    if (last) {
      const own = totals.get(last.name)
      if (own) totals.set(last.name, cloneTotals(own))
      foldUsageEvent(totals, last)
    }
    return { totals, skipped, readBytes: size - from, rebuilt: !usable }
  } finally {
    closeSync(fd)
  }
}

/** The per-learning usage summary (status, context), from the usage-summary cache. */
export function readUsageSummary(commonDir: string): Map<string, UsageSummary> {
  return summarizeTotals(readUsageLog(commonDir).totals)
}
