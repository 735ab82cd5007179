/**
 * `fastest-levenshtein`, loaded at its first use: only a mistyped command or option asks for the closest known name
 * (core/suggest.ts), but the argument parser that may ask loads with every command that takes options, and resolving
 * the package from node_modules cost each of them ~1.7 ms whether a word was mistyped or not.
 */
import type * as Levenshtein from 'fastest-levenshtein'

let loaded: typeof Levenshtein | undefined

export function levenshtein(): typeof Levenshtein {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  return (loaded ??= require('fastest-levenshtein') as typeof Levenshtein)
}
