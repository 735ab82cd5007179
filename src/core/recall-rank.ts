/** Recall's ranking and threshold over the triggers of the recallable learnings (the failure path of the hook). */
import { compareCodeUnits, lowerBound } from './compare.js'
import { COMMON_ERROR_WORDS, ERROR_CODES, restatedWords, rewordings, serviceOfPort } from './error-words.js'
import { MARKER_WORDS, REMOTE_WORD, boundQuery } from './normalize-error.js'
import { processTerm, splitTerms, termsOf, termsOfBounded } from './terms.js'
import recallModel from './data/recall-model.json'

/**
 * Recall speaks when the failure holds what is specific in a learning's trigger, weighed by a model fitted on real
 * failures (src/core/data/recall-model.json, bench/recall-fit.mjs; docs/matching.md says how). Each trigger term weighs
 * its inverse document frequency over the store's triggers (BM25's idf), and a word found in almost every error message
 * (src/core/data/error-words.json `common`: error, failed, cannot, …) or a port no service is known by a fifth of that. A trigger the failure reaches is
 * described by a few figures (recallEvidence: the share of its weight the failure holds, the weight matched and the
 * weight missing); its evidence is those figures weighed by the model, and the learning of most evidence is named when
 * the model gives it a probability of being the fix of at least its threshold. Before that, a trigger the failure
 * contradicts is ruled out (ruledOut: a service port, a system error code, a marker word, this machine's address that
 * the failure does not name; another error code of a tool whose code the failure names), and so is one whose near-twin
 * holds a marker word of the failure that it lacks (preferMarked). An error the trigger says twice counts once
 * (recallTermsOf), and a file's extension counts nothing (extensionTerms).
 */
/** How much a common error word weighs beside a specific term of the same rarity. */
export const COMMON_TERM_FACTOR = 0.2
/** The types recall looks among (active learnings only); a pattern or anti-pattern only with an error trigger. */
export const RECALL_TYPES: readonly string[] = ['error-solution', 'anti-pattern', 'pattern']
export const RECALL_MAX_ITEMS = 2

// What an error trigger looks like: an error or exception name or an error code (case matters: "ENOENT", not "every"),
// or a failure word with its message ("Jest did not exit one second after the test run has completed"), or a tool's
// warning (git's "warning: in the working copy of …, LF will be replaced by CRLF").
const ERROR_NAME = /\b\w*(?:Error|Exception|Fault)\b|\bE[A-Z]{3,}\b|\bERR[!_]/
const FAILURE_WORD =
  /\b(?:error|fatal|panic|failed|fail|cannot|unable|refused|denied|not found|exit(?:ed)? (?:code|status)|did not exit|timed out|killed|traceback|warning)\b/i
const ERROR_LIKE = { test: (t: string) => ERROR_NAME.test(t) || FAILURE_WORD.test(t) }

/** Whether a learning of this type with these triggers is looked up by recall. */
export function isRecallable(type: string, triggers: readonly string[]): boolean {
  if (!RECALL_TYPES.includes(type) || !triggers.length) return false
  return type === 'error-solution' || triggers.some((t) => ERROR_LIKE.test(t))
}

/**
 * What recall searches: one entry per trigger of each recallable active learning (a learning with a list of
 * triggers has one entry per trigger, under the same name), each with the index terms of its trigger. Built with the
 * search cache; small enough to load on every failing tool call.
 */
export interface RecallIndex {
  names: string[]
  /** Tier weights (project 1.0). */
  weights: number[]
  /** Distinct index terms of each trigger (src/core/terms.ts termsOf), never empty. */
  triggers: string[][]
}

type RecallSource = { name: string; state: string; type: string; weight: number; triggers: readonly string[] }

/**
 * The recall terms of each trigger of a catalog entry (recallTermsOf, an empty list for a trigger without any), or
 * undefined when recall does not look the entry up. A pure function of the entry, so that the rebuild's parse worker
 * computes it beside the entry (src/adapters/feed/parse-file.ts). `indexed`: the terms of the entry's triggers as the
 * index counted them (search-parts.ts countDoc of buildSearchDoc's trigger field), which for one trigger are its
 * termsOf, so that the rebuild does not normalize and split the trigger a second time.
 */
export function entryRecallTerms(e: RecallSource, indexed?: readonly string[]): string[][] | undefined {
  if (e.state !== 'active' || !isRecallable(e.type, e.triggers)) return undefined
  // A single trigger's index terms are its search document's trigger field (buildSearchDoc), when counted already.
  if (indexed && e.triggers.length === 1) return [recallTermsOf(e.triggers[0] as string, new Set(indexed))]
  return e.triggers.map((t) => recallTermsOf(t))
}

/**
 * The recall entries of a catalog (recallable active learnings), and each entry's position in the catalog. `known`
 * gives an entry's entryRecallTerms when they were computed already (undefined: compute them here).
 */
export function buildRecallIndex(
  catalog: readonly RecallSource[],
  known?: (id: number) => string[][] | undefined,
): { index: RecallIndex; ids: number[] } {
  const index: RecallIndex = { names: [], weights: [], triggers: [] }
  const ids: number[] = []
  catalog.forEach((e, id) => {
    const terms = known?.(id) ?? entryRecallTerms(e)
    if (!terms) return
    for (const t of terms) {
      if (!t.length) continue
      ids.push(id)
      index.names.push(e.name)
      index.weights.push(e.weight)
      index.triggers.push(t)
    }
  })
  return { index, ids }
}

/**
 * A trigger's terms as recall weighs them: its index terms without the words that say its error a second time
 * (src/core/error-words.ts restatedWords). `ENOENT: no such file or directory` is one fact, counted once as `enoent`;
 * counted six times, it would be most of a trigger that any other missing file (`libssl.so: cannot open shared object
 * file: No such file or directory`) holds. `Module not found: Can't resolve 'fs'` is `modulenotfound` and `fs`, so a
 * failure to resolve another module holds half of it, not most. An error said once in words weighs once too, as its
 * canonical word (rewordedTerms): `Permission denied (publickey)` is `eacces` and `publickey`. A word said only as a
 * file's extension is left out (extensionTerms). `terms`: its termsOf, when known (they are changed).
 */
export function recallTermsOf(trigger: string, terms: Set<string> = termsOf(trigger)): string[] {
  for (const w of restatedWords(trigger)) {
    const t = processTerm(w)
    if (t) terms.delete(t)
  }
  for (const t of rewordedTerms(trigger)) terms.delete(t)
  for (const t of extensionTerms(trigger)) terms.delete(t)
  return [...terms]
}

// The extensions of files (a file's kind, not which file), after a name and a dot, at the end of the name: the
// `sh` of `entrypoint.sh`, not of `libc.so.6`'s `so` or of `safe.directory`; the name before the dot keeps its words.
const FILE_EXTENSIONS =
  'sh|bash|zsh|ps1|bat|yml|yaml|toml|ini|cfg|conf|txt|md|log|h|hpp|c|cc|cpp|so|dylib|dll|exe|rb|go|rs|java|jar|py|pyc|whl|js|mjs|cjs|jsx|ts|tsx|mts|cts|json|wasm|vue|css|scss|html|xml|csv|pem|crt|pub|zip|gz|tgz|tar|sql'
const FILE_EXTENSION = new RegExp(`(?<=[\\w-])\\.(${FILE_EXTENSIONS})(?![\\w.-])`, 'gi')

/**
 * The terms a text says only as a file's extension (`exec: "/entrypoint.sh": permission denied` says `sh` so; `/bin/sh:
 * /entrypoint.sh: not found` says it as a word too, the shell), which recall leaves out of a trigger and of a failure
 * alike: another file of the same kind tells nothing of the failure. runc refusing to run a script without its
 * executable bit (`exec: "/entrypoint.sh": permission denied`) met busybox's `/bin/sh: /entrypoint.sh: not found` in
 * the script's name and its `.sh`, most of a short trigger. A common word (`js`, `json`, `py`) weighs a fifth already,
 * and is left. Search keeps every term: a file named in full finds the learning that names it.
 */
export function extensionTerms(text: string): string[] {
  if (!text.includes('.')) return []
  const found = new Set<string>()
  for (const m of text.matchAll(FILE_EXTENSION)) found.add((m[1] as string).toLowerCase())
  if (!found.size) return []
  // Said as a word wherever the tokenizer finds one, also as a piece of `vue-loader` or `my_sh_tool` (splitTerms).
  const said = new Set(splitTerms(text.replace(FILE_EXTENSION, ' ')).map((w) => w.toLowerCase()))
  const out: string[] = []
  for (const ext of found) {
    if (said.has(ext)) continue
    const t = processTerm(ext)
    if (t && !COMMON.has(t)) out.push(t)
  }
  return out
}

/** The terms of a text's equivalent phrases that the rest of it does not say (error-words.ts rewordings). */
function rewordedTerms(text: string): string[] {
  const { phrases, rest } = rewordings(text)
  if (!phrases.length) return []
  const said = new Set(splitTerms(rest).map(processTerm))
  return phrases.map(processTerm).filter((t): t is string => !!t && !said.has(t))
}

/**
 * A failure's terms as recall matches them: its query terms (src/core/terms.ts buildQueryTerms) without the words of
 * its errors' equivalent phrases, which its canonical words stand for, and without a word said only as a file's
 * extension (as in a trigger: recallTermsOf). A "Permission denied (publickey)" then meets a trigger's "Permission to
 * owner/repo.git denied" in nothing but their code.
 */
export function recallQueryTerms(text: string): Set<string> {
  const bounded = boundQuery(text)
  const terms = new Set(termsOfBounded(bounded))
  for (const t of rewordedTerms(bounded)) terms.delete(t)
  for (const t of extensionTerms(bounded)) terms.delete(t)
  return terms
}

export interface RecallCandidate {
  /** Position in the RecallIndex. */
  doc: number
  /** The share of the trigger's term weight the error holds. */
  coverage: number
  /** The probability the model gives that this learning is the fix (src/core/data/recall-model.json). */
  score: number
}

/**
 * A RecallIndex inverted, as the hook reads it from the cache: the distinct trigger terms sorted, for each the
 * documents whose trigger holds it, and each document's total term weight. A failure's terms then reach only the
 * documents that share one, instead of every trigger being scanned (and parsed: 10,000 small arrays).
 */
export interface RecallPostings {
  names: string[]
  /** names[doc], when reading it costs less this way (the recall file decodes a name when first asked). */
  nameOf?: (doc: number) => string
  weights: number[]
  /** Sum of the weights (termWeight) of each document's distinct trigger terms. */
  totals: number[]
  terms: string[]
  postings: number[][]
}

const COMMON = new Set(COMMON_ERROR_WORDS.map((w) => processTerm(w)).filter((t): t is string => !!t))

/**
 * The weight of a trigger term: its idf over n triggers (df of them hold it), a fifth of it for a common word and for
 * a port no service is known by (`:::3000`, `localhost:8080`): one user's choice, which another's failure of the same
 * kind names differently or not at all (a well-known service port, `6379`, says which server, and weighs in full).
 */
export function termWeight(term: string, df: number, n: number): number {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
  return COMMON.has(term) || (SERVICE_PORT.test(term) && !isServicePort(term)) ? idf * COMMON_TERM_FACTOR : idf
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
  const n = index.triggers.length
  const totals = index.triggers.map((t) => {
    let sum = 0
    for (const x of [...new Set(t)].sort(compareCodeUnits)) sum += termWeight(x, (byTerm.get(x) as number[]).length, n)
    // Three decimals: the recall file is parsed on every failing tool call, and 17 digits a trigger add up at 10,000.
    return Math.round(sum * 1000) / 1000
  })
  return {
    names: index.names,
    weights: index.weights,
    totals,
    terms,
    postings: terms.map((x) => byTerm.get(x) as number[]),
  }
}

/**
 * What rules a trigger out (ruledOut): a service port, a system error code, a marker word, this machine's address, a
 * tool's error code other than the failure's; and (preferMarked) a reached trigger without the failure's marker word
 * when another reached trigger holds it.
 */
export const RECALL_RULES = ['port', 'code', 'marker', 'local', 'toolcode', 'prefer'] as const
export type RecallRule = (typeof RECALL_RULES)[number]

/** What recall's decision reads of a trigger the failure reaches, in this order (see recallEvidence). */
export const RECALL_FEATURES = ['coverage', 'matched', 'missing', 'explained', 'generic', 'address'] as const
export type RecallFeature = (typeof RECALL_FEATURES)[number]

/**
 * Recall's decision as data (src/core/data/recall-model.json, fitted by bench/recall-fit.mjs on the tuning queries of
 * the real-world set): a trigger's evidence is `intercept + weights · features + ln(tier weight)`; the learning of most
 * evidence (by its best trigger) is named when `sigmoid(evidence)` reaches `threshold`. A feature without a weight
 * counts nothing.
 */
export interface RecallModel {
  intercept: number
  weights: Partial<Record<RecallFeature, number>>
  threshold: number
}

export const RECALL_MODEL = recallModel as RecallModel

/**
 * The triggers a failure reaches (some term in common, none ruled out), ascending, and their features: those of
 * docs[i] at i × RECALL_FEATURES.length.
 */
export interface RecallEvidence {
  docs: number[]
  features: Float64Array
}

const F = RECALL_FEATURES.length
const AT = Object.fromEntries(RECALL_FEATURES.map((f, i) => [f, i])) as Record<RecallFeature, number>

/**
 * The features (RECALL_FEATURES) of every trigger that holds one of the failure's terms and that the failure does not
 * rule out (ruledOut):
 * - `coverage`: the share of the trigger's term weight the failure holds;
 * - `matched`: the weight of the trigger's terms the failure holds, in units of the weight of a term one trigger alone
 *   holds (a rare term counts about 1, a word every trigger holds about 0), so that it means the same in a store of
 *   ten triggers and of 100,000; `missing`: the weight of those it does not hold, in the same units;
 * The model weighs those three (src/core/data/recall-model.json); the others are measured for bench/recall-fit.mjs
 * (`--compare`), and cross-validation gives them nothing to add:
 * - `explained`: the matched weight over the weight of the failure's terms that any trigger holds;
 * - `generic`: 1 when every matched term is a common word (error, failed, cannot, …);
 * - `address`: 1 when the failure names both the trigger's service port and its system error code.
 * Only the postings of the failure's terms and of a fixed set of terms (ports, codes, markers) are read: no trigger is
 * scanned.
 */
export function recallEvidence(
  source: RecallIndex | RecallPostings,
  queryTerms: ReadonlySet<string>,
  rules: readonly RecallRule[] = RECALL_RULES,
): RecallEvidence {
  const index = 'triggers' in source ? invertRecall(source) : source
  const n = index.totals.length
  // The query's terms that some trigger holds, sorted (so each document's matched terms, and the float sum of their
  // weights, come in one order). Summed per document in typed arrays: a common term can reach thousands of triggers.
  const matched = new Float64Array(n)
  const specific = new Uint16Array(n)
  // For the triggers that name a service port or a system error code the failure names: bit 1 the port, bit 2 the code.
  const address = new Uint8Array(n)
  // The weight of the failure's terms that some trigger holds: what the store could explain of it.
  let known = 0
  for (const term of [...queryTerms].sort(compareCodeUnits)) {
    const at = lowerBound(index.terms, term)
    if (index.terms[at] !== term) continue
    const docs = index.postings[at] as number[]
    const weight = termWeight(term, docs.length, n)
    const isSpecific = !COMMON.has(term)
    const bit = isServicePort(term) ? 1 : CODES.includes(term) ? 2 : 0
    known += weight
    for (const doc of docs) {
      matched[doc] = (matched[doc] as number) + weight
      if (isSpecific) specific[doc] = (specific[doc] as number) + 1
      if (bit) address[doc] = (address[doc] as number) | bit
    }
  }
  for (const doc of ruledOut(index, queryTerms, rules)) matched[doc] = 0
  if (rules.includes('prefer')) preferMarked(index, queryTerms, matched)
  // A term one trigger alone holds weighs this much (termWeight with df 1): the unit of `matched` and `missing`.
  const unit = Math.log(1 + (n - 0.5) / 1.5) || 1
  const docs: number[] = []
  for (let doc = 0; doc < n; doc++) if (matched[doc]) docs.push(doc)
  const features = new Float64Array(docs.length * F)
  docs.forEach((doc, i) => {
    const sum = matched[doc] as number
    const total = index.totals[doc] as number
    const row = i * F
    features[row + AT.coverage] = total > 0 ? Math.min(1, sum / total) : 0
    features[row + AT.matched] = sum / unit
    features[row + AT.missing] = Math.max(0, total - sum) / unit
    features[row + AT.generic] = specific[doc] ? 0 : 1
    features[row + AT.address] = address[doc] === 3 ? 1 : 0
    features[row + AT.explained] = known > 0 ? sum / known : 0
  })
  return { docs, features }
}

/** A trigger's evidence under a model: its features weighed, plus the log of its tier weight (project: 0). */
export function evidenceOf(features: Float64Array, i: number, tierWeight: number, model = RECALL_MODEL): number {
  return model.intercept + evidenceWith(weightsOf(model), features, i, tierWeight)
}

// The model's weights by feature position (a feature without a weight: 0), computed once a model.
const byPosition = new WeakMap<RecallModel, Float64Array>()
function weightsOf(model: RecallModel): Float64Array {
  let w = byPosition.get(model)
  if (!w) byPosition.set(model, (w = Float64Array.from(RECALL_FEATURES, (f) => model.weights[f] ?? 0)))
  return w
}

function evidenceWith(w: Float64Array, features: Float64Array, i: number, tierWeight: number): number {
  // A tier of weight 0 (the schema allows it: "keep it, feed nothing from it") is never named, nor is a weight that is
  // not a number; log(0) is -Infinity, so the step from 0.001 to 0 is continuous.
  let s = tierWeight === 1 ? 0 : tierWeight > 0 ? Math.log(tierWeight) : -Infinity
  for (let f = 0, at = i * F; f < F; f++, at++) s += (w[f] as number) * (features[at] as number)
  return s
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z))

/**
 * The learnings recall names for a failure, best first, each learning once (its best trigger), at most `limit` of
 * them: those whose evidence (recallEvidence weighed by the model) gives a probability of being the fix of at least
 * the model's threshold, by evidence, then coverage, then name. The candidate's score is that probability.
 */
export function rankRecall(
  source: RecallIndex | RecallPostings,
  queryTerms: ReadonlySet<string>,
  limit = Infinity,
  model = RECALL_MODEL,
): RecallCandidate[] {
  const index = 'triggers' in source ? invertRecall(source) : source
  const nameOf = index.nameOf ?? ((doc: number) => index.names[doc] as string)
  const { docs, features } = recallEvidence(index, queryTerms)
  if (limit < 1) return []
  // The evidence a probability of `threshold` needs: only candidates above it are named, or have their name read.
  const needed = Math.log(model.threshold / (1 - model.threshold)) - model.intercept
  const w = weightsOf(model)
  const best = new Map<string, { evidence: number; c: RecallCandidate }>()
  docs.forEach((doc, i) => {
    const evidence = evidenceWith(w, features, i, index.weights[doc] ?? 1)
    if (!(evidence >= needed)) return
    const coverage = Math.round((features[i * F + AT.coverage] as number) * 1000) / 1000
    const c = { doc, coverage, score: Math.round(sigmoid(model.intercept + evidence) * 1000) / 1000 }
    const name = nameOf(doc)
    const prev = best.get(name)
    if (!prev || evidence > prev.evidence || (evidence === prev.evidence && coverage > prev.c.coverage))
      best.set(name, { evidence, c })
  })
  const order = (a: { evidence: number; c: RecallCandidate }, b: { evidence: number; c: RecallCandidate }) =>
    b.evidence - a.evidence || b.c.coverage - a.c.coverage || compareCodeUnits(nameOf(a.c.doc), nameOf(b.c.doc))
  // A few asked for (the hook asks for two): the first `limit` kept sorted as they come, rather than sorting every
  // candidate by name.
  const ranked: { evidence: number; c: RecallCandidate }[] = []
  for (const x of best.values()) {
    if (ranked.length >= limit && order(x, ranked[ranked.length - 1] as (typeof ranked)[number]) >= 0) continue
    let at = ranked.length
    while (at > 0 && order(x, ranked[at - 1] as (typeof ranked)[number]) < 0) at--
    ranked.splice(at, 0, x)
    if (ranked.length > limit) ranked.pop()
  }
  return ranked.map((x) => x.c)
}

const SERVICE_PORT = /^port(\d{2,5})$/

const CODES = ERROR_CODES.map((c) => processTerm(c) as string)
const MARKERS = MARKER_WORDS.map((w) => processTerm(w) as string)
const REMOTE = processTerm(REMOTE_WORD) as string
const LOCALHOST = processTerm('localhost') as string
const IN_USE = processTerm('EADDRINUSE') as string

const isServicePort = (term: string) => {
  const m = SERVICE_PORT.exec(term)
  return !!m && serviceOfPort(m[1] as string) !== undefined
}

/**
 * The triggers a failure contradicts, whatever else of them it holds:
 * - those naming a service's well-known port (`127.0.0.1:6379`, redis) when the failure does not name that port: the
 *   port says which server refused, and another service's refusal (or a client that never says where it connected)
 *   shares every other word of the trigger; and, when the failure names a service's port (`127.0.0.1:6443`, the
 *   Kubernetes API server), those naming another port and not that one (kubectl's `localhost:8080`, no kubeconfig);
 *   never a trigger of a port already in use (`EADDRINUSE` or its words: "port is already allocated"), whose port is
 *   whichever one the user published or listened on (`Bind for 0.0.0.0:3306 failed` is docker's same failure at
 *   MySQL's port);
 * - those naming a system error code (`ECONNREFUSED`, or its words: "Connection refused") when the failure does not
 *   name it, in code or in words: `listen EADDRINUSE … 0.0.0.0:5432` is not postgres refusing a connection, nor is a
 *   server's log "listening on IPv4 address 127.0.0.1, port 5432", however much of an `ECONNREFUSED 127.0.0.1:5432`
 *   trigger their addresses hold;
 * - those at `localhost` when the failure names other machines only (`connection to server at "postgres"
 *   (172.18.0.2)` is not a server that listens on the container's own loopback).
 * - when the failure names a tool's error code (Node's `ERR_OSSL_UNSUPPORTED`, TypeScript's `TS2593`), those naming
 *   another code of that tool and not the failure's: the code says which of the tool's errors it is, and its
 *   neighbours share the rest of its words (`error:1E08010C:DECODER routines::unsupported` is not Node 17's
 *   `digital envelope routines::unsupported`, `ERR_OSSL_EVP_UNSUPPORTED`). A failure that names no such code (the
 *   message pasted without its code line) contradicts nothing.
 * Only the postings of the port and code terms are read, not every trigger. (Cross-validation on the real-world set
 * keeps these: without any one of them recall names fewer right fixes or speaks on more unrelated failures.)
 */
function ruledOut(index: RecallPostings, queryTerms: ReadonlySet<string>, rules: readonly RecallRule[]): number[] {
  const out: number[] = []
  const postingsOf = (term: string) => {
    const at = lowerBound(index.terms, term)
    return index.terms[at] === term ? (index.postings[at] as number[]) : []
  }
  // The service ports the failure names, and the triggers that name one of them.
  const named = new Set<number>()
  for (const term of queryTerms) if (isServicePort(term)) for (const doc of postingsOf(term)) named.add(doc)
  const servicePorts = [...queryTerms].some(isServicePort)
  // A port already in use is whichever port the user published or listened on: it says nothing of the cause.
  const inUse = new Set(postingsOf(IN_USE))
  for (let at = lowerBound(index.terms, 'port'); rules.includes('port') && at < index.terms.length; at++) {
    const term = index.terms[at] as string
    if (!term.startsWith('port')) break
    if (!SERVICE_PORT.test(term) || queryTerms.has(term)) continue
    const docs = (index.postings[at] as number[]).filter((doc) => !inUse.has(doc))
    if (isServicePort(term)) out.push(...docs)
    else if (servicePorts) for (const doc of docs) if (!named.has(doc)) out.push(doc)
  }
  if (rules.includes('marker'))
    for (const marker of MARKERS) if (!queryTerms.has(marker)) out.push(...postingsOf(marker))
  if (rules.includes('local') && queryTerms.has(REMOTE) && !queryTerms.has(LOCALHOST))
    out.push(...postingsOf(LOCALHOST))
  if (rules.includes('code')) for (const code of CODES) if (!queryTerms.has(code)) out.push(...postingsOf(code))
  if (rules.includes('toolcode'))
    for (const tool of TOOL_CODES) {
      const said = [...queryTerms].filter((t) => tool.code.test(t))
      if (!said.length) continue
      const naming = new Set<number>()
      for (const code of said) for (const doc of postingsOf(code)) naming.add(doc)
      for (let at = lowerBound(index.terms, tool.from); at < index.terms.length; at++) {
        const term = index.terms[at] as string
        if (term >= tool.to) break
        if (!tool.code.test(term) || queryTerms.has(term)) continue
        for (const doc of index.postings[at] as number[]) if (!naming.has(doc)) out.push(doc)
      }
    }
  return out
}

/**
 * A marker word (MARKER_WORDS) the failure holds and a trigger it reaches holds too rules out the reached triggers
 * without it that are that trigger's near-twins: those naming the same endpoint (a port term the failure, the marked
 * trigger and they all hold). The marker tells near-twins apart, and the failure has said which twin it is (`connect
 * ECONNREFUSED ::1:27017` reaches both the IPv6-only learning's `::1:27017` and a server-down learning's
 * `127.0.0.1:27017`, and holds every word of the second's longer trigger). A trigger that names no such endpoint says
 * nothing of the marker and is no twin: npm's `connect ETIMEDOUT` without an address is not ruled out by another
 * trigger's `203.0.113.7 port 2222` because the failure's address is another machine's. Only the postings of the
 * marker and of the failure's port terms are read. `matched`: the reached triggers' matched weight, 0 when ruled out.
 */
function preferMarked(index: RecallPostings, queryTerms: ReadonlySet<string>, matched: Float64Array): void {
  const postingsOf = (term: string) => {
    const at = lowerBound(index.terms, term)
    return index.terms[at] === term ? (index.postings[at] as number[]) : []
  }
  const ports = [...queryTerms].filter((t) => SERVICE_PORT.test(t))
  if (!ports.length) return
  for (const marker of MARKERS) {
    if (!queryTerms.has(marker)) continue
    const keep = new Set(postingsOf(marker).filter((doc) => matched[doc]))
    if (!keep.size) continue
    for (const port of ports) {
      const docs = postingsOf(port)
      if (!docs.some((doc) => keep.has(doc))) continue
      for (const doc of docs) if (!keep.has(doc)) matched[doc] = 0
    }
  }
}

// A tool's error codes, each family the run of sorted terms from `from` up to `to` (the code unit after the last
// one a code holds there): Node's `ERR_*` (as terms, `err_ossl_evp_unsupported`) and TypeScript's `TS1234` (`ts7016`).
// pnpm's codes (`ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL`, printed around any failed script) are another tool's: they say
// the script failed, not which of Node's errors it was.
const TOOL_CODES = [
  { from: 'err_', to: 'err`', code: /^err_(?!pnpm_)[a-z0-9_]+$/ },
  { from: 'ts0', to: 'ts:', code: /^ts\d{4,5}$/ },
] as const
