/**
 * `git learn tier add|list|update|remove|verify`: fetch a tier into refs/learn/tiers/<name>, pin the fetched commit
 * in config.yaml and commit that file alone (the ref is put back when the commit fails, unless a commit beside it
 * pinned that fetch), list the pins, move a pin with the learnings it adds, removes and changes, remove a tier (a
 * reviewed commit of config.yaml, then its ref), and verify refs and objects.
 */
import { assertNoOperationInProgress, assertStoreCheckedOut } from '../adapters/git/simple.js'
import { onInterrupt } from '../adapters/git/interrupt.js'
import { tryGitSync } from '../adapters/git/run.js'
import { commitTransition } from './transition.js'
import { assertNothingHalfDone } from './recovery.js'
import type { Git } from '../adapters/git/simple.js'
import { openRepo } from '../adapters/store/repo.js'
import { CONFIG_PATH } from '../adapters/store/config.js'
import { parseYamlMapping } from '../core/learning.js'
import {
  DEFAULT_TIER_WEIGHT,
  buildTierCommitMessage,
  planTierConfig,
  countTierLearnings,
  diffTierLearnings,
  fetchTier,
  readTierRef,
  tierRef,
  verifyTier,
} from '../adapters/feed/tiers.js'
import type { TierConfig, TierDiff } from '../adapters/feed/tiers.js'
import { RefusedError, TierUrlCredentialError, TransitionIncompleteError, UsageError } from '../core/errors.js'
import { findUrlCredentials, shownUrl } from '../core/git-args.js'

/** The configured tier of that name, or a usage error that lists the tiers there are. */
function findTier(tiers: readonly TierConfig[], name: string): TierConfig {
  const t = tiers.find((x) => x.name === name)
  if (!t)
    throw new UsageError(
      `no tier named "${name}" in .learnings/config.yaml; the tiers are: ${tiers.map((x) => x.name).join(', ') || 'none'}`,
      'tier',
    )
  return t
}

/**
 * Refuse a tier URL with a credential in it before anything is fetched or written: config.yaml is committed, and
 * the commit message names the URL as it is.
 */
function assertNoUrlCredential(name: string, url: string, inConfig: boolean): void {
  const found = findUrlCredentials(url)
  if (found.length) throw new TierUrlCredentialError(name, shownUrl(url), found, inConfig)
}

/**
 * Commit the new pin; when that fails, put refs/learn/tiers/<name> back where it was. Not when the commit landed and
 * only the index and work tree did not follow (TransitionIncompleteError): the pin in config.yaml names that ref's
 * commit, and `doctor --continue` finishes it (`--abort` puts config.yaml back; the ref then names a fetch unpinned).
 */
async function commitPin(git: Git, tier: TierConfig, message: string, before: string | undefined): Promise<string> {
  try {
    await assertNothingHalfDone(git)
    const c = await planTierConfig(git, tier)
    return await commitTransition(
      git,
      [{ kind: c.existed ? 'replace' : 'create', path: c.path, text: c.text }],
      message,
    )
  } catch (err) {
    if (err instanceof TransitionIncompleteError) throw err
    // Only while the ref still holds this fetch and no commit pins it there: another `tier update` beside us that
    // fetched the same commit and committed its pin keeps its ref (put back, the tier would fail `tier verify`).
    if (!(await pinnedInHead(git, tier)))
      await git.tryRun(
        before
          ? ['update-ref', tierRef(tier.name), before, tier.commit ?? '']
          : ['update-ref', '-d', tierRef(tier.name), tier.commit ?? ''],
      )
    throw err
  }
}

/**
 * While a fetch of `name` waits for its pin, a signal (adapters/git/interrupt.ts) puts refs/learn/tiers/<name> back
 * where it was (`before`; deleted when there was none), as a failed commit does, so that no fetch is left unpinned for
 * `doctor` to report. Not once HEAD's config.yaml names the fetched commit: the signal waited for that commit's
 * critical section, and the pin names the ref's commit (a commit id in config.yaml is only ever a pin). Synchronous,
 * as a cleanup is. `fetched` tells it the commit; the returned `drop` ends it.
 */
function restoreTierRefOnInterrupt(
  git: Git,
  name: string,
  before: string | undefined,
): { fetched: (commit: string) => void; drop: () => void } {
  let commit: string | undefined
  const drop = onInterrupt(() => {
    const config = commit ? tryGitSync(['show', `HEAD:${CONFIG_PATH}`], { cwd: git.root }) : undefined
    if (commit && config !== undefined && pins(config, name, commit)) return
    tryGitSync(before ? ['update-ref', tierRef(name), before] : ['update-ref', '-d', tierRef(name)], { cwd: git.root })
  })
  return { fetched: (c) => void (commit = c), drop }
}

/** Whether HEAD's config.yaml pins `tier` at its commit (false when it cannot be read). */
async function pinnedInHead(git: Git, tier: TierConfig): Promise<boolean> {
  const text = await git.tryRun(['show', `HEAD:${CONFIG_PATH}`])
  return text !== undefined && !!tier.commit && pins(text, tier.name, tier.commit)
}

/**
 * Whether a config.yaml text pins tier `name` at `commit`, read as config.yaml is everywhere (parseYamlMapping: aliases
 * bounded, keys unique). A text that is not such YAML pins it when it holds the commit id: a ref is never put back on a
 * guess (tier-orphans.ts reads names the same way).
 */
function pins(text: string, name: string, commit: string): boolean {
  let tiers: unknown
  try {
    tiers = parseYamlMapping(text)['tiers']
  } catch {
    return text.includes(commit)
  }
  const pin = (t: unknown) => t as { name?: unknown; commit?: unknown } | null
  return Array.isArray(tiers) && tiers.some((t) => pin(t)?.name === name && pin(t)?.commit === commit)
}

export interface TierAdded {
  tier: TierConfig
  learnings: number
  configCommit: string
}

export async function addTier(
  cwd: string,
  name: string,
  url: string,
  ref: string,
  weight: number | undefined,
): Promise<TierAdded> {
  const repo = await openRepo(cwd)
  const { git } = repo
  const config = await repo.config()
  if (config.tiers.some((t) => t.name === name))
    throw new RefusedError(`a tier named "${name}" is already configured`, [
      `run \`git learn tier update ${name}\` to move its pin, or pick another name`,
    ])
  assertNoUrlCredential(name, url, false)
  assertNoOperationInProgress(git)
  await assertStoreCheckedOut(git)
  const before = await readTierRef(git, name)
  const restore = restoreTierRefOnInterrupt(git, name, before)
  let tier: TierConfig
  let configCommit: string
  try {
    const commit = await fetchTier(git, name, url, ref)
    restore.fetched(commit)
    tier = { name, url, ref, commit, ...(weight !== undefined ? { weight } : {}) }
    configCommit = await commitPin(git, tier, buildTierCommitMessage('add', tier), before)
  } finally {
    restore.drop()
  }
  return { tier, learnings: await countTierLearnings(git, tier.commit as string), configCommit }
}

export interface TierRow {
  name: string
  url: string
  ref: string
  commit: string | null
  weight: number
  /** Active learnings at the pin; null when the pinned commit is not in this repository. */
  learnings: number | null
}

export async function listTiers(cwd: string): Promise<TierRow[]> {
  const repo = await openRepo(cwd)
  const { git } = repo
  const rows: TierRow[] = []
  for (const t of (await repo.config()).tiers) {
    const present = t.commit ? (await git.tryRun(['cat-file', '-e', `${t.commit}^{commit}`])) !== undefined : false
    rows.push({
      name: t.name,
      url: t.url,
      ref: t.ref ?? 'main',
      commit: t.commit ?? null,
      weight: t.weight ?? DEFAULT_TIER_WEIGHT,
      learnings: present && t.commit ? await countTierLearnings(git, t.commit) : null,
    })
  }
  return rows
}

export interface TierUpdated {
  name: string
  from: string | undefined
  to: string
  /** The learnings the new pin adds, removes and changes; null when the old pin is not here to compare. */
  diff: TierDiff | null
  /** The commit of config.yaml; null when the pin did not move. */
  configCommit: string | null
}

export async function updateTier(cwd: string, name: string): Promise<TierUpdated> {
  const repo = await openRepo(cwd)
  const { git } = repo
  const tier = findTier((await repo.config()).tiers, name)
  assertNoUrlCredential(tier.name, tier.url, true)
  assertNoOperationInProgress(git)
  await assertStoreCheckedOut(git)
  const before = await readTierRef(git, tier.name)
  const restore = restoreTierRefOnInterrupt(git, tier.name, before)
  try {
    const commit = await fetchTier(git, tier.name, tier.url, tier.ref ?? 'main')
    restore.fetched(commit)
    const old = tier.commit
    if (old === commit) return { name: tier.name, from: old, to: commit, diff: null, configCommit: null }
    const diff =
      old && (await git.tryRun(['cat-file', '-e', `${old}^{commit}`])) !== undefined
        ? await diffTierLearnings(git, old, commit)
        : null
    const next: TierConfig = { ...tier, commit }
    const configCommit = await commitPin(git, next, buildTierCommitMessage('update', next, old), before)
    return { name: tier.name, from: old, to: commit, diff, configCommit }
  } finally {
    restore.drop()
  }
}

export interface TierRemoved {
  name: string
  /** The commit the tier was pinned at, if any (named in the commit's trailers: the history keeps it). */
  pin: string | null
  configCommit: string
  /** Whether refs/learn/tiers/<name> was there and is now deleted. */
  refDeleted: boolean
}

/**
 * Take a tier out of config.yaml in a commit of that file alone, then delete refs/learn/tiers/<name> (only if it still
 * points where it did: a fetch beside us wins). Nothing is lost: the commit names the URL and the pin, so `tier add`
 * brings it back; the tier's learnings live in their own repository.
 */
export async function removeTier(cwd: string, name: string): Promise<TierRemoved> {
  const repo = await openRepo(cwd)
  const { git } = repo
  const tier = findTier((await repo.config()).tiers, name)
  assertNoOperationInProgress(git)
  await assertNothingHalfDone(git)
  await assertStoreCheckedOut(git)
  const c = await planTierConfig(git, { remove: tier.name })
  const ref = await readTierRef(git, tier.name)
  const configCommit = await commitTransition(
    git,
    [{ kind: 'replace', path: c.path, text: c.text }],
    buildTierCommitMessage('remove', tier),
  )
  const refDeleted =
    ref !== undefined && (await git.tryRun(['update-ref', '-d', tierRef(tier.name), ref])) !== undefined
  return { name: tier.name, pin: tier.commit ?? null, configCommit, refDeleted }
}

export interface TierVerified {
  name: string
  commit: string | null
  problems: Awaited<ReturnType<typeof verifyTier>>
}

/** Every tier (or the one named): its ref still at the pin, its objects intact. */
export async function verifyTiers(cwd: string, name: string | undefined): Promise<TierVerified[]> {
  const repo = await openRepo(cwd)
  const { tiers } = await repo.config()
  const results: TierVerified[] = []
  for (const t of name ? [findTier(tiers, name)] : tiers)
    results.push({ name: t.name, commit: t.commit ?? null, problems: await verifyTier(repo.git, t) })
  return results
}
