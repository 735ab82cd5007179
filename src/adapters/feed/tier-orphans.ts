/**
 * Tier refs that no config.yaml names: what a `tier add` killed between its fetch and its commit leaves (the ref
 * written, config.yaml not). Nothing reads such a ref (a tier is read through its pin in config.yaml) and a new
 * `tier add` of the name fetches over it, but it keeps the fetched objects and reads as a tier in `git for-each-ref`;
 * `git learn doctor` reports it and `--abort` deletes it.
 *
 * A ref is named when any config.yaml this repository could check out names it: a work tree's (every linked one),
 * the index's, HEAD's, each work tree's HEAD and every branch's, local and remote-tracking (a tier added on another
 * branch is that branch's). A config that cannot be read as YAML names every tier whose name it contains: a ref is
 * never called an orphan on a guess.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseCatFileBatch } from '../../core/git-output.js'
import { TIER_REF_PREFIX } from '../../core/layout.js'
import { parseYamlMapping } from '../../core/learning.js'
import { gitAsync } from '../git/run.js'
import type { Git } from '../git/simple.js'
import { CONFIG_PATH } from '../store/config.js'

export interface OrphanTierRef {
  /** `refs/learn/tiers/<name>` */
  ref: string
  /** The commit it points at (a delete is compare-and-swap against it). */
  commit: string
}

/** The tier refs of this repository that no config.yaml names, in ref order. */
export async function readOrphanTierRefs(git: Git): Promise<OrphanTierRef[]> {
  // Sample: "3f2c… refs/learn/tiers/org\n".
  const refs = (await git.run(['for-each-ref', '--format=%(objectname) %(refname)', TIER_REF_PREFIX]))
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ commit: l.slice(0, l.indexOf(' ')), ref: l.slice(l.indexOf(' ') + 1) }))
  if (!refs.length) return []
  const named = namesIn(await readConfigTexts(git), new Set(refs.map((r) => r.ref.slice(TIER_REF_PREFIX.length))))
  return refs.filter((r) => !named.has(r.ref.slice(TIER_REF_PREFIX.length)))
}

/** Every config.yaml text this repository could check out (see the module's comment). */
async function readConfigTexts(git: Git): Promise<string[]> {
  const texts: string[] = []
  const revs = new Set(['HEAD', ''])
  for (const r of (await git.run(['for-each-ref', '--format=%(refname)', 'refs/heads', 'refs/remotes'])).split('\n'))
    if (r) revs.add(r)
  // Sample: "worktree /path\nHEAD 3f2c…\nbranch refs/heads/main\n\nworktree /other\nHEAD 9a1b…\ndetached\n\n".
  for (const line of (await git.run(['worktree', 'list', '--porcelain'])).split('\n')) {
    if (line.startsWith('HEAD ')) revs.add(line.slice('HEAD '.length))
    const file = line.startsWith('worktree ') ? join(line.slice('worktree '.length), CONFIG_PATH) : undefined
    if (file && existsSync(file)) texts.push(readFileSync(file, 'utf8'))
  }
  // "<rev>:<path>" of each, and ":<path>" (the index); one missing answers "… missing", which parses to nothing.
  const input = [...revs].map((r) => `${r}:${CONFIG_PATH}`).join('\n') + '\n'
  const out = await gitAsync(['cat-file', '--batch'], { cwd: git.root, input })
  for (const o of parseCatFileBatch(out)) if (o.type === 'blob' && o.bytes) texts.push(Buffer.from(o.bytes).toString())
  return texts
}

/** The tier names the texts name; a text that is not YAML with a list of tiers names each candidate it contains. */
function namesIn(texts: readonly string[], candidates: ReadonlySet<string>): Set<string> {
  const named = new Set<string>()
  for (const text of new Set(texts)) {
    let tiers: unknown
    try {
      // As config.yaml is read everywhere: aliases bounded, keys unique (a text read otherwise names by substring).
      tiers = parseYamlMapping(text)['tiers'] ?? []
    } catch {
      tiers = undefined
    }
    const names = Array.isArray(tiers) ? tiers.map((t) => (t as { name?: unknown } | null)?.name) : [undefined]
    if (names.every((n) => typeof n === 'string')) for (const n of names) named.add(n as string)
    else for (const c of candidates) if (text.includes(c)) named.add(c)
  }
  return named
}
