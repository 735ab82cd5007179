#!/usr/bin/env bash
# `npm run format:first-pass`: the one-time Prettier pass over the whole tree, run once on main after the branches
# are merged. It formats every file Prettier owns (.prettierignore says which not), then turns the formatter on in
# CI (.ci/run: format_check=true) and in the pre-commit hook (lint-staged.config.mjs: prettier = true), and checks
# that lint, typecheck and the format check pass. Review `git diff --stat`, commit it alone (e.g. "format: one
# Prettier pass over the tree, no change of behaviour"), and add that commit's id to .git-blame-ignore-revs so
# `git blame` skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
npx prettier --write --log-level warn .
sed -i 's/^format_check=false$/format_check=true/' .ci/run
sed -i 's/^const prettier = false$/const prettier = true/' lint-staged.config.mjs
grep -q '^format_check=true$' .ci/run || { echo "format-first-pass: .ci/run has no format_check=false line to turn on" >&2; exit 1; }
grep -q '^const prettier = true$' lint-staged.config.mjs || { echo "format-first-pass: lint-staged.config.mjs has no prettier switch" >&2; exit 1; }
npx prettier --check --log-level warn .
npm run lint
npm run typecheck
echo "format-first-pass: done; review, commit as one commit, then record it in .git-blame-ignore-revs"
