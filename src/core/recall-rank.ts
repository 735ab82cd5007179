/** Recall's ranking and threshold over the triggers of the recallable learnings (the failure path of the hook). */
import { compareCodeUnits, lowerBound } from './compare.js'
import {
  COMMON_ERROR_WORDS,
  EQUIVALENT_PHRASES,
  ERROR_CODES,
  restatedWords,
  rewordings,
  serviceOfPort,
} from './error-words.js'
import { MARKER_WORDS, REMOTE_WORD, boundQuery } from './normalize-error.js'
import { processTerm, splitTerms, termsOf, termsOfBounded } from './terms.js'

/**
 * Recall speaks when the error holds what is specific in a learning's trigger. Each trigger term weighs its inverse
 * document frequency over the store's triggers (BM25's idf), and a word found in almost every error message
 * (src/core/data/error-words.json `common`: error, failed, cannot, …) a fifth of that. The share of the trigger's
 * weight the error holds must reach RECALL_MIN_WEIGHTED_COVERAGE, and at least one matched term must be specific (not
 * common). So "Error: connect ETIMEDOUT" does not recall a learning for "connect ECONNREFUSED 127.0.0.1:6379" (it
 * holds only the common words), while a Python "Error 111 connecting to localhost:6379. Connection refused" does
 * (equivalent words and the port's service make the specific terms meet). Raw BM25 scores depend on the store's size,
 * so the rule is a share, with the score only for ranking. An error the trigger says twice counts once
 * (recallTermsOf); a trigger naming a service's port needs that port, one naming a system error code that code (in
 * code or in words), and one holding a marker word (src/core/normalize-error.ts MARKER_WORDS: `ipv6`, `extensionless`,
 * `remotehost`, `unqualifiedhost`) needs that word (ruledOut). A trigger whose service port and system error code the failure both
 * names passes whatever its client's other words (`MongooseServerSelectionError: connect ECONNREFUSED 127.0.0.1:27017`
 * and mongosh's "Unable to connect: connect ECONNREFUSED 127.0.0.1:27017" are one refusal). And the pick must lead: no
 * other learning may hold more of the failure (isLeading), or recall stays silent rather than guess between them.
 */
export const RECALL_MIN_WEIGHTED_COVERAGE = 0.6
/** How much a common error word weighs beside a specific term of the same rarity. */
export const COMMON_TERM_FACTOR = 0.2
/**
 * A learning's name (its words, as the terms of its trigger are weighed) counts this share beside its trigger when
 * recall checks that its pick is the learning the failure is most about (see rankRecall).
 */
export const NAME_TERM_FACTOR = 0.3
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

/** Whether a candidate passes the recall threshold: enough of its trigger's weight, and a specific term among it. */
export function passesRecall(weightedCoverage: number, specificMatched: number): boolean {
  return weightedCoverage >= RECALL_MIN_WEIGHTED_COVERAGE && specificMatched > 0
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
 * computes it beside the entry (src/adapters/feed/parse-file.ts).
 */
export function entryRecallTerms(e: RecallSource): string[][] | undefined {
  if (e.state !== 'active' || !isRecallable(e.type, e.triggers)) return undefined
  return e.triggers.map(recallTermsOf)
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
 * canonical word (rewordedTerms): `Permission denied (publickey)` is `eacces` and `publickey`.
 */
export function recallTermsOf(trigger: string): string[] {
  const terms = termsOf(trigger)
  for (const w of restatedWords(trigger)) {
    const t = processTerm(w)
    if (t) terms.delete(t)
  }
  for (const t of rewordedTerms(trigger)) terms.delete(t)
  return [...terms]
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
 * its errors' equivalent phrases, which its canonical words stand for (as in a trigger: recallTermsOf). A "Permission
 * denied (publickey)" then meets a trigger's "Permission to owner/repo.git denied" in nothing but their code.
 */
export function recallQueryTerms(text: string): Set<string> {
  const bounded = boundQuery(text)
  const terms = new Set(termsOfBounded(bounded))
  for (const t of rewordedTerms(bounded)) terms.delete(t)
  return terms
}

export interface RecallCandidate {
  /** Position in the RecallIndex. */
  doc: number
  /** The share of the trigger's term weight the error holds. */
  coverage: number
  /** Sum of the weights of the matched trigger terms × coverage × tier weight. */
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
  /**
   * The distinct terms of the names' words (split at `-`, processTerm), sorted, and for each the documents whose name
   * holds it:
   * isLeading weighs the names a failure reaches from these, without reading (or stemming) a name.
   */
  nameTerms: string[]
  namePostings: number[][]
}

const DIGITS = /^\d*$/

const COMMON = new Set(COMMON_ERROR_WORDS.map((w) => processTerm(w)).filter((t): t is string => !!t))

/** The weight of a trigger term: its idf over n triggers (df of them hold it), a fifth of it for a common word. */
export function termWeight(term: string, df: number, n: number): number {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
  return COMMON.has(term) ? idf * COMMON_TERM_FACTOR : idf
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
  // Names are mostly unique (a tier of 100,000), their words mostly not: each word is processed once, a number
  // (never a term) not at all, and a document is added once to a term its name says twice.
  const byName = new Map<string, number[]>()
  const termOfWord = new Map<string, string | null>()
  index.names.forEach((name, doc) => {
    for (const word of name.split('-')) {
      if (DIGITS.test(word)) continue
      let x = termOfWord.get(word)
      if (x === undefined) termOfWord.set(word, (x = processTerm(word)))
      if (!x) continue
      const list = byName.get(x)
      if (!list) byName.set(x, [doc])
      else if (list[list.length - 1] !== doc) list.push(doc)
    }
  })
  const nameTerms = [...byName.keys()].sort(compareCodeUnits)
  return {
    names: index.names,
    weights: index.weights,
    totals,
    terms,
    postings: terms.map((x) => byTerm.get(x) as number[]),
    nameTerms,
    namePostings: nameTerms.map((x) => byName.get(x) as number[]),
  }
}

/**
 * The learnings whose trigger the error holds (passesRecall), best first by score, each learning once (its best
 * trigger): rare matched trigger terms count more, a trigger matched in full more than one matched in part; then
 * coverage, then the name; at most `limit` of them. Every candidate passes the threshold and no trigger the failure
 * rules out is among them.
 */
export function rankRecall(
  source: RecallIndex | RecallPostings,
  queryTerms: ReadonlySet<string>,
  limit = Infinity,
): RecallCandidate[] {
  const index = 'triggers' in source ? invertRecall(source) : source
  const n = index.totals.length
  const nameOf = index.nameOf ?? ((doc: number) => index.names[doc] as string)
  // The query's terms that some trigger holds, sorted (so each document's matched terms, and the float sum of their
  // weights, come in one order), with their documents.
  const present: { term: string; docs: number[]; weight: number; specific: boolean }[] = []
  for (const term of [...queryTerms].sort(compareCodeUnits)) {
    const at = lowerBound(index.terms, term)
    if (index.terms[at] !== term) continue
    const docs = index.postings[at] as number[]
    present.push({ term, docs, weight: termWeight(term, docs.length, n), specific: !COMMON.has(term) })
  }
  // Sum matched weight per document in a typed array: a common term can reach thousands of triggers, of which only the
  // few that pass the threshold are looked at again.
  const matched = new Float64Array(n)
  const specific = new Uint16Array(n)
  // For the triggers that name a service port or a system error code the failure names: bit 1 the port, bit 2 the code.
  const address = new Map<number, number>()
  for (const p of present) {
    const bit = isServicePort(p.term) ? 1 : CODES.includes(p.term) ? 2 : 0
    for (const doc of p.docs) {
      matched[doc] = (matched[doc] as number) + p.weight
      if (p.specific) specific[doc] = (specific[doc] as number) + 1
      if (bit) address.set(doc, (address.get(doc) ?? 0) | bit)
    }
  }
  for (const doc of ruledOut(index, queryTerms)) matched[doc] = 0
  const best = new Map<string, RecallCandidate>()
  for (let doc = 0; doc < n; doc++) {
    const sum = matched[doc] as number
    if (!sum) continue
    const total = index.totals[doc] as number
    const coverage = total > 0 ? Math.min(1, sum / total) : 0
    if (!passesRecall(coverage, specific[doc] as number) && address.get(doc) !== 3) continue
    const c = {
      doc,
      coverage: Math.round(coverage * 1000) / 1000,
      score: Math.round(sum * coverage * (index.weights[doc] ?? 1) * 1000) / 1000,
    }
    const name = nameOf(doc)
    const prev = best.get(name)
    if (!prev || c.score > prev.score || (c.score === prev.score && c.coverage > prev.coverage)) best.set(name, c)
  }
  const order = (a: RecallCandidate, b: RecallCandidate) =>
    b.score - a.score || b.coverage - a.coverage || compareCodeUnits(nameOf(a.doc), nameOf(b.doc))
  // A few asked for (the hook asks for two): the first `limit` kept sorted as they come, rather than sorting every
  // candidate by name (a common failure passes thousands of triggers at 100,000 learnings).
  let ranked: RecallCandidate[] = []
  if (limit >= best.size) ranked = [...best.values()].sort(order)
  else if (limit < 1) return []
  else
    for (const c of best.values()) {
      if (ranked.length >= limit && order(c, ranked[ranked.length - 1] as RecallCandidate) >= 0) continue
      let at = ranked.length
      while (at > 0 && order(c, ranked[at - 1] as RecallCandidate) < 0) at--
      ranked.splice(at, 0, c)
      if (ranked.length > limit) ranked.pop()
    }
  const pick = ranked[0]
  return pick && isLeading(index, queryTerms, matched, pick.doc, nameOf) ? ranked : []
}

const SERVICE_PORT = /^port(\d{2,5})$/

const CODES = ERROR_CODES.map((c) => processTerm(c) as string)
const MARKERS = MARKER_WORDS.map((w) => processTerm(w) as string)
const REMOTE = processTerm(REMOTE_WORD) as string
const LOCALHOST = processTerm('localhost') as string

const isServicePort = (term: string) => {
  const m = SERVICE_PORT.exec(term)
  return !!m && serviceOfPort(m[1] as string) !== undefined
}

/**
 * The triggers a failure rules out whatever else of them it holds:
 * - those naming a service's well-known port (`127.0.0.1:6379`, redis) when the failure does not name that port: the
 *   port says which server refused, and another service's refusal (or a client that never says where it connected)
 *   shares every other word of the trigger; and, when the failure names a service's port (`127.0.0.1:6443`, the
 *   Kubernetes API server), those naming another port and not that one (kubectl's `localhost:8080`, no kubeconfig);
 * - those naming a system error code (`ECONNREFUSED`, or its words: "Connection refused") when the failure does not
 *   name it, in code or in words: `listen EADDRINUSE … 0.0.0.0:5432` is not postgres refusing a connection, nor is a
 *   server's log "listening on IPv4 address 127.0.0.1, port 5432", however much of an `ECONNREFUSED 127.0.0.1:5432`
 *   trigger their addresses hold;
 * - those holding a marker word the failure does not hold: an `ipv6` trigger (Mongoose reaching `::1` while mongod
 *   listens on IPv4 only) says nothing of a failure refused at 127.0.0.1 too, an `extensionless` one (an ES module
 *   import without `.js`) nothing of a module named in full that is missing, a `remotehost` one (a database container
 *   not ready yet) nothing of a server refusing on this machine, an `unqualifiedhost` one (a compose service's name)
 *   nothing of an internet host that did not resolve;
 * - those at `localhost` when the failure names other machines only (`connection to server at "postgres"
 *   (172.18.0.2)` is not a server that listens on the container's own loopback).
 * Only the postings of the port, code and marker terms are read, not every trigger.
 */
function ruledOut(index: RecallPostings, queryTerms: ReadonlySet<string>): number[] {
  const out: number[] = []
  const postingsOf = (term: string) => {
    const at = lowerBound(index.terms, term)
    return index.terms[at] === term ? (index.postings[at] as number[]) : []
  }
  // The service ports the failure names, and the triggers that name one of them.
  const named = new Set<number>()
  for (const term of queryTerms) if (isServicePort(term)) for (const doc of postingsOf(term)) named.add(doc)
  const servicePorts = [...queryTerms].some(isServicePort)
  for (let at = lowerBound(index.terms, 'port'); at < index.terms.length; at++) {
    const term = index.terms[at] as string
    if (!term.startsWith('port')) break
    if (!SERVICE_PORT.test(term) || queryTerms.has(term)) continue
    if (isServicePort(term)) out.push(...(index.postings[at] as number[]))
    else if (servicePorts) for (const doc of index.postings[at] as number[]) if (!named.has(doc)) out.push(doc)
  }
  for (const marker of MARKERS) if (!queryTerms.has(marker)) out.push(...postingsOf(marker))
  if (queryTerms.has(REMOTE) && !queryTerms.has(LOCALHOST)) out.push(...postingsOf(LOCALHOST))
  for (const code of CODES) if (!queryTerms.has(code)) out.push(...postingsOf(code))
  return out
}

// The terms of each canonical word's phrases, by the canonical's term (eacc → permiss, deni, access, …): the phrases
// rewordings drops, of more than one word and without the canonical word itself.
let phraseWords: Map<string, string[]> | undefined
function phraseWordsOf(term: string): string[] {
  if (!phraseWords) {
    phraseWords = new Map()
    for (const [canonical, phrases] of Object.entries(EQUIVALENT_PHRASES)) {
      const c = processTerm(canonical)
      if (!c) continue
      const terms = new Set<string>()
      for (const phrase of phrases) {
        const words = phrase.split(/[^a-z0-9_]+/).filter(Boolean)
        if (words.length < 2 || words.includes(canonical)) continue
        for (const w of words) {
          const t = processTerm(w)
          if (t && t !== c) terms.add(t)
        }
      }
      phraseWords.set(c, [...terms].sort(compareCodeUnits))
    }
  }
  return phraseWords.get(term) ?? []
}

/**
 * Whether the pick is the learning the failure is most about: no other learning (passing the threshold or not) holds
 * more of the failure, weighing its matched trigger terms and, at NAME_TERM_FACTOR, the words of its name found in the
 * failure, times the share of its trigger met. A trigger met in share but outweighed by another learning's rarer matched
 * words (a generic "could not find config file" beside a TS7016 message, npm's ENOENT beside a Prisma engine error) is a
 * guess, and recall stays silent; a long trigger that shares a few words of the failure (a Kubernetes pull error's
 * "access", "repository", "exist" beside "Host key verification failed") outweighs nothing, its share being small.
 * The names are weighed from their terms' postings (RecallPostings nameTerms), like the triggers, and a name is read
 * only for a learning that would overtake the pick: at 100,000 learnings a common word reaches most of them.
 */
function isLeading(
  index: RecallPostings,
  queryTerms: ReadonlySet<string>,
  matched: Float64Array,
  pick: number,
  nameOf: (doc: number) => string,
): boolean {
  const n = index.totals.length
  // Each document's name weight: the failure's terms its name holds, each at its weight over the triggers, summed in
  // the terms' order (the same sum whichever document it is computed for).
  const named = new Float64Array(n)
  const weightOf = (t: string) => {
    const ta = lowerBound(index.terms, t)
    return termWeight(t, index.terms[ta] === t ? (index.postings[ta] as number[]).length : 0, n)
  }
  const nameDocs = (t: string) => {
    const at = lowerBound(index.nameTerms, t)
    return index.nameTerms[at] === t ? (index.namePostings[at] as number[]) : []
  }
  for (const t of [...queryTerms].sort(compareCodeUnits)) {
    const docs = nameDocs(t)
    if (docs.length) {
      const w = weightOf(t)
      for (const doc of docs) named[doc] = (named[doc] as number) + w
    }
    // A name's word the failure says as this error's phrase ("denied" of "Permission denied": recallQueryTerms dropped
    // it) counts as the error's code, once a name.
    const words = phraseWordsOf(t)
    if (!words.length) continue
    const saying = new Set<number>()
    for (const word of words) if (!queryTerms.has(word)) for (const doc of nameDocs(word)) saying.add(doc)
    for (const doc of docs) saying.delete(doc)
    if (!saying.size) continue
    const w = weightOf(t)
    for (const doc of saying) named[doc] = (named[doc] as number) + w
  }
  const share = (doc: number) => {
    const total = index.totals[doc] as number
    return total > 0 ? Math.min(1, (matched[doc] as number) / total) : 0
  }
  const lead = ((matched[pick] as number) + NAME_TERM_FACTOR * (named[pick] as number)) * share(pick)
  let pickName: string | undefined
  for (let doc = 0; doc < n; doc++) {
    const sum = matched[doc] as number
    if (!sum) continue
    const part = share(doc)
    // Only a document that would overtake the pick has its name read: another trigger of the pick does not count.
    if ((sum + NAME_TERM_FACTOR * (named[doc] as number)) * part > lead) {
      pickName ??= nameOf(pick)
      if (nameOf(doc) !== pickName) return false
    }
  }
  return true
}
