/** Writing a whole file so that readers never see half of it, and (unless asked) never replacing one. */
import { randomBytes } from 'node:crypto'
import { existsSync, linkSync, lstatSync, realpathSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path'
import { FileAccessError } from '../../core/errors.js'

/**
 * Write `text` to `path` through a temporary file in the same directory. With `replace` the temporary file is
 * renamed over `path`; without it the last step is link(2), which fails with EEXIST (thrown as node's error)
 * when `path` exists, even if it appeared a moment ago.
 */
export function writeFileNoClobber(path: string, text: string, replace = false): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    writeFileSync(tmp, text, { flag: 'wx' })
  } catch (err) {
    // Named by the file asked for, not the temporary one beside it (a missing folder, no space, read-only).
    throw new FileAccessError(path, (err as NodeJS.ErrnoException).code ?? 'EIO')
  }
  try {
    if (replace) renameSync(tmp, path)
    else {
      try {
        linkSync(tmp, path)
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        // A file system without hard links: fall back to an existence check and a rename.
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err
        if (existsSync(path)) throw Object.assign(new Error(`${path} exists`), { code: 'EEXIST' })
        renameSync(tmp, path)
      }
    }
  } finally {
    if (existsSync(tmp)) unlinkSync(tmp)
  }
}

/** True when `path` is `root` or inside it (by the names, not following links). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/** The real path of `path` as far as it exists (the file itself may not exist yet). */
export function realish(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    const parent = dirname(path)
    return parent === path ? path : join(realish(parent), basename(path))
  }
}

/** Does anything (a file, a directory, a dangling link) exist at `path`? */
export function pathExists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined
}
