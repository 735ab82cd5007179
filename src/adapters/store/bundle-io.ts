/**
 * Reading a bundle from a file or an https URL, bounded in size and time, and decoding it (JSON or YAML with
 * the alias limit). Everything received is hostile until core/bundle.ts's parseBundle has checked its shape.
 */
import { isAbsolute, join } from 'node:path'
import { BundleRefusedError, BundleUnreachableError } from '../../core/errors.js'
import { parseYamlMapping } from '../../core/learning.js'
import { readFileBounded } from './read-bounded.js'
import type { BoundedRead } from './read-bounded.js'

/**
 * Largest bundle read, in bytes: room for what `export` writes of 10,000 learnings (MAX_BUNDLE_ENTRIES; ~12 MB for
 * typical ones), and export refuses to write a bundle over it, so the two agree.
 */
export const MAX_BUNDLE_BYTES = 64 * 1024 * 1024
/** How long a URL may take to answer and send its body. */
export const FETCH_TIMEOUT_MS = 10_000

// A scheme of two or more letters (so "C:\\x" stays a path): http:, file:, ftp: are refused, not read as files.
const isUrl = (src: string) => /^[a-z][a-z0-9+.-]+:/i.test(src)

/** Read a bundle file of at most `max` bytes without reading more than max + 1 of it. */
function readBundleFile(path: string, max: number, source: string): Buffer {
  let r: BoundedRead
  try {
    r = readFileBounded(path, max, { regularOnly: true })
  } catch (err) {
    throw new BundleUnreachableError(source, `cannot open it (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  if (!r.regular) throw new BundleRefusedError(source, ['it is not a regular file'])
  if (r.over)
    throw new BundleRefusedError(source, [
      `it is ${r.size ?? `more than ${max}`} bytes; a bundle may be at most ${max} bytes (${Math.round(max / 1048576)} MB)`,
    ])
  return r.bytes
}

const MAX_REDIRECTS = 5

/**
 * GET an https URL with a timeout (for the whole exchange) and a size cap. Redirects are followed by hand, and only
 * to https: a redirect to http is refused before any request is made to it.
 */
async function fetchBounded(url: string, max: number, timeoutMs: number): Promise<Buffer> {
  const signal = AbortSignal.timeout(timeoutMs)
  let res: Response
  let at = url
  for (let hops = 0; ; hops++) {
    try {
      res = await fetch(at, {
        signal,
        redirect: 'manual',
        headers: { accept: 'application/json, application/yaml, text/plain' },
      })
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } }
      const why =
        e.name === 'TimeoutError'
          ? `no answer within ${timeoutMs / 1000} s`
          : (e.cause?.code ?? e.cause?.message ?? e.message)
      throw new BundleUnreachableError(url, why)
    }
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null
    if (location === null) break
    await res.body?.cancel().catch(() => undefined)
    const next = new URL(location, at).href
    if (!next.startsWith('https://'))
      throw new BundleRefusedError(url, [`it redirected to ${next.slice(0, 200)}, which is not https`])
    if (hops >= MAX_REDIRECTS) throw new BundleUnreachableError(url, `more than ${MAX_REDIRECTS} redirects`)
    at = next
  }
  if (!res.ok) throw new BundleUnreachableError(url, `the server answered ${res.status} ${res.statusText}`)
  const declared = Number(res.headers.get('content-length') ?? 'NaN')
  if (declared > max) {
    await res.body?.cancel()
    throw new BundleRefusedError(url, [
      `it is ${declared} bytes; a bundle may be at most ${max} bytes (${Math.round(max / 1048576)} MB)`,
    ])
  }
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of res.body ?? []) {
      size += (chunk as Uint8Array).byteLength
      if (size > max) {
        await res.body?.cancel().catch(() => undefined)
        throw new BundleRefusedError(url, [
          `it is more than ${max} bytes; a bundle may be at most ${max} bytes (${Math.round(max / 1048576)} MB)`,
        ])
      }
      chunks.push(chunk as Uint8Array)
    }
  } catch (err) {
    if (err instanceof BundleRefusedError) throw err
    throw new BundleUnreachableError(
      url,
      (err as Error).name === 'TimeoutError'
        ? `the body did not arrive within ${timeoutMs / 1000} s`
        : String((err as Error).message),
    )
  }
  return Buffer.concat(chunks)
}

/** Decode a bundle's bytes: UTF-8, then JSON when it looks like JSON, else YAML (aliases bounded). */
export function decodeBundle(bytes: Uint8Array, source: string): unknown {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new BundleRefusedError(source, ['it is not UTF-8 text'])
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const trimmed = text.trimStart()
  try {
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) return JSON.parse(text) as unknown
    return parseYamlMapping(text, 'a bundle')
  } catch (err) {
    // RangeError: nesting so deep the parser ran out of stack; ReferenceError/YAMLError: too many aliases.
    const first = String((err as Error).message ?? err)
      .split('\n')[0]
      ?.slice(0, 200)
    throw new BundleRefusedError(source, [`it is not a valid JSON or YAML document: ${first}`])
  }
}

/** The raw bundle at `src` (a path relative to `cwd`, or an https URL), decoded but not yet shape-checked. */
export async function readBundleSource(
  src: string,
  cwd: string,
  opts: { maxBytes?: number; timeoutMs?: number } = {},
): Promise<unknown> {
  const max = opts.maxBytes ?? MAX_BUNDLE_BYTES
  if (isUrl(src)) {
    if (!/^https:\/\//i.test(src))
      throw new BundleRefusedError(src, [
        `only https:// URLs are fetched (not ${src.split(':')[0]}:); download it yourself and import the file if you trust it`,
      ])
    return decodeBundle(await fetchBounded(src, max, opts.timeoutMs ?? FETCH_TIMEOUT_MS), src)
  }
  return decodeBundle(readBundleFile(isAbsolute(src) ? src : join(cwd, src), max, src), src)
}
