/**
 * The one trust boundary in front of agents: every text that can reach an agent (a learning being added, imported
 * or approved, a tier's learnings, what context, recall and search print) passes these same two scans, secrets and
 * directives aimed at agents, through this one function.
 */
import { scanDirectives } from './directives.js'
import type { DirectiveFinding } from './directives.js'
import { scanSecrets } from './secrets.js'
import type { SecretFinding } from './secrets.js'

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

/** What the two scans find in one text, before reviewed fingerprints or accepted directives are applied to it. */
export interface TextScan {
  secrets: SecretFinding[]
  directives: DirectiveFinding[]
}

/**
 * Both scans of `text`: secrets (without the fingerprints in `allow`) and directives. Pure, so it can run in a worker
 * thread (src/adapters/feed/parse-worker.ts) and give what the scans run here would.
 */
export function scanForAgents(text: string, allow: readonly string[] = []): TextScan {
  return { secrets: scanSecrets(text, { allow }), directives: scanDirectives(text) }
}

/** The hazards in a text already scanned; directives are left out when a person accepted them. */
export function hazardsOf(scan: TextScan, directivesAllowed = false): AgentHazard[] {
  const out: AgentHazard[] = scan.secrets.map((s) => ({
    kind: 'secret',
    line: s.line,
    detail: `line ${s.line}, column ${s.column}: ${s.description} (${s.rule}): ${s.masked}; fingerprint ${s.fingerprint}`,
  }))
  if (!directivesAllowed)
    for (const d of scan.directives)
      out.push({ kind: 'directive', line: d.line, detail: `line ${d.line}: ${d.description}: "${d.excerpt}"` })
  return out
}

/** Secrets and agent directives in `text`, in that order; empty when it may reach an agent. */
export function findAgentHazards(text: string, opts: HazardOptions = {}): AgentHazard[] {
  const secrets = scanSecrets(text, { allow: opts.allow ?? [] })
  return hazardsOf({ secrets, directives: opts.directivesAllowed ? [] : scanDirectives(text) }, opts.directivesAllowed)
}

/** Why a learning is kept from agents, in one line (the feed's problem, render's and show's reason). */
export function withheldReason(hazards: readonly Pick<AgentHazard, 'kind' | 'line'>[]): string {
  const kinds = [
    ...new Set(hazards.map((h) => (h.kind === 'secret' ? 'a credential' : 'an instruction aimed at agents'))),
  ].join(' and ')
  return `withheld from agents: it holds ${kinds} (line ${hazards[0]?.line}); run \`git learn check\` for the finding`
}
