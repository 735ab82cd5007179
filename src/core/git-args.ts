/**
 * Values from learning files, bundles, payloads and config that end up in a git argument list. Git reads any
 * argument starting with "-" as an option (`--output=<file>` writes a file), so such values are checked first and
 * revisions are passed after `--end-of-options` as well.
 */
import { maskSecret, scanSecrets } from './secrets.js'

/**
 * A remote's URL as it may be shown, or a text that holds URLs (git's words about one): each user-information part
 * (`https://x-access-token:ghp_…@host/…`) as `***`. A URL in config.yaml is printed in warnings, `tier list` and CI
 * logs; a token in it would be printed with it.
 */
export function shownUrl(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi, '$1***@')
}

/** A credential found in a remote's URL: what it is and the value masked. */
export interface UrlCredential {
  rule: string
  description: string
  masked: string
}

/**
 * The credentials in a remote's URL: a password or token after `user:` in its user-information part
 * (`https://x-access-token:ghp_…@host/…`; a user name alone, as ssh's `git@`, is none), and whatever the secret
 * scanner finds in it (a token given as the user name). A URL written to config.yaml is committed and shared: a
 * credential belongs in a credential helper or an SSH key.
 */
export function findUrlCredentials(url: string): UrlCredential[] {
  const found: UrlCredential[] = []
  const password = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:([^/?#@]+)@/i.exec(url)?.[1]
  if (password) found.push({ rule: 'url-credentials', description: 'Password in a URL', masked: maskSecret(password) })
  for (const f of scanSecrets(url))
    if (!found.some((x) => x.rule === f.rule))
      found.push({ rule: f.rule, description: f.description, masked: f.masked })
  return found
}

/** An abbreviated or full object id, as evidence.commit holds (the learning schema's pattern). */
export const COMMIT_ID = /^[0-9a-f]{4,64}$/

/** Whether a value is a hexadecimal commit id (4–64 characters) and nothing else. */
export function isCommitId(value: unknown): value is string {
  return typeof value === 'string' && COMMIT_ID.test(value)
}
