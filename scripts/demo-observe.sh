#!/usr/bin/env bash
# Observation → retrospective → review, on a scratch repository: replays a recorded Claude Code session through
# `git learn observe` (one process per hook event, as the agent runs it), then `retro --json`, `retro --write`, and
# `approve` by a second person (approval.distinct_approver is on). Needs a build (`npm run build`).
# Usage: scripts/demo-observe.sh [session.jsonl]   (default: test/fixtures/sessions/claude-every-detector.jsonl)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
session="${1:-$here/test/fixtures/sessions/claude-every-detector.jsonl}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/git-learn-observe-demo.XXXXXX")"
# Everything the demo makes is under $scratch, removed at the end (GIT_LEARN_DEMO_KEEP=1 keeps it, and says where).
if [ "${GIT_LEARN_DEMO_KEEP-}" = 1 ]; then trap 'echo "kept: $scratch (remove it with: rm -rf $scratch)"' EXIT
else trap 'rm -rf "$scratch"; echo "removed $scratch (GIT_LEARN_DEMO_KEEP=1 keeps it)"' EXIT; fi
bin="$scratch/.bin"
mkdir -p "$bin" && ln -s "$here/dist/bin.js" "$bin/git-learn" && chmod +x "$here/dist/bin.js"
export PATH="$bin:$PATH" NO_COLOR=1 GIT_CONFIG_NOSYSTEM=1 HOME="$scratch/.home"
mkdir -p "$HOME"
repo="$scratch/repo"
step() { printf '\n$ %s\n' "$*"; "$@"; }

mkdir -p "$repo" && cd "$repo"
git init -q -b main
git config user.name "Ada Agent" && git config user.email ada@example.com && git config commit.gpgsign false
echo "# shop" > README.md && git add README.md && git commit -qm "initial"
git learn init >/dev/null && git add .learnings && git commit -qm "learn: init"

n=0
while IFS= read -r payload || [ -n "$payload" ]; do
  [ -z "$payload" ] && continue
  printf '%s' "${payload//__ROOT__/$repo}" | git learn observe
  n=$((n + 1))
done < "$session"
common="$(git rev-parse --git-common-dir)"
printf '\nreplayed %d hook events; %s/learn/observations.jsonl has %d lines (a token in one tool output was redacted: %s)\n' \
  "$n" "$common" "$(wc -l < "$common/learn/observations.jsonl")" \
  "$(grep -c 'REDACTED' "$common/learn/observations.jsonl" || true) line(s) carry [REDACTED:…]"

step git learn retro
printf '\n$ git learn retro --json | head -c 600\n'
git learn retro --json | head -c 600; echo
step git learn retro --write || true
step git log --oneline -3

# The proposer cannot approve: a second person reviews and approves the proposals.
git config user.name "Rita Reviewer" && git config user.email rita@example.com
names=$(git diff --name-only HEAD~1 HEAD -- .learnings/pending | sed 's#.*/##; s#\.md$##')
# retro cannot know why the fix worked: a draft's Root Cause is left for the reviewer, and approve refuses it until
# it is written. The reviewer writes it (here, for the recorded session's vi.mock failure) and commits the edit.
for f in $(grep -l '^To be filled in by the reviewer' .learnings/pending/*.md); do
  sed -i 's/^To be filled in by the reviewer.*/vi.mock is hoisted above the imports, so its factory read a variable before its declaration ran (the temporal dead zone); the variable moved into vi.hoisted()./' "$f"
done
step git commit -qam "Write the root cause of the retro drafts"
# shellcheck disable=SC2086
step git learn approve $names
step git learn list --state active
