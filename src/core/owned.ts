/**
 * Strings of their own for long-lived tables (memos, the index's token slots, the last text's phrases): V8 keeps a
 * piece of 13 characters or more cut from a string as a view into it, so a table of such pieces keeps every text they
 * were cut from alive (a 100,000-learning rebuild would hold every body). Shorter pieces are copies already.
 */
export const MEMO_TOKEN_CHARS = 12

/** `s` as a string of its own: a slice of 13 characters or more keeps the string it was cut from alive (V8). */
export function owned(s: string): string {
  return s.length > MEMO_TOKEN_CHARS ? ` ${s}`.slice(1) : s
}
