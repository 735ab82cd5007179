/** The retrospective: observation lines in, candidates out. Fed line by line so the log is streamed, never loaded. */
import {
  correctionDetector,
  errorSolutionDetector,
  rapidSwitchingDetector,
  retryLoopDetector,
  workflowDetector,
} from './detectors.js'
import type { Detector, RetroCandidate } from './detectors.js'
import { parseObservationLine } from './records.js'

export interface RetroFilter {
  /** Only this session's records. */
  session?: string | undefined
  /** Only records at or after this time (ISO 8601 compared as text, as `ts` is written). */
  since?: string | undefined
}

export interface RetroAnalysis {
  /** Feed one line of observations.jsonl (a corrupt or truncated line is counted, never fatal). */
  feedLine(line: string): void
  finish(): RetroResult
}

export interface RetroResult {
  candidates: RetroCandidate[]
  records: number
  skipped_lines: number
}

/** A fresh analysis with every detector. */
export function createRetroAnalysis(filter: RetroFilter = {}): RetroAnalysis {
  const detectors: Detector[] = [
    errorSolutionDetector(),
    retryLoopDetector(),
    rapidSwitchingDetector(),
    workflowDetector(),
    correctionDetector(),
  ]
  let records = 0
  let skipped = 0
  return {
    feedLine(line) {
      if (!line.trim()) return
      const r = parseObservationLine(line)
      if (!r) {
        skipped++
        return
      }
      if (filter.session !== undefined && r.session !== filter.session) return
      if (filter.since !== undefined && r.ts < filter.since) return
      records++
      for (const d of detectors) d.feed(r)
    },
    finish() {
      return { candidates: uniqueNames(detectors.flatMap((d) => d.finish())), records, skipped_lines: skipped }
    },
  }
}

/** Candidates of one run get distinct names: a repeated name takes a -2, -3… suffix (within 64 characters). */
export function uniqueNames(candidates: readonly RetroCandidate[]): RetroCandidate[] {
  const used = new Set<string>()
  return candidates.map((c) => {
    let name = c.name.slice(0, 64).replace(/-+$/, '')
    for (let i = 2; used.has(name); i++) name = `${c.name.slice(0, 60).replace(/-+$/, '')}-${i}`
    used.add(name)
    return { ...c, name }
  })
}

/** `--since` as the ISO prefix records are compared with; undefined when it is not a date. */
export function parseSince(text: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined
  const d = new Date(text)
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
}
