/**
 * The recall hook's first question, asked of the raw payload before anything is loaded: could this tool call have
 * failed? Most calls pass, and a passed call has nothing to look up, so the hook ends right after Node's start. The
 * answer errs towards "maybe" (then the payload is parsed and decided in full by search-recall.ts).
 */

/**
 * Output of a test run or build that failed, even when the tool reports success (exit codes are not always given).
 * The blanks before a line's `FAIL` stay on that line (`[^\S\n]*`, not `\s*`): a match across blank lines would start at
 * the last line break anyway, and `\s*` tried from every line break of a run of empty lines made the gate quadratic
 * (100,000 of them, 200 KB of payload, took half a minute on every tool call).
 */
export const FAILING_RUN =
  /(?:^|\n)[^\S\n]*(?:FAIL\b|×|✗|✕)|\bTests?:?\s+\d+ failed\b|\b\d+ (?:failed|failing)\b|npm ERR!|Traceback \(most recent call last\)|(?:^|\n)error(?:\[E\d+\])?: |(?:^|\n)\w*(?:Error|Exception): /

/** Keys whose value says the call failed, as they appear in the JSON text (escaped quotes inside strings never match). */
const FAILED_FIELD =
  /"(?:exit_code|exitCode|returncode|code)"\s*:\s*-?[1-9]|"(?:interrupted|is_error|isError)"\s*:\s*true|"success"\s*:\s*false|"error"\s*:\s*(?!null\b)/
const PASSED_EVENT = /"(?:hook_event_name|hookEventName)"\s*:\s*"PostToolUse"/
const ESCAPED_MARKS = /\\u(?:00d7|2717|2715)/i
/** Gemini CLI reports a failed shell command only in its text ("…\nExit Code: 1\n…"). */
const EXIT_IN_TEXT = /Exit Code: -?[1-9]/

/**
 * True only when the payload is plainly a PostToolUse of a call that passed: no failure field, and no failing-run
 * summary in its text (JSON escapes of newlines and quotes read as line breaks, so a summary at the start of a string
 * or a line is seen).
 */
export function payloadLooksPassed(text: string): boolean {
  if (!PASSED_EVENT.test(text) || FAILED_FIELD.test(text) || ESCAPED_MARKS.test(text) || EXIT_IN_TEXT.test(text))
    return false
  return !FAILING_RUN.test(text.replace(/\\n|\\r|\\"|"/g, '\n'))
}
