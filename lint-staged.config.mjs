// lint-staged for this repository's own pre-commit hook: typecheck when TypeScript is staged (tsc takes the
// project, not the file list, hence the function form).
export default {
  '*.ts': () => 'tsc -p tsconfig.json --noEmit',
}
