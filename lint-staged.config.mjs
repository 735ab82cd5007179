// lint-staged for this repository's own pre-commit hook. tsc takes a project, not the file list (hence the
// function forms, which lint-staged runs once, without file names); ESLint and Prettier take the staged files.
//
// Prettier joins once the whole tree has had its one formatting pass (`npm run format:first-pass` sets this to
// true): before that, formatting a staged file would reformat all of it and bury the change in the diff.
const prettier = true

const format = prettier ? ['prettier --write --ignore-unknown'] : []
const lint = 'eslint --max-warnings 0 --no-warn-ignored'

export default {
  '*.ts': [() => ['tsc -p tsconfig.json --noEmit', 'tsc -p tsconfig.test.json'], lint, ...format],
  '*.{mjs,cjs,mts}': [() => 'tsc -p tsconfig.bench.json', lint, ...format],
  ...(prettier ? { '*.{json,yaml,yml}': format } : {}),
}
