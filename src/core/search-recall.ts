/**
 * The recall hook's decisions, kept free of minisearch so the no-failure path of a PostToolUse hook loads almost
 * nothing: did the tool fail, and what is its error text. The threshold rule lives here too.
 */
import { compareCodeUnits, lowerBound, sortedHas } from './compare.js'
import { FAILING_RUN } from './recall-gate.js'

export interface HookPayload {
  session_id?: unknown
  cwd?: unknown
  hook_event_name?: unknown
  tool_name?: unknown
  tool_input?: unknown
  tool_response?: unknown
  tool_use_id?: unknown
  error?: unknown
}

export interface ToolFailure {
  event: string
  session: string | null
  cwd: string | null
  tool: string | null
  /** The failed call's id (its outcome is the next run of the same call: src/core/fix-outcomes.ts). */
  tool_use_id: string | null
  /** The error text to look up (at most MAX_ERROR_TEXT characters). */
  text: string
}

const MAX_ERROR_TEXT = 256 * 1024


const s = (v: unknown): string | null => (typeof v === 'string' && v ? v : null)

function textOf(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return ''
  try {
    return JSON.stringify(v)
  } catch {
    return ''
  }
}

/** The exit code in the text of a Gemini CLI shell result ("Exit Code: 1"), or undefined. */
function geminiExitCode(v: unknown): number | undefined {
  const m = typeof v === 'string' ? /(?:^|\n)Exit Code: (-?\d+)/.exec(v) : null
  return m ? Number(m[1]) : undefined
}

/** The failure a hook payload reports, or undefined when the tool succeeded (or the payload is not one). */
export function detectToolFailure(payload: unknown): ToolFailure | undefined {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return undefined
  const p = payload as HookPayload
  const event = s(p.hook_event_name) ?? 'PostToolUse'
  const base = { event, session: s(p.session_id), cwd: s(p.cwd), tool: s(p.tool_name), tool_use_id: s(p.tool_use_id) }
  const cut = (t: string) => (t.length > MAX_ERROR_TEXT ? t.slice(-MAX_ERROR_TEXT) : t)
  const error = textOf(p.error)
  const r = p.tool_response && typeof p.tool_response === 'object' && !Array.isArray(p.tool_response) ? (p.tool_response as Record<string, unknown>) : undefined
  // Gemini CLI's tool_response is {llmContent, returnDisplay, error?}; a failed shell command says "Exit Code: N" there.
  const out = r ? [textOf(r['stderr']), textOf(r['stdout']), textOf(r['error']), textOf(r['output']), textOf(r['llmContent'])].filter(Boolean).join('\n') : textOf(p.tool_response)
  if (event === 'PostToolUseFailure' || error) return { ...base, text: cut([error, out].filter(Boolean).join('\n')) }
  if (!r) return FAILING_RUN.test(out) ? { ...base, text: cut(out) } : undefined
  const code = r['exit_code'] ?? r['exitCode'] ?? r['returncode'] ?? r['code'] ?? geminiExitCode(r['llmContent'])
  const failed = (typeof code === 'number' && code !== 0) || r['interrupted'] === true || r['is_error'] === true || r['success'] === false || FAILING_RUN.test(out)
  return failed && out.trim() ? { ...base, text: cut(out) } : undefined
}

/**
 * Recall speaks only when the error contains most of a learning's trigger: at least RECALL_MIN_COVERAGE of the
 * trigger's index terms appear in the error, and at least two of them (one when the trigger has only one term).
 * Raw BM25 scores depend on the store's size, so the rule is on coverage, with the score only for ranking.
 */
export const RECALL_MIN_COVERAGE = 0.6
/** The types recall looks among (active learnings only). */
export const RECALL_TYPES: readonly string[] = ['error-solution', 'anti-pattern']
export const RECALL_MAX_ITEMS = 2

/** Whether a candidate passes the recall threshold. */
export function passesRecall(coverage: number, triggerTerms: number): boolean {
  return coverage >= RECALL_MIN_COVERAGE && coverage * triggerTerms >= Math.min(2, triggerTerms)
}

/**
 * What recall searches: the active error-solution and anti-pattern learnings that have a trigger, each with the
 * index terms of its trigger. Built with the search cache; small enough to load on every failing tool call.
 */
export interface RecallIndex {
  names: string[]
  /** Tier weights (project 1.0). */
  weights: number[]
  /** Distinct index terms of each trigger (src/core/terms.ts termsOf), never empty. */
  triggers: string[][]
}

export interface RecallCandidate {
  /** Position in the RecallIndex. */
  doc: number
  coverage: number
  /** Sum of the inverse document frequencies (over the triggers) of the matched trigger terms × coverage × tier weight. */
  score: number
}

/**
 * A RecallIndex inverted, as the hook reads it from the cache: the distinct trigger terms sorted, for each the
 * documents whose trigger holds it, and each document's number of trigger terms. A failure's terms then reach only
 * the documents that share one, instead of every trigger being scanned (and parsed: 10,000 small arrays).
 */
export interface RecallPostings {
  names: string[]
  weights: number[]
  lengths: number[]
  terms: string[]
  postings: number[][]
}

/** Invert the triggers (see RecallPostings). */
export function invertRecall(index: RecallIndex): RecallPostings {
  const byTerm = new Map<string, number[]>()
  index.triggers.forEach((t, doc) => {
    for (const x of new Set(t)) {
      const list = byTerm.get(x)
      if (list) list.push(doc)
      else byTerm.set(x, [doc])
    }
  })
  const terms = [...byTerm.keys()].sort(compareCodeUnits)
  return { names: index.names, weights: index.weights, lengths: index.triggers.map((t) => new Set(t).size), terms, postings: terms.map((x) => byTerm.get(x) as number[]) }
}

/**
 * The learnings whose trigger the error holds (passesRecall), best first by score: rare matched trigger terms count
 * more (BM25's idf over the triggers), a trigger matched in full more than one matched in part; then coverage, then
 * the name. Every candidate passes the threshold; the caller takes the first few.
 */
export function rankRecall(source: RecallIndex | RecallPostings, queryTerms: ReadonlySet<string>): RecallCandidate[] {
  const index = 'triggers' in source ? invertRecall(source) : source
  const n = index.lengths.length
  // The query's terms that some trigger holds, sorted (so each document's matched terms, and the float sum of their
  // idf, come in one order), with their documents.
  const present: { term: string; docs: number[] }[] = []
  for (const term of [...queryTerms].sort(compareCodeUnits)) {
    const at = lowerBound(index.terms, term)
    if (index.terms[at] === term) present.push({ term, docs: index.postings[at] as number[] })
  }
  // Count matched terms per document in a typed array: a common term can reach thousands of triggers, of which only
  // the few that pass the threshold are looked at again.
  const count = new Uint16Array(n)
  for (const { docs } of present) for (const doc of docs) count[doc] = (count[doc] as number) + 1
  const idf = (d: number) => Math.log(1 + (n - d + 0.5) / (d + 0.5))
  const out: RecallCandidate[] = []
  for (let doc = 0; doc < n; doc++) {
    const matched = count[doc] as number
    if (!matched) continue
    const len = index.lengths[doc] as number
    const coverage = matched / len
    if (!passesRecall(coverage, len)) continue
    let sum = 0
    for (const { docs } of present) if (sortedHas(docs, doc)) sum += idf(docs.length)
    out.push({ doc, coverage, score: Math.round(sum * coverage * (index.weights[doc] ?? 1) * 1000) / 1000 })
  }
  return out.sort((a, b) => b.score - a.score || b.coverage - a.coverage || compareCodeUnits(index.names[a.doc] as string, index.names[b.doc] as string))
}
