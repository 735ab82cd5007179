import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { makeRepo } from '../../../helpers/repo.js'
import type { TestRepo } from '../../../helpers/repo.js'
import { VITEST_FAILURE, seedStore, storeStatus } from '../../../helpers/feed-store.js'

const NOW = new Date('2026-11-20T12:00:00Z')

/** What every reader of the compressed files prints: search and recall (catalog blocks), context, status, list. */
async function answers(repo: TestRepo) {
  const out = async (argv: string[], stdin?: string) => (await repo.cli(argv, { now: NOW, stdin })).stdout
  const recallPayload = JSON.stringify({ cwd: repo.root, hook_event_name: 'PostToolUseFailure', error: VITEST_FAILURE })
  return {
    search: await out(['search', '--json', '-'], VITEST_FAILURE),
    recall: await out(['recall', '--json'], recallPayload),
    context: await out(['context', '--json']),
    list: await out(['list', '--json']),
    prune: await out(['prune', '--json']),
  }
}

/** The rows of a listing or status file, emptied. */
const EMPTY = {
  project: { rows: [] },
  status: { name: [], tier: [], state: [], domain: [], confidence: [], created: [] },
}

const cacheDir = (repo: TestRepo) => join(repo.root, '.git', 'learn', 'cache')
const named = (repo: TestRepo, re: RegExp) => readdirSync(cacheDir(repo)).filter((f) => re.test(f))

describe('the compressed feed cache files', () => {
  test('are what the readers read: catalog blocks, listing and status rows deflated, no JSON copy beside them', async () => {
    const repo = makeRepo()
    seedStore(repo)
    await answers(repo)
    expect(named(repo, /^catalog-[0-9a-f]{20}\.deflate$/)).toHaveLength(1)
    expect(named(repo, /^project-[0-9a-f]{20}\.json\.deflate$/)).toHaveLength(1)
    expect(named(repo, /^status-[0-9a-f]{20}\.json\.deflate$/)).toHaveLength(1)
    expect(named(repo, /\.json$/).filter((f) => /^(catalog|project|status)-/.test(f))).toEqual([])
    const [project] = named(repo, /^project-/)
    const rows = JSON.parse(inflateRawSync(readFileSync(join(cacheDir(repo), project!))).toString('utf8'))
    expect(rows.rows.length).toBeGreaterThan(0)
  })

  test.each(['catalog', 'project', 'status'])(
    'a %s file damaged in place, of the format before (plain JSON), or of another format number is a miss',
    async (kind) => {
      const repo = makeRepo()
      seedStore(repo)
      const good = { ...(await answers(repo)), status: await storeStatus(repo, NOW) }
      expect(good.recall).toMatch(/vitest-esm-mock-hoisting/)
      const [file] = named(repo, new RegExp(`^${kind}-`))
      expect(file).toBeDefined()
      const path = join(cacheDir(repo), file!)
      const bytes = readFileSync(path)
      const inflated = JSON.parse(`[${inflateRawSync(bytes).toString('utf8')}]`)[0]
      const damages: Buffer[] = [
        // The same size, bytes flipped in the middle.
        Buffer.from(bytes.map((b, i) => (i > bytes.length / 4 && i < (3 * bytes.length) / 4 ? b ^ 0x5a : b))),
        // Plain JSON, as the format before wrote it.
        Buffer.from(JSON.stringify(inflated)),
        // Well-formed and deflated, but of an older format number and with no rows (read, it would print none); a
        // block of catalog rows has no format number: it holds one row less than its place says.
        kind === 'catalog'
          ? deflateRawSync(inflateRawSync(bytes).toString('utf8').split(',\n').slice(1).join(',\n'))
          : deflateRawSync(JSON.stringify({ ...inflated, format: 6, ...EMPTY[kind as 'project' | 'status'] })),
      ]
      for (const damaged of damages) {
        writeFileSync(path, damaged)
        expect({ ...(await answers(repo)), status: await storeStatus(repo, NOW) }).toEqual(good)
      }
    },
  )

  // context reads the status rows and only the catalog blocks of the lines it shows; a block that does not read back
  // sends it to the whole catalog, which rebuilds (run first here, so no other reader mends the cache before it).
  test('context on a damaged catalog block, read first, gives the same context', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const context = async () => (await repo.cli(['context', '--format', 'text'], { now: NOW })).stdout
    const good = await context()
    expect(await context()).toBe(good)
    const [file] = named(repo, /^catalog-/)
    const path = join(cacheDir(repo), file!)
    const bytes = readFileSync(path)
    writeFileSync(path, Buffer.from(bytes.map((b, i) => (i > 8 ? b ^ 0x5a : b))))
    expect(await context()).toBe(good)
    expect(good).toMatch(/Apply these:\n- /)
  })

  // Without the line lengths (missing, or not the size its rows need) context decides what fits from the entries
  // themselves: slower, the same text.
  test('context without a readable lines file gives the same context', async () => {
    const repo = makeRepo()
    seedStore(repo)
    repo.write('.learnings/config.yaml', 'context:\n  max_tokens: 300\n')
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'budget')
    const context = async () => (await repo.cli(['context', '--format', 'text'], { now: NOW })).stdout
    const good = await context()
    const [file] = named(repo, /^lines-/)
    const path = join(cacheDir(repo), file!)
    for (const damage of [() => rmSync(path), () => writeFileSync(path, Buffer.alloc(6))]) {
      damage()
      expect(await context()).toBe(good)
    }
    expect(good).toMatch(/\(\+\d+ more: /)
  })
})
