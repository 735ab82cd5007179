/** The shipped templates (`templates/` beside `dist/` in the package). */
import { readFileSync } from 'node:fs'

const TEMPLATES = new URL('../../templates/', import.meta.url)

/** The text of `templates/<file>`. */
export function readTemplate(file: string): string {
  return readFileSync(new URL(file, TEMPLATES), 'utf8')
}
