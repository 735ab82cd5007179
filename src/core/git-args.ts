/**
 * Values from learning files, bundles, payloads and config that end up in a git argument list. Git reads any
 * argument starting with "-" as an option (`--output=<file>` writes a file), so such values are checked first and
 * revisions are passed after `--end-of-options` as well.
 */

/**
 * A remote's URL as it may be shown: the user-information part (`https://x-access-token:ghp_…@host/…`) as `***`. A
 * URL in config.yaml is printed in warnings, `tier list` and CI logs; a token in it would be printed with it.
 */
export function shownUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@')
}

/** An abbreviated or full object id, as evidence.commit holds (the learning schema's pattern). */
export const COMMIT_ID = /^[0-9a-f]{4,64}$/

/** Whether a value is a hexadecimal commit id (4–64 characters) and nothing else. */
export function isCommitId(value: unknown): value is string {
  return typeof value === 'string' && COMMIT_ID.test(value)
}
