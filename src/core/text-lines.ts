/** Lines of a text by offset: the one count of line breaks the scans and parsers share. */

/**
 * The blanks (spaces, tabs) that end each line, for `.replace(TRAILING_BLANKS, '')`. A match starts only where a run of
 * blanks starts: `/[ \t]+$/gm` tried from every blank of a run that a word follows, in time quadratic in the run.
 */
export const TRAILING_BLANKS = /(?<![ \t])[ \t]+$/gm

/**
 * `text` without the line feeds that end it (`/\n*$/` tried from every line feed of a run, in time quadratic in a
 * run that more text follows).
 */
export function withoutFinalNewlines(text: string): string {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--
  return text.slice(0, end)
}

/** `text` ending in exactly one line feed when it ended in any (`.replace(/\n+$/, '\n')`). */
export function endingInOneNewline(text: string): string {
  const kept = withoutFinalNewlines(text)
  return kept.length < text.length ? `${kept}\n` : text
}

/** The 1-based line of `offset` in `text` (the number of line feeds before it, plus one). */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++
  return line
}

/**
 * Fenced code blocks, read a line at a time as the scans read them (the directive scan's joined lines, conflict
 * markers, a skill's demoted headings). A fence opens on three or more backticks (none in the info string after
 * them) or tildes, at most three spaces in; it closes on a run of its own character at least as long at a line's
 * start, whatever follows. CommonMark wants only spaces after a closing run and Claude Code's parser closes on more;
 * closing early is the side every reader here can take: more text is read as prose, so scanned, joined or
 * escaped, never less. (render-safe.ts keeps a reader of its own, which also ends a fence with its list item.)
 */
export class Fences {
  private open: string | undefined

  /** Whether the last line read left a fence open. */
  get inside(): boolean {
    return this.open !== undefined
  }

  /** Read `line` (without its line break); true when it is code: a fence's line, or a line inside a fence. */
  read(line: string): boolean {
    if (this.open !== undefined) {
      const run = /^ {0,3}(`+|~+)/.exec(line)?.[1]
      if (run !== undefined && run[0] === this.open[0] && run.length >= this.open.length) this.open = undefined
      return true
    }
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line)
    if (!m || ((m[1] as string)[0] === '`' && (m[2] as string).includes('`'))) return false
    this.open = m[1] as string
    return true
  }
}
