/** Recorded agent sessions (test/fixtures/sessions/*.jsonl): one hook payload per line, `__ROOT__` for the repo root. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT } from './repo.js'

export const SESSIONS_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'sessions')

/** The payloads of a recorded session, with `__ROOT__` replaced by `root`. */
export function sessionPayloads(file: string, root: string): string[] {
  return readFileSync(join(SESSIONS_DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.split('__ROOT__').join(root))
}
