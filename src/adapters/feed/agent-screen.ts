/**
 * The screen of this project's learnings in front of agents (core/agent-safety.ts), in one place for every road out:
 * the feed's rebuild (context, recall, search), render and show. A text's scan (secrets without the reviewed
 * fingerprints of secrets.allow, and directives) gives the hazards, less the directives a person accepted for that
 * learning (`Learning-Directives-Allowed` trailers naming their fingerprints, read from git once, and only when a
 * directive is found).
 */
import type { AgentHazard, TextScan } from '../../core/agent-safety.js'
import { hazardsOf } from '../../core/agent-safety.js'
import type { DirectiveAcceptances } from '../../core/directive-trailer.js'
import type { Env } from '../git/run.js'

/** What keeps the learning `name` from agents, from its text's scan: empty when it may reach one. */
export type AgentScreen = (name: string, scan: TextScan) => Promise<AgentHazard[]>

/** The screen for the repository at `root`. */
export function projectScreen(root: string, env: Env): AgentScreen {
  let overrides: DirectiveAcceptances | undefined
  return async (name, scan) => {
    const hazards = hazardsOf(scan)
    if (!hazards.some((h) => h.kind === 'directive')) return hazards
    const [{ readDirectiveOverrides }, { acceptedFor, parseDirectivesAllowed }] = await Promise.all([
      import('../git/index-reader.js'),
      import('../../core/directive-trailer.js'),
    ])
    overrides ??= parseDirectivesAllowed(readDirectiveOverrides(root, env))
    return hazardsOf(scan, acceptedFor(overrides, name))
  }
}
