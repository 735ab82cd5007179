/**
 * Where the repository around a directory is, without spawning git when the layout is the usual one. Hooks and the
 * feed commands ask this on every run; `git rev-parse` would cost a process (3–20 ms on the bench machine, and the
 * feed's other git processes waited for its answer). Imports node:fs and node:path only.
 */
import { readFileSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'

export interface GitDirs {
  /** The work tree root (where `.learnings/` lives). */
  root: string
  /** The git common dir, absolute (`git rev-parse --git-common-dir`). */
  commonDir: string
  /** The git dir of this work tree (a linked worktree has its own, holding its index). */
  gitDir: string
}

type Env = Readonly<Record<string, string | undefined>>

/** Variables that change how git finds the repository: with any of them set, ask git itself. */
const DISCOVERY_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_CEILING_DIRECTORIES', 'GIT_COMMON_DIR']

const stat = (p: string) => statSync(p, { throwIfNoEntry: false })

/**
 * Walk up from `cwd` to the first `.git`, as git's discovery does. A directory is the git dir; a file
 * `gitdir: <path>` (linked worktrees, submodules) points to it. A git dir with a `commondir` file (a linked
 * worktree, gitrepository-layout(5)) shares the common dir it names. A `.git` directory that is no repository (no
 * HEAD, objects or refs: an empty one left in a subdirectory) is passed over, as git passes over it. Undefined when
 * there is no `.git` above `cwd`, when a directory on the way is itself a git dir (a bare repository, or `cwd` inside
 * `.git`: no work tree), when a `.git` file names no repository, or when the environment redirects discovery
 * (`needsGit` says so): then run `git rev-parse`, which answers or says what is wrong.
 */
export function findGitDirs(cwd: string, env: Env): GitDirs | undefined {
  if (needsGit(env)) return undefined
  let dir = resolve(cwd)
  for (;;) {
    const dotgit = join(dir, '.git')
    const st = stat(dotgit)
    if (st?.isFile()) {
      // As git reads it (setup.c read_gitfile_gently): "gitdir: " at the start, the path to the end less its line end.
      const m = /^gitdir: ([^\r\n]+)[\r\n]*$/.exec(readFileSync(dotgit, 'utf8'))
      if (!m) return undefined
      const dirs = gitDirsAt(isAbsolute(m[1] as string) ? (m[1] as string) : resolve(dir, m[1] as string))
      return dirs && { root: dir, ...dirs }
    }
    if (st) {
      const dirs = gitDirsAt(dotgit)
      if (dirs) return { root: dir, ...dirs }
    }
    if (gitDirsAt(dir)) return undefined
    const up = dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

/**
 * The git dir and common dir when `gitDir` holds a repository as git's discovery tells one (setup.c
 * is_git_directory: a HEAD file, and `objects` and `refs` directories in the common dir), else undefined. Not a
 * linked worktree (the usual case): the git dir is the common dir, which a stat of `commondir` says rather than a
 * failed read, whose error object (with its stack) costs more than the rest of this walk.
 */
function gitDirsAt(gitDir: string): { commonDir: string; gitDir: string } | undefined {
  if (!stat(join(gitDir, 'HEAD'))?.isFile()) return undefined
  let commonDir = gitDir
  const commondirFile = join(gitDir, 'commondir')
  if (stat(commondirFile)) {
    try {
      commonDir = resolve(gitDir, readFileSync(commondirFile, 'utf8').trim())
    } catch {
      /* unreadable: treat the git dir as the common dir */
    }
  }
  if (!stat(join(commonDir, 'objects'))?.isDirectory() || !stat(join(commonDir, 'refs'))?.isDirectory())
    return undefined
  return { commonDir, gitDir }
}

/**
 * Whether `dir` is the top of a work tree as git finds one there: its `.git` is a file (a linked worktree's, a
 * submodule's: git reads it, and says so if it names no repository) or a directory holding a repository (an empty
 * `.git` is passed over by git, which looks further up).
 */
export function isWorkTreeTop(dir: string): boolean {
  const st = stat(join(dir, '.git'))
  return !!st && (st.isFile() || gitDirsAt(join(dir, '.git')) !== undefined)
}

/** True when the environment changes git's discovery, so only git can say where the repository is. */
export function needsGit(env: Env): boolean {
  return DISCOVERY_ENV.some((v) => env[v])
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/**
 * The commit HEAD points at, read from the files (HEAD, a loose ref, packed-refs), or undefined when that is not
 * plain: an unborn branch, the reftable backend, a symbolic chain deeper than five, a ref outside refs/heads/ (a
 * worktree's own refs are not in the common dir), anything unexpected. Callers then ask git.
 */
export function readHeadCommit(dirs: GitDirs): string | undefined {
  try {
    let target = readFileSync(join(dirs.gitDir, 'HEAD'), 'utf8').trim()
    for (let depth = 0; depth < 5; depth++) {
      if (OBJECT_ID.test(target)) return target
      // A branch only: refs/worktree/, refs/bisect/ and refs/rewritten/ are each worktree's own (in its git dir, not
      // the common dir), and HEAD names nothing else but through plumbing.
      const m = /^ref: (refs\/heads\/[^\0\n]+)$/.exec(target)
      if (!m || m[1]?.includes('..')) return undefined
      const ref = m[1] as string
      const loose = stat(join(dirs.commonDir, ref))
      if (loose?.isFile()) {
        target = readFileSync(join(dirs.commonDir, ref), 'utf8').trim()
        continue
      }
      const packed = stat(join(dirs.commonDir, 'packed-refs'))
        ? readFileSync(join(dirs.commonDir, 'packed-refs'), 'utf8')
        : ''
      const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`))
      return line && OBJECT_ID.test(line.slice(0, line.indexOf(' '))) ? line.slice(0, line.indexOf(' ')) : undefined
    }
  } catch {
    // Unreadable: let git answer.
  }
  return undefined
}
