/**
 * `.learnings/config.yaml`, read through this one module with one cache. Every reader — the commands (the work
 * tree's file), the pre-commit hook (the staged blob), the feed commands and observe — gets its answer from one
 * entry per content, `<git common dir>/learn/cache/config-<hash>.json`, keyed by the file's bytes and the build (see
 * codeStamp), holding the validated configuration (or the problems that make it invalid) and the `observe` settings.
 * A warm command therefore loads neither `yaml` nor the schema validator. Observe, which runs on every tool call and
 * must not load node:crypto to hash the bytes, finds the entry through `learn/observe-config.json`, which names the
 * entry of each config.yaml's last stat (size, mtime, ctime, inode: one per work tree). A damaged cache file is a
 * miss; an unwritable cache directory only costs speed; no commonDir (a caller outside a repository) reads without
 * the cache.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../../core/config-schema.js'
import { STATE_FILES } from '../../core/layout.js'
import type { ObserveSettings } from '../../core/observation.js'

export const CONFIG_PATH = '.learnings/config.yaml'

/** Bump when the entry's shape changes: old entries are then ignored. */
const FORMAT = 1
const OBSERVE_ALIAS = STATE_FILES.observeConfig
/**
 * How many entries are kept, the newest: the work trees of one repository (`git worktree`, an agent in each) read
 * their own branch's config.yaml, and the pre-commit hook the staged one, all at once. Keeping only the last had each
 * of them evict the other's, so every command and tool call of one parsed the YAML again. Work trees whose
 * config.yaml holds the same bytes share an entry (a few kB each).
 */
const KEEP_ENTRIES = 32
/**
 * How many observe aliases are kept, one per work tree (its config.yaml's stat), the most recently written: there is
 * one per work tree, so 8 had a ninth agent's worktree evict another's alias at every tool call, and each then hashed
 * its config.yaml again (loading node:crypto: ~15 ms of every observe hook, round robin over 12 worktrees).
 */
const KEEP_ALIASES = 64

interface Entry {
  format: number
  /** The validated configuration, defaults merged; null when the file is invalid. */
  config: Config | null
  /** Why it is invalid (the problems of its ConfigError). */
  problems: string[]
  /** The observe settings: read leniently (a wrong value falls back to its default), whatever the rest says. */
  observe: ObserveSettings
  /** What observe logs about its settings. */
  observeProblems: string[]
}

/** The bytes of the work tree's config.yaml; undefined when there is none. */
export function readConfigBytes(root: string): Buffer | undefined {
  try {
    return readFileSync(join(root, CONFIG_PATH))
  } catch {
    return undefined
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

function readEntry(file: string): Entry | undefined {
  try {
    const e = JSON.parse(readFileSync(file, 'utf8')) as unknown
    if (
      isObject(e) &&
      e['format'] === FORMAT &&
      isObject(e['observe']) &&
      Array.isArray(e['problems']) &&
      Array.isArray(e['observeProblems']) &&
      (e['config'] === null || isObject(e['config']))
    )
      return e as unknown as Entry
  } catch {
    // A miss.
  }
  return undefined
}

/** Parse and validate some bytes of config.yaml (undefined: no file, the defaults). */
async function buildEntry(bytes: Uint8Array | undefined): Promise<Entry> {
  const [{ mergeConfig }, { DEFAULT_OBSERVE_SETTINGS, parseObserveSettings }] = await Promise.all([
    import('../../core/config-schema.js'),
    import('../../core/observation.js'),
  ])
  if (bytes === undefined)
    return {
      format: FORMAT,
      config: mergeConfig({}),
      problems: [],
      observe: DEFAULT_OBSERVE_SETTINGS,
      observeProblems: [],
    }
  const [{ decodeLearningBytes }, { parseYamlMapping, yamlReason }] = await Promise.all([
    import('./store.js'),
    import('../../core/learning.js'),
  ])
  let data: Record<string, unknown>
  try {
    data = parseYamlMapping(decodeLearningBytes(bytes, CONFIG_PATH), 'the file')
  } catch (err) {
    const e = err as { message?: string; linePos?: { line: number }[]; reason?: string }
    const where = e.linePos?.[0]?.line ? ` (line ${e.linePos[0].line})` : ''
    return {
      format: FORMAT,
      config: null,
      problems: [`malformed YAML${where}: ${yamlReason(err)}`],
      observe: DEFAULT_OBSERVE_SETTINGS,
      observeProblems: [
        `${CONFIG_PATH}: ${String(e.message ?? err).split('\n')[0]}; using the default observe settings`,
      ],
    }
  }
  const [{ loadConfigValidator }, { formatSchemaErrors }] = await Promise.all([
    import('./validators.js'),
    import('../../core/validate.js'),
  ])
  const validate = await loadConfigValidator()
  const valid = validate(data)
  const observe = parseObserveSettings(data)
  return {
    format: FORMAT,
    config: valid ? mergeConfig(data) : null,
    problems: valid ? [] : formatSchemaErrors(validate.errors ?? [], data, CONFIG_PATH),
    observe: observe.settings,
    observeProblems: observe.problems.map((p) => `${CONFIG_PATH}: ${p}`),
  }
}

/**
 * The entry for these bytes: from the cache when `commonDir` is given and it holds one of the config's shape, else
 * built (and kept beside the KEEP_ENTRIES - 1 newest others: the other work trees' and the pre-commit hook's entry for
 * the staged bytes, which observe and the feed read on every run). Without the build's hash (an incomplete build) the
 * entry is built and not kept.
 */
async function entryFor(
  bytes: Uint8Array | undefined,
  commonDir: string | undefined,
): Promise<{ entry: Entry; file?: string }> {
  if (commonDir === undefined) return { entry: await buildEntry(bytes) }
  const [{ createHash }, { codeStamp, cacheDir }, { hasConfigShape }] = await Promise.all([
    import('node:crypto'),
    import('../feed/feed-key.js'),
    import('../../core/config-schema.js'),
  ])
  let stamp: string
  try {
    stamp = codeStamp(createHash)
  } catch {
    return { entry: await buildEntry(bytes) }
  }
  const key = createHash('sha1')
    .update(`config ${FORMAT}\n${stamp}\n`)
    .update(bytes ?? 'no config')
    .digest('hex')
    .slice(0, 20)
  const file = join(cacheDir(commonDir), `config-${key}.json`)
  const hit = readEntry(file)
  if (hit && (hit.config === null || hasConfigShape(hit.config))) return { entry: hit, file }
  const entry = await buildEntry(bytes)
  const { writeCacheFileKeeping } = await import('../state/cache-file.js')
  writeCacheFileKeeping(file, JSON.stringify(entry), 'config-', KEEP_ENTRIES)
  return { entry, file }
}

async function configOf(entry: Entry): Promise<Config> {
  if (entry.config) return entry.config
  const { ConfigError } = await import('../../core/errors.js')
  throw new ConfigError(CONFIG_PATH, entry.problems)
}

/**
 * The configuration some bytes of config.yaml hold (the staged blob for the pre-commit hook); undefined: no config,
 * the defaults. ConfigError when the YAML is malformed or breaks the schema. With `commonDir`, through the cache: the
 * staged bytes' entry is kept beside the work tree's (entryFor).
 */
export async function configFromBytes(bytes: Uint8Array | undefined, commonDir?: string): Promise<Config> {
  return configOf((await entryFor(bytes, commonDir)).entry)
}

/** The work tree's configuration (the defaults without a file). ConfigError when it is unreadable or invalid. */
export async function readConfig(root: string, commonDir?: string): Promise<Config> {
  let bytes: Buffer | undefined
  try {
    bytes = readFileSync(join(root, CONFIG_PATH))
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      const { ConfigError } = await import('../../core/errors.js')
      throw new ConfigError(CONFIG_PATH, [`cannot read it: ${code ?? String(err)}`])
    }
  }
  return configOf((await entryFor(bytes, commonDir)).entry)
}

/**
 * The observe settings, never an error: a wrong value falls back to its default and `log` says so. Warm, it is a
 * stat of config.yaml and two small JSON files; the bytes are hashed (and YAML parsed, when the entry is missing)
 * only when config.yaml's stat changed. No config.yaml: the defaults.
 */
export async function readObserveSettings(
  root: string,
  commonDir: string,
  log: (msg: string) => void,
): Promise<ObserveSettings> {
  const st = statSync(join(root, CONFIG_PATH), { throwIfNoEntry: false })
  if (!st) return (await import('../../core/observation.js')).DEFAULT_OBSERVE_SETTINGS
  const key = `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` // ctime too: `cp -p` or `touch -r` can keep mtime and size
  const alias = join(commonDir, 'learn', OBSERVE_ALIAS)
  // Sample: {"aliases":[{"key":"68:1796…:1796…:3802071","entry":"config-96c7….json","root":"/src/app"}, …]}, newest
  // first: one per work tree (each has its own config.yaml, so its own key), its root beside it.
  let aliases: { key: string; entry: string; root?: unknown }[] = []
  try {
    const a = JSON.parse(readFileSync(alias, 'utf8')) as { aliases?: unknown }
    if (Array.isArray(a.aliases))
      aliases = a.aliases.filter(
        (x): x is { key: string; entry: string } =>
          isObject(x) &&
          typeof x['key'] === 'string' &&
          typeof x['entry'] === 'string' &&
          /^config-[0-9a-f]+\.json$/.test(x['entry']),
      )
    const known = aliases.find((x) => x.key === key)
    const hit = known && readEntry(join(commonDir, 'learn', 'cache', known.entry))
    if (hit) return hit.observe
  } catch {
    // No alias yet, or unreadable: find the entry by the bytes.
  }
  const { entry, file } = await entryFor(readConfigBytes(root), commonDir)
  for (const p of entry.observeProblems) log(p)
  if (file) {
    const { writeCacheFile } = await import('../state/cache-file.js')
    const mine = { key, entry: file.slice(file.lastIndexOf('config-')), root }
    // This work tree's older alias (its config.yaml since edited) and those of work trees gone (removed, moved) go.
    const others = aliases.filter(
      (x) => x.key !== key && x.root !== root && (typeof x.root !== 'string' || existsSync(x.root)),
    )
    writeCacheFile(alias, JSON.stringify({ aliases: [mine, ...others].slice(0, KEEP_ALIASES) }))
  }
  return entry.observe
}
