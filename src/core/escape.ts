/**
 * The one escaping of everything git-learn prints: control characters (C0 but tab and newline, DEL, C1), a carriage
 * return not ending a line, and the bidirectional controls (embeddings, overrides, isolates, and the marks LRM, RLM
 * and ALM, which reorder neutral characters such as `.` around them) become `\uXXXX`, so a description, a reason or
 * a name cannot move the cursor, recolour or retitle the terminal, or reorder what a reviewer reads. `\uXXXX` is also
 * a valid JSON escape of the same character, so `--json` output stays the same JSON.
 */
const UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g
const ANY = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/** `text` with every unsafe character as `\uXXXX`; `keepLeadingCR` keeps a first `\r` (a progress bar redrawn in place). */
export function escapeControl(text: string, keepLeadingCR = false): string {
  if (!ANY.test(text)) return text
  const head = keepLeadingCR && text.startsWith('\r') ? '\r' : ''
  return head + text.slice(head.length).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
