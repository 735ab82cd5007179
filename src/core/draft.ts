/** A new learning made from command-line fields and a body (a template's, or the user's). */
import type { Frontmatter } from './learning.js'

export interface DraftFields {
  name: string
  type: string
  description: string
  /** One trigger, or several (`--trigger` repeated). */
  trigger?: string | string[] | undefined
  domain?: string | undefined
  tags?: string | undefined
  confidence?: string | undefined
}

/** Frontmatter for a new learning; numbers and lists are parsed here, validation comes after. */
export function buildDraftFrontmatter(f: DraftFields, today: Date): Frontmatter {
  const data: Frontmatter = { name: f.name, description: f.description, type: f.type }
  if (f.trigger !== undefined) data.trigger = f.trigger
  if (f.domain !== undefined) data['domain'] = f.domain
  if (f.tags !== undefined)
    data.tags = f.tags
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean)
  if (f.confidence !== undefined)
    data['confidence'] = /^\s*[0-9.]+\s*$/.test(f.confidence) ? Number(f.confidence) : f.confidence
  data['created'] = formatDate(today)
  data['version'] = '1.0.0'
  return data
}

/** YYYY-MM-DD in UTC. */
export function formatDate(d: Date): string {
  return d.toISOString().slice(0, 10)
}
