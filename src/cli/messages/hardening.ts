/** Sentences of the input guards: bounded reads, confined paths, skipped unsafe learnings, hooks left alone. */

const mb = (n: number) => `${Math.round((n / 1048576) * 10) / 10} MB`

/** A file read with a size cap held more than the cap. */
export function tooLarge(what: string, path: string, size: number | undefined, limit: number): string {
  return `${what} "${path}" is ${size === undefined ? `more than ${limit}` : size} bytes; the limit is ${limit} (${mb(limit)})`
}

/** render left out an active learning whose name or frontmatter is not valid. */
export function renderSkippedInvalid(path: string, reason: string): string {
  return `${path} was not rendered: ${reason}; fix it (\`git learn check\` shows every problem)`
}

/** dedupe.notes_file points outside the repository. */
export function notesFileOutside(path: string): string {
  return `dedupe.notes_file "${path}" is outside the repository; it was not read (name a file inside the repository)`
}

/** dedupe.notes_file is larger than what is read of it. */
export function notesFileTruncated(path: string, limit: number): string {
  return `${path} is larger than ${mb(limit)}; only its first ${mb(limit)} were compared`
}

/** retro --write: a candidate with a name another candidate of the same run already has. */
export function retroSameName(name: string): string {
  return `another candidate of this run is already named ${name}; kept the first`
}

/** retro --write: a candidate nearly identical to another candidate of the same run. */
export function retroNearTwin(other: string, similarity: number): string {
  return `near duplicate of ${other}, another candidate of this run (similarity ${similarity.toFixed(2)}); kept the first`
}

/** export --out names a file inside the store. */
export function exportIntoStore(path: string): string {
  return `${path} is inside .learnings/; export never writes into the store`
}

/** export --out names a file that exists. */
export function exportExists(path: string, insideRepo: boolean): string {
  return `${path} already exists${insideRepo ? ' in the repository (it may hold uncommitted work)' : ' and is outside the repository'}; export will not overwrite it`
}
