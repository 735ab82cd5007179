/** What a command gets from the outside world; tests build one over a temporary repository. */
import { fstatSync, readSync, writeSync } from 'node:fs'

export interface Ctx {
  cwd: string
  env: Readonly<Record<string, string | undefined>>
  now(): Date
  stdout(text: string): void
  stderr(text: string): void
  readStdin(): Promise<Buffer>
  /** Colour on stdout: only on a TTY and never with NO_COLOR. */
  color: boolean
  /** Whether stderr is a terminal (a progress bar there; counts when piped). */
  stderrIsTTY?: boolean
}

export const ExitCode = { ok: 0, refused: 1, usage: 2, environment: 3, internal: 70 } as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** Largest stdin a command reads (a learning, a hook payload): more is cut off, never buffered without bound. */
export const MAX_STDIN_BYTES = 8 * 1024 * 1024

/*
 * Stdin, read synchronously.
 * `process.stdin` builds a stream (a net.Socket for a pipe) and reads it through the event loop, about 5 ms a call;
 * readSync on fd 0 takes well under one. A terminal is never read (it would wait for the user); a non-blocking
 * descriptor that runs dry (EAGAIN) hands over to the stream reader.
 */
export interface StdinRead {
  /** What was read: at most `limit` + 1 bytes, so a caller can tell that the payload was cut. */
  bytes: Buffer
  /** False when the descriptor is non-blocking and ran dry before EOF: read the rest from the stream. */
  done: boolean
}

/** Read fd 0 to EOF (or past `limit`) with blocking reads. */
export function readStdinSync(limit: number): StdinRead {
  try {
    // A character device is a terminal or /dev/null: neither carries a payload, and a terminal would block.
    if (fstatSync(0).isCharacterDevice()) return { bytes: Buffer.alloc(0), done: true }
  } catch {
    return { bytes: Buffer.alloc(0), done: true } // fd 0 closed
  }
  const chunks: Buffer[] = []
  let size = 0
  let done = true
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - size))
      const n = readSync(0, chunk, 0, chunk.length, null)
      if (n === 0) break
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n))
      size += n
      if (size > limit) break
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err
    done = false
  }
  return { bytes: Buffer.concat(chunks, size), done }
}

/** Read stdin up to MAX_STDIN_BYTES (and one byte more, so a caller can tell it was cut): blocking reads of fd 0,
 * then the stream for whatever a non-blocking descriptor had not delivered yet. */
export async function readAllStdin(limit = MAX_STDIN_BYTES): Promise<Buffer> {
  const read = readStdinSync(limit)
  return read.done ? read.bytes : Buffer.concat([read.bytes, await readProcessStdin(limit - read.bytes.length)])
}

/** Read stdin through the process.stdin stream, up to `limit`. */
export async function readProcessStdin(limit = MAX_STDIN_BYTES): Promise<Buffer> {
  if (process.stdin.isTTY) return Buffer.alloc(0)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of process.stdin) {
    const b = chunk as Buffer
    size += b.length
    chunks.push(b)
    if (size > limit) break
  }
  return Buffer.concat(chunks).subarray(0, limit + 1)
}

/**
 * A reader that stops early (`git learn list --json | head`) closes the pipe: the next write fails with EPIPE, which
 * Node reports as an unhandled 'error' event with a stack trace. Git dies of SIGPIPE there, silently; we end the run
 * as quietly, with the exit code it already has (0 unless something failed before).
 */
function endQuietlyOnEpipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
    process.exit()
  })
}

/** Colour only on a terminal, never with NO_COLOR set (https://no-color.org) or TERM=dumb, never into a pipe or file. */
function colorOn(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && !('NO_COLOR' in process.env) && process.env['TERM'] !== 'dumb'
}

/** What a person scans for on stderr, in colour: our error line in bold red, `warning:` in yellow. */
export function paint(text: string): string {
  return text.replace(/^(git learn [a-z-]+:)/gm, '\x1b[1;31m$1\x1b[0m').replace(/^(warning:)/gm, '\x1b[33m$1\x1b[0m')
}

/**
 * stdout when it is a file (`git learn export > bundle.json`). Node's stream for a file makes one write(2) per piece
 * and drops a short count, and reports a failed one on the next tick, after this process has ended: a disk that filled
 * up part way (or `ulimit -f`) left the output cut, or empty, with exit 0. Here each piece is written to its end; the
 * first failure is kept (nothing is written after it) for main to report.
 */
function fileOutput(fd: number): { write(text: string): void; failed(): NodeJS.ErrnoException | undefined } {
  let failed: NodeJS.ErrnoException | undefined
  return {
    write(text) {
      if (failed) return
      const bytes = Buffer.from(text)
      try {
        for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at)
      } catch (err) {
        failed = err as NodeJS.ErrnoException
      }
    },
    failed: () => failed,
  }
}

/** Whether a descriptor is a regular file (false when it cannot be asked). */
function isFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile()
  } catch {
    return false
  }
}

/** The context of a real run of the binary, and the standard streams it wrote to. */
export interface ProcessCtx extends Ctx {
  written(): NodeJS.WriteStream[]
  /** Why output to stdout was lost, when a write to it failed (a full disk under `> file`). */
  outputLost(): NodeJS.ErrnoException | undefined
}

/** The context of a real run of the binary. `process.stdout` and `process.stderr` are built on first use (a few ms
 * on a pipe): a hook that prints nothing never builds them. */
export function processCtx(): ProcessCtx {
  let out: NodeJS.WriteStream | undefined
  let err: NodeJS.WriteStream | undefined
  // Decided at the first write: stdout a file (written here), or Node's stream (a pipe, a terminal).
  let file: ReturnType<typeof fileOutput> | null | undefined
  const toFile = () => (file === undefined ? (file = isFile(1) ? fileOutput(1) : null) : file)
  const stdout = () => {
    if (!out) {
      out = process.stdout
      endQuietlyOnEpipe(out)
    }
    return out
  }
  return {
    cwd: process.cwd(),
    env: process.env,
    now: () => new Date(),
    stdout: (t) => {
      const f = toFile()
      if (f) f.write(t)
      else stdout().write(t)
    },
    stderr: (t) => {
      if (!t) return
      err ??= process.stderr
      err.write(colorOn(err) ? paint(t) : t)
    },
    readStdin: () => readAllStdin(),
    get stderrIsTTY() {
      return Boolean((err ??= process.stderr).isTTY)
    },
    written: () => [out, err].filter((s): s is NodeJS.WriteStream => s !== undefined),
    outputLost: () => file?.failed(),
    get color() {
      return toFile() ? false : colorOn(stdout())
    },
  }
}
