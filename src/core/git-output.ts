/** Parsers of git's machine output, pure: the adapters run git, these read what it printed. */

/** One answer of `git cat-file --batch`: the object's id and type, and its bytes (undefined when git has none). */
export interface CatFileObject {
  /** The object id, or the name asked for when git did not find it. */
  oid: string
  /** "blob", "tree", …; "missing" or "ambiguous" when git has no object for the name. */
  type: string
  bytes: Uint8Array | undefined
}

const ascii = new TextDecoder()

/**
 * Parse `git cat-file --batch` output: one answer per requested object, in request order. Sample of the raw output
 * for a 12-byte blob then a missing object:
 *
 *   "3f2c9a…e1 blob 12\nhello world\n\n" + "abcd missing\n"
 *
 * Each header is "<oid> <type> <size>\n", then <size> bytes and a "\n"; a name git cannot resolve gets the line
 * "<name> missing" (or "<name> ambiguous") and no bytes.
 */
export function parseCatFileBatch(out: Uint8Array): CatFileObject[] {
  const objects: CatFileObject[] = []
  let pos = 0
  while (pos < out.length) {
    const nl = out.indexOf(0x0a, pos)
    if (nl < 0) break
    const [oid = '', type = '', size] = ascii.decode(out.subarray(pos, nl)).split(' ')
    if (type === 'missing' || size === undefined) {
      objects.push({ oid, type, bytes: undefined })
      pos = nl + 1
      continue
    }
    const n = Number(size)
    objects.push({ oid, type, bytes: out.subarray(nl + 1, nl + 1 + n) })
    pos = nl + 1 + n + 1
  }
  return objects
}

/** One answer of `git cat-file --batch-check`: type and size, or undefined when git has no object for the name. */
export interface ObjectInfo {
  oid: string
  type: string
  size: number
}

/**
 * Parse `git cat-file --batch-check` output: one line per requested name, in request order. Sample for a blob, then
 * an index path that is not in the index:
 *
 *   "3f2c9a…e1 blob 1234\n" + ":.learnings/active/x.md missing\n"
 */
export function parseCatFileBatchCheck(out: string): (ObjectInfo | undefined)[] {
  const lines = out.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines.map((line) => {
    const [oid = '', type = '', size] = line.split(' ')
    return size === undefined || type === 'missing' || type === 'ambiguous'
      ? undefined
      : { oid, type, size: Number(size) }
  })
}

/**
 * `items` in order, cut into groups whose sizes add up to at most `limit` bytes (a group holds at least one item), each
 * with its sum: what one `git cat-file --batch` is asked for, so that its output stays bounded (a tier's read, the
 * rebuild's chunks).
 */
export function groupBySize<T>(
  items: readonly T[],
  sizeOf: (item: T) => number,
  limit: number,
): { items: T[]; bytes: number }[] {
  const groups: { items: T[]; bytes: number }[] = []
  for (const item of items) {
    const size = sizeOf(item)
    let g = groups[groups.length - 1]
    if (!g || (g.items.length && g.bytes + size > limit)) groups.push((g = { items: [], bytes: 0 }))
    g.items.push(item)
    g.bytes += size
  }
  return groups
}

/**
 * `n` objects asked of git in chunks, as [from, to) bounds: the first of `first` objects (what a reader waits for
 * before its first parse), then `rest` each.
 */
export function chunkBounds(n: number, first: number, rest: number): [number, number][] {
  const out: [number, number][] = []
  for (let from = 0; from < n;) {
    const to = Math.min(n, from + Math.max(1, from === 0 ? first : rest))
    out.push([from, to])
    from = to
  }
  return out
}

/** One path git printed on a line of its own (`git rev-parse --show-toplevel`): only git's final newline taken off. */
export function pathLine(out: string): string {
  return out.endsWith('\n') ? out.slice(0, -1) : out
}

/**
 * The `count` paths one `git rev-parse` printed, a line each ("/r\n/r/.git\n"), or undefined when its lines do not
 * make exactly that many: a path holding a newline, which only one question per path can read (then pathLine).
 */
export function parseRevParsePaths(out: string, count: number): string[] | undefined {
  const lines = out.split('\n')
  return lines.length === count + 1 && lines[count] === '' ? lines.slice(0, count) : undefined
}

/**
 * The repository git refused for its owner ("fatal: detected dubious ownership in repository at '/r'" … "git config
 * --global --add safe.directory /r"), from git's stderr; undefined for any other failure. git words the sentence in
 * the user's language but not its command, so the command is read first.
 */
export function parseDubiousOwnership(stderr: string): string | undefined {
  const command = /safe\.directory (.+)$/m.exec(stderr)?.[1]
  if (command !== undefined) return command.replace(/^'(.*)'$/, '$1')
  return /dubious ownership[^']*'(.*)'/.exec(stderr)?.[1]
}

/** One entry of a tree, as `git ls-tree -z` prints it: mode, object type, object id, path. */
export interface TreeEntry {
  mode: string
  type: string
  oid: string
  path: string
}

/** Parse `git ls-tree [-r] -z` output. Sample: "100644 blob 3f2c…\t.learnings/active/x.md\0". */
export function parseLsTree(out: string): TreeEntry[] {
  const entries: TreeEntry[] = []
  for (const rec of out.split('\0')) {
    const tab = rec.indexOf('\t')
    if (tab < 0) continue
    const [mode = '', type = '', oid = ''] = rec.slice(0, tab).split(' ')
    entries.push({ mode, type, oid, path: rec.slice(tab + 1) })
  }
  return entries
}
