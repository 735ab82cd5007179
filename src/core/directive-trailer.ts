/**
 * The acceptance of directives (core/directives.ts) by a person: the `Learning-Directives-Allowed` trailer that names
 * their fingerprints, read back from commit messages, and the one decision of whether a finding is accepted. Apart
 * from the scan so that the messages that name the trailer load no scanner.
 */
import type { DirectiveFinding } from './directives.js'

/**
 * The trailer that accepts directives: `Learning-Directives-Allowed: <name> <fingerprint>[,<fingerprint>…]`, each
 * fingerprint one directive of that learning (scanDirectives). `add --allow-directives` records it; a commit whose
 * message carries it accepts them (check, the commit-msg hook, approve and the feed read HEAD's history).
 */
export const DIRECTIVES_ALLOWED_TRAILER = 'Learning-Directives-Allowed'

/** The trailer's value accepting `fingerprints` of the learning `name`. */
export function directivesAllowedValue(name: string, fingerprints: readonly string[]): string {
  return `${name} ${[...new Set(fingerprints)].join(',')}`
}

/** The whole trailer line, as a message names it for a person to put in a commit message. */
export function directivesAllowedLine(name: string, fingerprints: readonly string[]): string {
  return `${DIRECTIVES_ALLOWED_TRAILER}: ${directivesAllowedValue(name, fingerprints)}`
}

/** The fingerprints of `findings`, each once (none of a finding nobody can accept). */
export function fingerprintsOf(findings: readonly Pick<DirectiveFinding, 'fingerprint'>[]): string[] {
  return [...new Set(findings.flatMap((f) => (f.fingerprint === undefined ? [] : [f.fingerprint])))]
}

/**
 * What the trailers accept: per learning, the fingerprints named; and the learnings a trailer of an earlier version
 * (a name alone) accepts whole, whatever directive they hold.
 */
export interface DirectiveAcceptances {
  fingerprints: Map<string, Set<string>>
  byName: Set<string>
}

const FINGERPRINT = /^[a-z][a-z-]*:[0-9a-f]{16}$/

/**
 * A `Learning-Directives-Allowed: <name> [fingerprints]` line, list marks allowed: the name, then the rest of the line
 * (its trailing blanks cut in code). `[ \t]*[*-]?[ \t]*` and a lazy rest before `\s*$` took quadratic time in a
 * line of blanks (the commit-msg hook reads the user's message, CI a contributor's).
 */
const DIRECTIVES_ALLOWED = /^[ \t]*(?:[*-][ \t]*)?Learning-Directives-Allowed:[ \t]+(\S+)([^\n\r\u2028\u2029]*)/gm

/**
 * The acceptances in `message` (its trailers anywhere: squash merges fold messages together, list marks and all),
 * added to `into`. A trailer with a name and no fingerprint is an earlier version's: it accepts the name. One whose
 * words after the name hold no fingerprint accepts nothing.
 */
export function parseDirectivesAllowed(
  message: string,
  into: DirectiveAcceptances = { fingerprints: new Map(), byName: new Set() },
): DirectiveAcceptances {
  for (const m of message.matchAll(DIRECTIVES_ALLOWED)) {
    const name = m[1] as string
    // The words after the name, to the line's end less its trailing blanks.
    const rest = (m[2] as string).replace(/^[ \t]+/, '').trimEnd()
    if (!rest) {
      into.byName.add(name)
      continue
    }
    const named = rest.split(/[\s,]+/).filter((f) => FINGERPRINT.test(f))
    if (!named.length) continue
    let set = into.fingerprints.get(name)
    if (!set) into.fingerprints.set(name, (set = new Set()))
    for (const f of named) set.add(f)
  }
  return into
}

/**
 * Whether the directive of the learning `name` with `fingerprint` is accepted, and how: by its fingerprint, or by the
 * name alone (an earlier version's trailer, accepting whatever the learning holds) while no trailer names a
 * fingerprint of that learning: once one does, only the fingerprints named are. A finding without a fingerprint (a
 * frontmatter too large to screen) never is. The one decision every road takes: check, the commit-msg hook, add,
 * approve, and the feed's screen (context, recall, search, show, render).
 */
export function directiveAcceptance(
  acceptances: DirectiveAcceptances | undefined,
  name: string,
  fingerprint: string | undefined,
): 'fingerprint' | 'name' | undefined {
  if (!acceptances || fingerprint === undefined) return undefined
  const named = acceptances.fingerprints.get(name)
  if (named) return named.has(fingerprint) ? 'fingerprint' : undefined
  return acceptances.byName.has(name) ? 'name' : undefined
}

/** directiveAcceptance as a test of one learning's findings. */
export function acceptedFor(
  acceptances: DirectiveAcceptances,
  name: string,
): (d: Pick<DirectiveFinding, 'fingerprint'>) => boolean {
  return (d) => directiveAcceptance(acceptances, name, d.fingerprint) !== undefined
}
