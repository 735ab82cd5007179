/**
 * The one trust boundary in front of agents: every text that can reach an agent (a learning being added, imported
 * or approved, a tier's learnings, what context, recall and search print) passes these same two scans, secrets and
 * directives aimed at agents, through this one function.
 */
import { scanDirectives } from './directives.js'
import { scanSecrets } from './secrets.js'

export interface AgentHazard {
  kind: 'secret' | 'directive'
  /** 1-based line in the text. */
  line: number
  /** One line for a message: the rule and the masked value (secrets) or the excerpt (directives). */
  detail: string
}

export interface HazardOptions {
  /** Reviewed secret fingerprints (secrets.allow). */
  allow?: readonly string[]
  /** Directives were accepted by a person for this learning (--allow-directives, recorded as a trailer). */
  directivesAllowed?: boolean
}

/** Secrets and agent directives in `text`, in that order; empty when it may reach an agent. */
export function findAgentHazards(text: string, opts: HazardOptions = {}): AgentHazard[] {
  const out: AgentHazard[] = scanSecrets(text, { allow: opts.allow ?? [] }).map((s) => ({
    kind: 'secret',
    line: s.line,
    detail: `line ${s.line}, column ${s.column}: ${s.description} (${s.rule}): ${s.masked}; fingerprint ${s.fingerprint}`,
  }))
  if (!opts.directivesAllowed)
    for (const d of scanDirectives(text))
      out.push({ kind: 'directive', line: d.line, detail: `line ${d.line}: ${d.description}: "${d.excerpt}"` })
  return out
}
