/**
 * Keeping the project's prettier off `.learnings/`. git learn commits a learning byte for byte as proposed and
 * approved; a teammate's own commit that touches it (a local `git merge --squash` + `git commit`, an edit in place)
 * runs lint-staged, and prettier would rewrite it there, so what reaches `active/` would differ from what was reviewed,
 * and `prettier --check .` in CI would fail on every learning git learn committed.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { STORE_DIR } from '../../core/layout.js'
import { asCheckedOut } from '../git/checkout.js'
import { writeFileNoClobber } from './write-file.js'

export const PRETTIER_IGNORE = '.prettierignore'

/** The configuration files prettier reads (https://prettier.io/docs/configuration). */
const PRETTIER_CONFIGS = [
  '.prettierrc',
  '.prettierrc.json',
  '.prettierrc.json5',
  '.prettierrc.yaml',
  '.prettierrc.yml',
  '.prettierrc.toml',
  '.prettierrc.js',
  '.prettierrc.cjs',
  '.prettierrc.mjs',
  '.prettierrc.ts',
  'prettier.config.js',
  'prettier.config.cjs',
  'prettier.config.mjs',
  'prettier.config.ts',
  PRETTIER_IGNORE,
]

/** Whether the project formats with prettier: a config or ignore file, or prettier named in package.json. */
function usesPrettier(root: string): boolean {
  if (PRETTIER_CONFIGS.some((f) => existsSync(join(root, f)))) return true
  try {
    return /\bprettier\b/.test(readFileSync(join(root, 'package.json'), 'utf8'))
  } catch {
    return false
  }
}

/** A line of .prettierignore that already keeps the store out (`.learnings`, `/.learnings/`, `.learnings/**`). */
const IGNORES_STORE = new RegExp(`^/?${STORE_DIR.replace('.', '\\.')}(/|/\\*\\*)?\\s*$`, 'm')

/**
 * When the project uses prettier, make sure `.prettierignore` holds `.learnings/` (created or appended to; never
 * anything else changed). Returns what was done, or undefined when nothing was needed.
 */
export function ignoreStoreInPrettier(root: string): 'created' | 'updated' | undefined {
  if (!usesPrettier(root)) return undefined
  const file = join(root, PRETTIER_IGNORE)
  const text = existsSync(file) ? readFileSync(file, 'utf8') : undefined
  if (text !== undefined && IGNORES_STORE.test(text)) return undefined
  const lf = `${text === undefined || text === '' || text.endsWith('\n') ? '' : '\n'}# git learn: learnings are committed byte for byte as reviewed; no formatter rewrites them.\n${STORE_DIR}/\n`
  // Written as git checks it out (line endings), after the user's own bytes, which stay as they are.
  const block = asCheckedOut(root, PRETTIER_IGNORE, lf)
  // Replaced whole through a temporary copy: a full disk or a kill half way leaves the user's file as it was.
  if (text === undefined) writeFileNoClobber(file, block)
  else writeFileNoClobber(file, Buffer.concat([readFileSync(file), block]), true)
  return text === undefined ? 'created' : 'updated'
}
