/** Lines of a text by offset: the one count of line breaks the scans and parsers share. */

/** The 1-based line of `offset` in `text` (the number of line feeds before it, plus one). */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++
  return line
}
