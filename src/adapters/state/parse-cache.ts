/**
 * A cache of parsed frontmatter for `git learn check` over the whole store: YAML parsing is most of the time of a
 * check of 10,000 learnings, and between two runs on a developer's machine almost every frontmatter is unchanged.
 *
 * The file is `<git-common-dir>/learn/cache/frontmatter-v1.json`, local state that never enters the work tree or a
 * commit. It maps the exact frontmatter text to its mapping as JSON, so an edited file simply misses (its new text is
 * another key) and nothing can be stale. Only mappings that survive JSON unchanged are stored (no NaN, Infinity
 * or -0). A missing, unreadable, corrupt or foreign cache is ignored and rebuilt, never an error. After a run the
 * file holds exactly the entries that run used, so it does not grow with old versions; it is replaced atomically
 * (write then rename), so concurrent runs at worst lose each other's additions.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeCacheFile } from './cache-file.js'
import { parseSimpleFrontmatter } from '../../core/frontmatter-fast.js'
import { parseYamlMapping } from '../../core/learning.js'

export const PARSE_CACHE_FILE = 'frontmatter-v2.json'

/** Changes when parseYamlMapping's results may change: a cache made for another parser is dropped. */
const PARSER = `yaml@${readYamlVersion()}`

function readYamlVersion(): string {
  try {
    return (
      (JSON.parse(readFileSync(require.resolve('yaml/package.json'), 'utf8')) as { version?: string }).version ??
      'unknown'
    )
  } catch {
    return 'unknown'
  }
}

interface CacheFile {
  parser: string
  /** Frontmatter text → JSON of its mapping. */
  entries: Record<string, string>
}

export interface ParseCache {
  /** parseYamlMapping with the cache in front of it. */
  parseYaml(matter: string): Record<string, unknown>
  /** Write the entries used in this run, when they differ from what was read. Never throws. */
  save(): void
  readonly stats: { hits: number; misses: number }
}

/** True when JSON.stringify then JSON.parse gives back an equal value. */
function isJsonSafe(value: unknown, depth = 0): boolean {
  if (depth > 64) return false
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0)
  if (Array.isArray(value)) return value.every((v) => isJsonSafe(v, depth + 1))
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.values(value as Record<string, unknown>).every((v) => isJsonSafe(v, depth + 1))
  return false
}

function readCacheFile(file: string): Map<string, string> {
  const entries = new Map<string, string>()
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<CacheFile> | null
    if (!parsed || parsed.parser !== PARSER || typeof parsed.entries !== 'object' || parsed.entries === null)
      return entries
    for (const [key, value] of Object.entries(parsed.entries)) if (typeof value === 'string') entries.set(key, value)
  } catch {
    /* no cache yet, or unreadable or corrupt: start empty and rebuild it */
  }
  return entries
}

/** Open the cache under `<commonDir>/learn/cache/`. */
export function openParseCache(commonDir: string): ParseCache {
  const dir = join(commonDir, 'learn', 'cache')
  const file = join(dir, PARSE_CACHE_FILE)
  const known = readCacheFile(file)
  const used = new Map<string, string>()
  let added = 0
  const stats = { hits: 0, misses: 0 }
  return {
    stats,
    parseYaml(matter) {
      // Plain frontmatter is read faster than the cache could give it back (and would make the file 100 MB at
      // 100,000 learnings): only what needs the YAML parser is cached.
      const simple = parseSimpleFrontmatter(matter)
      if (simple) return simple
      const json = used.get(matter) ?? known.get(matter)
      if (json !== undefined) {
        try {
          const data = JSON.parse(json) as unknown
          if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
            used.set(matter, json)
            stats.hits++
            return data as Record<string, unknown>
          }
        } catch {
          /* a damaged entry: parse the text again */
        }
      }
      stats.misses++
      const data = parseYamlMapping(matter) // errors are not cached: the file is reported and parsed again next time
      if (isJsonSafe(data)) {
        used.set(matter, JSON.stringify(data))
        added++
      }
      return data
    },
    save() {
      if (added === 0 && used.size === known.size) return
      const out: CacheFile = { parser: PARSER, entries: Object.fromEntries(used) }
      writeCacheFile(file, JSON.stringify(out))
    },
  }
}
