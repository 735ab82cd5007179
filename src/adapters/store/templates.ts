/** The shipped templates (`templates/` beside `dist/` in the package). */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const TEMPLATES = join(__dirname, '..', '..', '..', 'templates')

/** The text of `templates/<file>`. */
export function readTemplate(file: string): string {
  return readFileSync(join(TEMPLATES, file), 'utf8')
}
