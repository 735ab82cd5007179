/**
 * The rebuild's per-file work (parse-file.ts: parsing, the index document, the content hash, the trust boundary's
 * scans; for a tier's first read, tier-file.ts) on a second core: a worker thread takes batches of files while this
 * thread parses others and indexes them all in store order (ParseQueue). On one core, for a few files, or when the worker cannot start or fails, `parse` answers
 * undefined and the caller parses the batch itself: the results, and any error, are the same either way.
 */
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { ParsedFile } from './parse-file.js'
import type { CountedDoc } from '../../core/search-parts.js'
import type { CatalogEntry } from '../../core/search.js'
import type { LearningSummary } from '../../core/query.js'
import { PROJECT_TIER } from '../store/sources.js'

/**
 * Below this many files a worker's start (~50 ms of loading the parser and scanners) costs more than it saves: at
 * 1,000 a rebuild took 569 ms on one thread and 614 ms with the worker (BENCHMARKS.md).
 */
export const MIN_WORKER_FILES = 2000

/**
 * The worker's heap (old generation), which bounds its memory: a batch holds 500 files and the normalization memos are
 * bounded, so it lives in ~30 MB; past the limit the worker stops and its batches are parsed here. At 100,000 files
 * a rebuild peaked at 922 MB without a limit and 841 MB with one, against 794 MB on one thread.
 */
export const WORKER_HEAP_MB = 64

/**
 * The most terms the worker numbers before it begins its table again (a store of unique tokens would otherwise grow
 * it, and the pool's copy, without bound): ~5 MB of strings and map in the worker's heap.
 */
export const MAX_WIRE_TERMS = 65_536

const utf8 = new TextDecoder()

/**
 * A parsed file as the worker sends it: its index terms and recall terms as numbers, each term's string sent once (in
 * the batch that first uses it) instead of in every file that holds it; and each string the file holds twice (its
 * name, description, type, state, domain and tags in the entry and the row, its path, its first trigger) sent once,
 * the other place holding SAME. At 100,000 learnings the structured copy of those strings, and the garbage of their
 * copies here, were ~1.5 s of the worker's and this thread's CPU. A batch crosses as one JSON text, which holds what a
 * parsed file holds: strings, finite numbers (an entry's confidence is one or null: core/search.ts buildCatalogEntry;
 * a confidence of -0 arrives as 0, which the cache's JSON and core/confidence.ts read alike), null, lists and plain
 * objects of fixed keys; a field of `counted` left undefined comes back undefined (decodeFile).
 */
export type WireFile = Omit<ParsedFile, 'counted' | 'recall' | 'entry' | 'row' | 'name'> & {
  counted?: ({ length: number; terms: number[]; counts: number[] } | undefined)[]
  recall?: number[][]
  entry?: Record<string, unknown>
  row?: Record<string, unknown>
  name?: string | typeof SAME
}

/**
 * The numbers of terms as the worker sends them (encodeFile's `idOf`): a term met for the first time gets the next
 * number and is listed, once, among the terms the next answer carries (`take`).
 */
export class TermNumbers {
  readonly table = new Map<string, number>()
  private added: string[] = []

  readonly idOf = (term: string): number => {
    let id = this.table.get(term)
    if (id === undefined) {
      this.table.set(term, (id = this.table.size))
      this.added.push(term)
    }
    return id
  }

  /** The terms numbered since the last take. */
  take(): string[] {
    const added = this.added
    this.added = []
    return added
  }

  /** Begins again (the pool's table too, told by the answer's `reset`). */
  clear(): void {
    this.table.clear()
    this.added = []
  }
}

/**
 * Stands for a value the file holds in another place. Only fields that hold a string, null or a list are replaced by it
 * (never `confidence` or `weight`, which are numbers and can be 0), so it is never mistaken for a value.
 */
const SAME = 0

/** The fields of a row that hold what the entry's field of the same name holds. */
const ROW_AS_ENTRY = ['name', 'state', 'type', 'domain', 'description'] as const

const sameList = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i])

/** The strings of a parsed file that it may hold twice. */
type Named = Pick<ParsedFile, 'entry' | 'row' | 'name'>
type WireNamed = Pick<WireFile, 'entry' | 'row' | 'name'>

/**
 * The entry, row and name of `f`, the file at `path`, with each string the file holds twice in one place, the other
 * holding SAME: as the worker sends them (encodeFile), and as a rebuild keeps them for the next (reuse-file.ts).
 */
export function shareOut(f: Named, path: string): WireNamed {
  const { entry, row, name } = f
  const out: WireNamed = {}
  if (entry) {
    const e: Record<string, unknown> = { ...entry }
    if (e['path'] === path) e['path'] = SAME
    if (e['tier'] === PROJECT_TIER) e['tier'] = SAME
    if (entry.trigger !== null && entry.trigger === entry.triggers[0]) e['trigger'] = SAME
    out.entry = e
    if (row) {
      const r: Record<string, unknown> = { ...row }
      for (const k of ROW_AS_ENTRY) if (row[k] !== null && row[k] === entry[k]) r[k] = SAME
      if (row.path === path) r['path'] = SAME
      if (sameList(row.tags, entry.tags)) r['tags'] = SAME
      out.row = r
    }
  } else if (row) out.row = { ...row }
  if (name !== undefined) out.name = entry && name === entry.name ? SAME : name
  return out
}

/** `f`, the file at `path`, as the worker sends it (in the worker), its terms numbered by `idOf`. */
export function encodeFile(f: ParsedFile, path: string, idOf: (term: string) => number): WireFile {
  const { counted, recall, entry, row, name, ...rest } = f
  const out: WireFile = Object.assign(rest, shareOut({ entry, row, name }, path))
  if (counted) out.counted = counted.map((c) => c && { length: c.length, terms: c.terms.map(idOf), counts: c.counts })
  if (recall) out.recall = recall.map((r) => r.map(idOf))
  return out
}

/** The entry, row and name shareOut gave, as they were: each place holding SAME given the string it stands for. */
export function shareIn(f: WireNamed, path: string): Named {
  const { entry, row, name } = f
  const out: Named = {}
  if (entry) {
    // In place: each field keeps its position among the entry's keys.
    if (entry['path'] === SAME) entry['path'] = path
    if (entry['tier'] === SAME) entry['tier'] = PROJECT_TIER
    if (entry['trigger'] === SAME) entry['trigger'] = (entry['triggers'] as string[])[0]
    if (row) {
      for (const k of ROW_AS_ENTRY) if (row[k] === SAME) row[k] = entry[k]
      if (row['path'] === SAME) row['path'] = path
      if (row['tags'] === SAME) row['tags'] = entry['tags']
    }
    out.entry = entry as unknown as CatalogEntry
  }
  if (row) out.row = row as unknown as LearningSummary
  if (name !== undefined) out.name = name === SAME ? (entry?.['name'] as string) : name
  return out
}

/** A file of the worker's as parseProjectFile gave it, from the pool's copy of the worker's table of terms. */
export function decodeFile(f: WireFile, path: string, terms: readonly string[]): ParsedFile {
  const { counted, recall, entry, row, name, ...rest } = f
  const out: ParsedFile = Object.assign(rest, shareIn({ entry, row, name }, path))
  const term = (id: number) => {
    const t = terms[id]
    if (t === undefined) throw new Error(`the parse worker sent term ${id}, which it never named`)
    return t
  }
  if (counted)
    out.counted = counted.map((c) =>
      c ? { length: c.length, terms: c.terms.map(term), counts: c.counts } : undefined,
    ) as CountedDoc
  if (recall) out.recall = recall.map((r) => r.map(term))
  return out
}

export interface ParseWorker {
  /** parseProjectFile of each file, in order; undefined when the worker failed (parse them in this thread). */
  parse(paths: readonly string[], texts: readonly string[]): Promise<ParsedFile[] | undefined>
  /** tier-file.ts parseTierFile of each file of a tier, in order; undefined when the worker failed. */
  parseTier(paths: readonly string[], texts: readonly string[]): Promise<ParsedFile[] | undefined>
  /**
   * The size of each file (lstat; undefined when it is missing or cannot be stat'ed), asked of the worker after the
   * batches it was given; undefined when the worker failed (stat them in this thread).
   */
  sizes(files: readonly string[]): Promise<(number | undefined)[] | undefined>
  /** Batches asked for and not yet answered. */
  readonly waiting: number
  /** Stops the worker; what is asked and not answered answers undefined. */
  close(): void
}

/**
 * A worker thread parsing with the reviewed fingerprints `allow`, started at once so that it loads its modules while
 * this thread reads; undefined on a single core or when `expected` files are too few to pay for it.
 */
export function startParseWorker(
  allow: readonly string[],
  expected: number,
  min = MIN_WORKER_FILES,
  heapMb = WORKER_HEAP_MB,
): ParseWorker | undefined {
  if (expected < min || availableParallelism() < 2) return undefined
  let worker: Worker
  try {
    worker = new Worker(join(__dirname, 'parse-worker.js'), {
      workerData: { allow: [...allow] },
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    })
  } catch {
    return undefined
  }
  // Never what keeps the process alive: an unfinished batch is answered undefined when the worker goes.
  worker.unref()
  /** What was asked and is not answered yet, by id: each batch's paths and answer, each question of sizes' answer. */
  const paths = new Map<number, readonly string[]>()
  const files = new Map<number, (files: ParsedFile[] | undefined) => void>()
  const sizes = new Map<number, (sizes: (number | undefined)[] | undefined) => void>()
  let failed = false
  const failAll = () => {
    failed = true
    for (const answer of [...files.values(), ...sizes.values()]) answer(undefined)
    files.clear()
    sizes.clear()
    paths.clear()
  }
  /** The worker's terms by number, as its answers add them (in order: one worker answers its batches in turn). */
  let terms: string[] = []
  worker.on('message', (m: { id: number; json?: Uint8Array; reset?: boolean; sizes?: Float64Array }) => {
    let batch: { files?: WireFile[]; terms?: string[] } = {}
    try {
      if (m.json !== undefined) batch = JSON.parse(utf8.decode(m.json)) as typeof batch
    } catch {
      failAll()
      void worker.terminate()
      return
    }
    if (m.reset) terms = []
    for (const t of batch.terms ?? []) terms.push(t)
    const asked = paths.get(m.id)
    paths.delete(m.id)
    const sized = sizes.get(m.id)
    sizes.delete(m.id)
    sized?.(m.sizes && Array.from(m.sizes, (n) => (n < 0 ? undefined : n)))
    const parsed = files.get(m.id)
    files.delete(m.id)
    if (!files.size && !sizes.size) worker.unref()
    let decoded: ParsedFile[] | undefined
    try {
      decoded = batch.files?.map((f, i) => decodeFile(f, asked?.[i] ?? '', terms))
    } catch {
      // A term this copy of the table lacks: the two tables disagree, so no later answer can be trusted either.
      failAll()
      void worker.terminate()
    }
    parsed?.(decoded)
  })
  worker.on('error', failAll)
  // A message that cannot be deserialized is dropped: the worker's table of terms would then be ahead of this copy and
  // its batch never answered. Parse here from then on.
  worker.on('messageerror', () => {
    failAll()
    void worker.terminate()
  })
  worker.on('exit', failAll)
  let next = 0
  const ask = (batch: readonly string[], texts: readonly string[], tier: boolean) => {
    if (failed) return Promise.resolve(undefined)
    const id = next++
    return new Promise<ParsedFile[] | undefined>((resolve) => {
      paths.set(id, batch)
      files.set(id, resolve)
      worker.ref()
      worker.postMessage({ id, paths: batch, texts, ...(tier ? { tier } : {}) })
    })
  }
  return {
    parse: (batch, texts) => ask(batch, texts, false),
    parseTier: (batch, texts) => ask(batch, texts, true),
    sizes(of) {
      if (failed) return Promise.resolve(undefined)
      const id = next++
      return new Promise((resolve) => {
        sizes.set(id, resolve)
        worker.ref()
        worker.postMessage({ id, sizes: of })
      })
    },
    get waiting() {
      return files.size
    },
    close() {
      failAll()
      void worker.terminate()
    },
  }
}

/** How many files go to the parse worker at a time. */
export const PARSE_BATCH = 500
/** How many files this thread parses before it looks again whether the worker can take the rest of a batch. */
export const HERE_PIECE = 100

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

/**
 * Files parsed on two threads and settled in order (a rebuild indexes them in store or tree order): each batch goes to
 * the worker while it has fewer than two waiting; otherwise this thread parses HERE_PIECE files of it and looks again,
 * so the worker is never left without work while this thread parses a whole batch. Between pieces, and after each
 * batch, the event loop turns (the worker's answers come in, git's next chunk is drained), and the batches at the head
 * that are parsed are settled. One queue across a rebuild's chunks: a chunk's last batches are settled while the next
 * chunk is parsed, so neither thread waits for the other at a chunk's end (at 100,000 learnings ten such waits were
 * ~1 s). Without a worker, each batch is parsed here whole, and the event loop turns between batches.
 */
export class ParseQueue<F> {
  private readonly queue: { files: F[]; parsed?: ParsedFile[]; asked?: Promise<ParsedFile[] | undefined> }[] = []
  private readonly answered = new WeakSet<object>()

  constructor(
    /** The worker; may be given later (a rebuild knows how many files it parses only as it reads the last one's copy). */
    public worker: ParseWorker | undefined,
    private readonly opts: {
      /** Asks the worker for a batch. */
      ask: (worker: ParseWorker, files: F[]) => Promise<ParsedFile[] | undefined>
      /** Parses files on this thread. */
      here: (files: F[]) => ParsedFile[]
      /** A worker's result as this thread keeps it (copied strings, compacted). */
      fromWorker: (parsed: ParsedFile, file: F) => ParsedFile
      /** Takes a batch's results, in order. */
      settle: (files: F[], parsed: ParsedFile[]) => Promise<void> | void
      /** A file's result known already (the last rebuild's parse, reuse-file.ts): not asked of anyone. */
      ready?: (file: F) => ParsedFile | undefined
    },
  ) {}

  /** Hands `files` over in batches, settling what is ready at the head as it goes. */
  async add(files: readonly F[]): Promise<void> {
    const { worker } = this
    for (let at = 0; at < files.length; at += PARSE_BATCH) {
      const batch = files.slice(at, at + PARSE_BATCH)
      const { ready } = this.opts
      const known = ready && batch.map(ready)
      // A batch whose every result is known is settled in its turn, neither asked of the worker nor parsed here.
      if (known?.every((p) => p !== undefined)) this.queue.push({ files: batch, parsed: known as ParsedFile[] })
      else
        for (let start = 0; start < batch.length;) {
          if (start) await nextTurn()
          if (worker && worker.waiting < 2) {
            const rest = batch.slice(start)
            const q = { files: rest, asked: this.opts.ask(worker, rest) }
            void q.asked.then(() => this.answered.add(q))
            this.queue.push(q)
            break
          }
          const end = worker ? start + HERE_PIECE : batch.length
          const piece = batch.slice(start, end)
          this.queue.push({ files: piece, parsed: this.opts.here(piece) })
          start = end
        }
      await nextTurn()
      for (let q = this.queue[0]; q && (q.parsed || this.answered.has(q)); q = this.queue[0]) {
        this.queue.shift()
        await this.settle(q)
      }
    }
  }

  /** Settles every batch left, in order. */
  async finish(): Promise<void> {
    while (this.queue.length) await this.settle(this.queue.shift() as (typeof this.queue)[number])
  }

  private async settle(q: (typeof this.queue)[number]): Promise<void> {
    const asked = q.parsed ? undefined : await q.asked
    const parsed = q.parsed ?? asked?.map((f, i) => this.opts.fromWorker(f, q.files[i] as F)) ?? this.opts.here(q.files)
    await this.opts.settle(q.files, parsed)
  }
}
