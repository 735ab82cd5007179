/**
 * Absolute paths in learnings: a path on one machine means nothing on another and names its user. Paths under the
 * repository root become `${PROJECT_ROOT}/…`; other home-directory paths (/home/<user>, /Users/<user>,
 * C:\Users\<user>) become `${PROJECT_ROOT}/…` when they pass through a directory named like the repository
 * (another checkout of the same project), else `${HOME}/…`, so no user name is kept.
 */

export const PROJECT_ROOT_VAR = '${PROJECT_ROOT}'
export const HOME_VAR = '${HOME}'

/** A path starts at the start of the text, after white space, a quote, a bracket, `=`, `:` or `(`, never inside a URL. */
const BEFORE = String.raw`(^|[\s"'\`(\[{=<>,;]|file:\/\/)`
const POSIX_HOME = new RegExp(
  String.raw`${BEFORE}(\/(?:home|Users)\/[^\s/"'\`)\]}>,;]+)((?:\/[^\s"'\`)\]}>,;]*)*)`,
  'gm',
)
const WIN_HOME = new RegExp(
  String.raw`${BEFORE}([A-Za-z]:[\\/](?:Users|Documents and Settings)[\\/][^\s\\/"'\`)\]}>,;]+)((?:[\\/][^\s\\/"'\`)\]}>,;]*)*)`,
  'gm',
)

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Rewrite absolute paths in `text`; `root` is the repository's absolute root (posix or Windows form). */
export function rewriteAbsolutePaths(text: string, root: string): string {
  const cleanRoot = root.replace(/[\\/]+$/, '')
  const base = cleanRoot.split(/[\\/]/).pop() ?? ''
  let out = text
  if (cleanRoot.length > 1) {
    const rootRe = new RegExp(`${BEFORE}${escapeRe(cleanRoot)}(?=[\\\\/]|$|[\\s"'\`)\\]},;])`, 'gm')
    out = out.replace(rootRe, (_m, pre: string) => `${pre}${PROJECT_ROOT_VAR}`)
  }
  const rest = (pre: string, tail: string) => {
    const segs = tail.split(/[\\/]/).filter(Boolean)
    const at = base ? segs.indexOf(base) : -1
    if (at >= 0)
      return `${pre}${PROJECT_ROOT_VAR}${segs
        .slice(at + 1)
        .map((s) => `/${s}`)
        .join('')}`
    return `${pre}${HOME_VAR}${segs.map((s) => `/${s}`).join('')}`
  }
  out = out.replace(POSIX_HOME, (_m, pre: string, _home: string, tail: string) => rest(pre, tail))
  out = out.replace(WIN_HOME, (_m, pre: string, _home: string, tail: string) => rest(pre, tail))
  return out
}

/** Rewrite every string inside a frontmatter value (arrays and mappings too); returns the same object when nothing changed. */
export function rewritePathsInData<T>(value: T, root: string): T {
  if (typeof value === 'string') return rewriteAbsolutePaths(value, root) as T
  if (Array.isArray(value)) {
    const next = value.map((v) => rewritePathsInData(v, root))
    return (next.some((v, i) => v !== value[i]) ? next : value) as T
  }
  if (value && typeof value === 'object') {
    let changed = false
    const next: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      next[k] = rewritePathsInData(v, root)
      if (next[k] !== v) changed = true
    }
    return (changed ? next : value) as T
  }
  return value
}
