/**
 * What skips a learning of a tier (tiers.ts, and the tier's index in tier-file.ts): the parse, the schema, and the
 * screen every road to an agent passes (core/agent-safety.ts). Apart from tier-file.ts so that reading a tier's
 * learnings loads no index code.
 */
import { findAgentHazards } from '../../core/agent-safety.js'
import { reasonOf } from '../../core/errors.js'
import { parseLearning, validateLearning } from '../../core/learning.js'
import type { Learning } from '../../core/learning.js'
import type { SchemaValidator } from '../../core/validate.js'

/** How a tier learning's skip reason begins when the screen withheld it (show reads the rest as its findings). */
export const WITHHELD_FROM_AGENTS = 'withheld from agents: '

/**
 * Why a tier learning is skipped, as its warning says: it does not parse or fails the schema ('invalid learning: …'),
 * or it holds a credential or an instruction aimed at agents ('withheld from agents: …', the same screen as `add`:
 * a tier is another repository's text); the learning when it may be indexed.
 */
export function tierSkipReason(text: string, path: string, validator: SchemaValidator): string | Learning {
  let learning: Learning
  try {
    learning = parseLearning(text, path)
    const { errors } = validateLearning(learning, validator)
    if (errors.length) throw new Error(errors.join('; '))
    const hazards = findAgentHazards(text, { data: learning.data })
    if (hazards.length)
      return `${WITHHELD_FROM_AGENTS}${hazards.map((h) => `${h.kind === 'secret' ? 'a credential' : 'an instruction aimed at agents'} at line ${h.line}`).join('; ')}`
  } catch (err) {
    return `invalid learning: ${reasonOf(err)}`
  }
  return learning
}
