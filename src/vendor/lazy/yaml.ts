/**
 * The `yaml` package (../yaml.ts, bundled by the build), loaded at its first use rather than when a module that may
 * need it loads: the frontmatter `add` and the templates write is read without it (core/frontmatter-fast.ts), and
 * loading its bundle cost every command that parses a learning ~13 ms whether a file needed it or not (the pre-commit
 * hook ~100 ms in all). Synchronous, as parseLearning is. Here rather than in ../: the build bundles each file of
 * dist/vendor/, and a bundle of this one would hold the package again.
 */
import type * as YamlPackage from '../yaml.js'

let loaded: typeof YamlPackage | undefined

export function yaml(): typeof YamlPackage {
  // Run from the sources (vitest), ../yaml.ts is no file Node's require loads; it only re-exports the package.
  const from = __filename.endsWith('.ts') ? 'yaml' : '../yaml.js'
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  return (loaded ??= require(from) as typeof YamlPackage)
}
