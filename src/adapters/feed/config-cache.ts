import { createHash } from 'node:crypto'
import { join } from 'node:path'
import type { Config } from '../../core/config-schema.js'
import { writeCacheFileAlone } from '../state/cache-file.js'
import { isObject, readJson } from './cache-files.js'
import { CACHE_FORMAT, cacheDir, codeStamp, readConfigBytes } from './feed-key.js'

/**
 * `.learnings/config.yaml`, validated and merged with the defaults (src/adapters/store.ts readConfig), cached by
 * the hash of its bytes: a hit parses one small JSON file and loads neither yaml nor the validator. An invalid
 * file is never cached, so its ConfigError is thrown every time.
 */
export async function readConfigCached(root: string, commonDir: string): Promise<Config> {
  const bytes = readConfigBytes(root)
  const key = createHash('sha1')
    .update(`format ${CACHE_FORMAT}\n${codeStamp(createHash)}\n`)
    .update(bytes ?? 'no config')
    .digest('hex')
    .slice(0, 20)
  const dir = cacheDir(commonDir)
  const file = join(dir, `config-${key}.json`)
  const hit = readJson(file)
  if (isObject(hit) && hit['format'] === CACHE_FORMAT && isObject(hit['config'])) return hit['config'] as unknown as Config
  const { readConfig } = await import('../store/store.js')
  const config = await readConfig(root)
  writeCacheFileAlone(file, JSON.stringify({ format: CACHE_FORMAT, config }), 'config-')
  return config
}
