/**
 * A commit that adds one file on top of another commit, built with plumbing in this repository's object store
 * (hash-object, a temporary index via GIT_INDEX_FILE, read-tree, update-index, write-tree, commit-tree): the user's
 * index and work tree are never touched. Signed as the user's commit.gpgsign asks, like every lifecycle commit.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { makeTempDir, signFlag } from './commit.js'
import { onInterrupt } from './interrupt.js'
import { gitAsync } from './run.js'

export async function commitFileOnTop(
  root: string,
  base: string,
  file: { path: string; text: string },
  message: string,
  env: Record<string, string | undefined>,
  scratch?: string,
): Promise<string> {
  const tmp = makeTempDir('promote', scratch)
  const remove = () => rmSync(tmp, { recursive: true, force: true })
  const dropCleanup = onInterrupt(remove)
  const withIndex: Record<string, string | undefined> = { ...env, GIT_INDEX_FILE: join(tmp, 'index') }
  try {
    const blob = (await gitAsync(['hash-object', '-w', '--stdin'], { cwd: root, input: file.text })).toString().trim()
    await gitAsync(['read-tree', base], { cwd: root, input: '', env: withIndex })
    await gitAsync(['update-index', '--add', '--cacheinfo', `100644,${blob},${file.path}`], {
      cwd: root,
      input: '',
      env: withIndex,
    })
    const tree = (await gitAsync(['write-tree'], { cwd: root, input: '', env: withIndex })).toString().trim()
    const args = ['commit-tree', tree, '-p', base, ...(await signFlag(root)), '-F', '-']
    return (await gitAsync(args, { cwd: root, input: message, env: withIndex })).toString().trim()
  } finally {
    dropCleanup()
    remove()
  }
}
