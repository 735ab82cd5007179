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

/**
 * YYYY-MM-DD on the local calendar (the process's time zone, `TZ`): the day the proposer's clock shows, the day `git
 * log` dates their commit. The UTC day was a day behind in the morning at UTC+14 and a day ahead in the evening at
 * UTC−11. Read back as UTC midnight where it is compared with times, it moves no age by more than a day.
 */
export function formatDate(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0')
  return `${String(d.getFullYear()).padStart(4, '0')}-${two(d.getMonth() + 1)}-${two(d.getDate())}`
}
