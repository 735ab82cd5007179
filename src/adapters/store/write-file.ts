/** Writing a whole file so that readers never see half of it, and (unless asked) never replacing one. */
import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path'
import { FileAccessError } from '../../core/errors.js'
import { scratchOwner } from '../state/process-tag.js'

/**
 * Write `text` to `path` through a temporary file, so that a kill at any instant leaves the old file or the new one,
 * never a truncated one. With `replace` the temporary file is renamed over `path` (keeping its mode); without
 * it the last step is link(2), which fails with EEXIST (thrown as node's error) when `path` exists, even if it
 * appeared a moment ago. The temporary file lives in `scratch` when given (a directory of ours under the git dir, so
 * that a kill between the write and the link leaves nothing in the user's work tree), else beside `path`; a scratch
 * directory on another file system than `path` falls back to beside it. `mode` is the new file's (a hook's 0o755), set
 * on the temporary copy before it takes the name, so the file never exists without it; a replaced file keeps its own.
 */
export function writeFileNoClobber(
  path: string,
  text: string | Uint8Array,
  replace = false,
  scratch?: string,
  mode?: number,
): void {
  // Replacing through a symbolic link replaces the file it points at, as writing through it would (not the link).
  if (replace && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) path = realish(path)
  const hex = randomBytes(6).toString('hex')
  const tmp = scratch
    ? join(scratch, `${scratchOwner()}.${hex}.tmp`)
    : join(dirname(path), `.${basename(path)}.${hex}.tmp`)
  try {
    writeFileSync(tmp, text, { flag: 'wx' })
    if (mode !== undefined) chmodSync(tmp, mode)
  } catch (err) {
    // A write that failed part way (no space left) leaves no temporary behind, beside the file or in scratch.
    if (existsSync(tmp)) unlinkSync(tmp)
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO'
    // A scratch directory that cannot be written (gone, read-only) is no reason to fail: beside the file then. A full
    // disk or quota is, when it is the file's own disk: writing beside would fail the same way, after creating a file
    // in the work tree. A git dir on another disk (`--separate-git-dir`, a mount) may be full where the file's is not.
    const full = code === 'ENOSPC' || code === 'EDQUOT'
    if (scratch && (!full || !sameDevice(scratch, dirname(path))))
      return writeFileNoClobber(path, text, replace, undefined, mode)
    // Named by the file asked for, not the temporary one beside it (a missing folder, no space, read-only).
    throw new FileAccessError(path, code)
  }
  try {
    if (replace) {
      // A replaced file keeps its permissions (a hook stays executable, a private file private).
      const was = lstatSync(path, { throwIfNoEntry: false })
      if (was?.isFile()) chmodSync(tmp, was.mode & 0o7777)
      renameSync(tmp, path)
    } else {
      try {
        linkSync(tmp, path)
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code === 'EXDEV') throw err
        // A file system without hard links: fall back to an existence check and a rename.
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err
        if (existsSync(path)) throw Object.assign(new Error(`${path} exists`), { code: 'EEXIST' })
        renameSync(tmp, path)
      }
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (!scratch || e.code !== 'EXDEV') {
      // rename(2) and link(2) name the temporary file, which the user never asked for (`path` a folder: EISDIR).
      if (e.path === tmp && e.code && e.code !== 'EEXIST') throw new FileAccessError(path, e.code)
      throw err
    }
    unlinkSync(tmp)
    return writeFileNoClobber(path, text, replace, undefined, mode)
  } finally {
    if (existsSync(tmp)) unlinkSync(tmp)
  }
}

/**
 * mkdir -p. Node 20's recursive mkdir reports ENOENT for a folder it could not make for another reason (EROFS: on a
 * read-only file system render said ".claude/skills/x: it does not exist"): then the missing folders are made one at a
 * time, and the first that cannot be throws its own reason.
 */
export function makeDirs(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    const parent = dirname(dir)
    if (parent !== dir && !existsSync(parent)) makeDirs(parent)
    mkdirSync(dir)
  }
}

/** Whether two paths are on one file system (taken as one when either cannot be read: the error stays as it was). */
function sameDevice(a: string, b: string): boolean {
  try {
    return statSync(a).dev === statSync(b).dev
  } catch {
    return true
  }
}

/** A temporary file `writeFileNoClobber` put beside `path` (without a scratch directory): `.<name>.<12 hex>.tmp`. */
export function isTemporaryBeside(path: string, name: string): boolean {
  const base = basename(path)
  return name.startsWith(`.${base}.`) && /^\.[0-9a-f]{12}\.tmp$/.test(name.slice(base.length + 1))
}

/** Whether `path` is a folder (through symbolic links); false when it is anything else, or cannot be read. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
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
