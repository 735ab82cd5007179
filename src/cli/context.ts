/** What a command gets from the outside world; tests build one over a temporary repository. */

export interface Ctx {
  cwd: string
  env: Readonly<Record<string, string | undefined>>
  now(): Date
  stdout(text: string): void
  stderr(text: string): void
  readStdin(): Promise<Buffer>
  /** Colour on stdout: only on a TTY and never with NO_COLOR. */
  color: boolean
}

export const ExitCode = { ok: 0, refused: 1, usage: 2, environment: 3, internal: 70 } as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** Largest stdin a command reads (a learning, a hook payload): more is cut off, never buffered without bound. */
export const MAX_STDIN_BYTES = 8 * 1024 * 1024

/** Read stdin up to MAX_STDIN_BYTES. */
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

/** The context of a real run of the binary. */
export function processCtx(): Ctx {
  endQuietlyOnEpipe(process.stdout)
  return {
    cwd: process.cwd(),
    env: process.env,
    now: () => new Date(),
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    readStdin: () => readProcessStdin(),
    color: Boolean(process.stdout.isTTY) && !('NO_COLOR' in process.env) && process.env['TERM'] !== 'dumb',
  }
}
