/**
 * Keeping what agents read in step with the store: after a merge, a checkout, or a command that moved learnings in or
 * out of active/, the targets the user rendered last (the render manifest's, never the config's default) are rendered
 * again, quietly. Where render never ran (no manifest), nothing is written. Never fails the command that called it.
 */
import type { Ctx } from './context.js'

export async function refreshRendered(ctx: Ctx, who: string): Promise<void> {
  const { locateRepo } = await import('../adapters/git/fast.js')
  const where = locateRepo(ctx.cwd)
  if (!where) return
  const { readRenderManifest } = await import('../adapters/agents/render.js')
  const manifest = readRenderManifest(where.commonDir)
  if (!manifest || !manifest.targets.length) return
  try {
    const mod = await import('./commands/render.js')
    const { parseCommandArgs } = await import('./parse-args.js')
    // The caller's --json owns stdout: render's own report stays out of it (--quiet prints warnings only, on stderr).
    await mod.run(parseCommandArgs(mod.spec, ['--quiet', ...manifest.targets.flatMap((t) => ['--target', t])]), ctx)
  } catch (err) {
    const { refreshRenderFailed } = await import('./messages/guards.js')
    ctx.stderr(refreshRenderFailed(who, (err as Error).message))
  }
}
