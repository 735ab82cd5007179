/**
 * Learning text made safe to write into the files agents load by themselves (skills, rules, AGENTS.md, the CLAUDE.md
 * index). A learning file is hostile: what render copies out of it must not steer the terminal or the reader, close
 * the marked section it sits in, or make an agent load other files.
 */
import { escapeControl } from './escape.js'

/**
 * Claude Code's `@path` import, as its 2.1 memory loader finds one: an `@` at the start of a text token or after
 * white space, followed by `./`, `~/`, `/` or a letter, digit, `.`, `_` or `-` (`(?:^|\s)@((?:[^\s\\]|\\ )+)` over
 * markdown text tokens; code spans and blocks are skipped, but a list item's raw text is read whole, code spans
 * included). A text token can start after emphasis, a link or an escape, so every `@` before such a character is
 * escaped, whatever precedes it; `a@b` in a word is escaped too, which changes nothing a reader sees.
 */
const IMPORT_AT = /(\\*)@(?=[a-zA-Z0-9._~/-])/g

/**
 * `text` as render writes it: carriage returns of CRLF dropped; control characters, a stray carriage return and the
 * bidirectional overrides as `\uXXXX` (core/escape.ts, the rules of everything printed); HTML comment delimiters as
 * `&lt;!--` / `--&gt;`, so no text of a learning is a marker of ours (`<!-- git-learn:end -->`) or hidden from the
 * person reading the file; and `@` before a path as `\@` (a markdown escape: the rendered page still shows `@`), so
 * neither Claude Code nor Cursor takes it for an import of `.env` or `~/.aws/credentials`.
 */
export function renderSafe(text: string): string {
  return escapeControl(text.replace(/\r\n/g, '\n'))
    .replace(/<!--/g, '&lt;!--')
    .replace(/-->/g, '--&gt;')
    .replace(IMPORT_AT, (_m, slashes: string) => `${slashes}${slashes.length % 2 ? '' : '\\'}@`)
}
