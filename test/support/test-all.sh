#!/usr/bin/env bash
# `npm test`: installs what the suites need, checks types/lint/format, builds the .vsix, then runs
# every suite (unit, component (webviews in Chromium), integration, UI in code-server) and prints one closing tally, with every skipped
# test by name. The addon has just been built, so a test that would skip without it fails instead
# (CKD_REQUIRE, test/support/needs.ts; add gpu,nvcc,ncu,nsys on a machine that has them).
set -uo pipefail
cd "$(dirname "$0")/../.."
export CKD_REQUIRE="${CKD_REQUIRE-addon}"

bash test/support/ensure-tools.sh || exit 1
npm run lint || { echo "npm test: lint failed"; exit 1; }
npm run package || { echo "npm test: packaging failed"; exit 1; }

rm -f test-results/*.tap
status=0
for suite in unit component integration ui; do
  echo "=== $suite tests"
  bash test/support/run-suite.sh "$suite" || status=1
done
# The grammar tests run inside the unit suite (test/unit/compiler/tmgrammar.test.ts), once.

passed=0; failed=0; skipped=0
for tap in test-results/*.tap; do
  [ -f "$tap" ] || continue
  p=$(awk '/^# pass /{print $3}' "$tap" | tail -1); f=$(awk '/^# fail /{print $3}' "$tap" | tail -1)
  s=$(awk '/^# skipped /{print $3}' "$tap" | tail -1)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
done
echo
skips=$(bash test/support/tap-skips.sh test-results/*.tap)
# A skipped suite counts in no tally of node's, so the list can be longer than the count.
[ -z "$skips" ] || printf 'skipped:\n%s\n' "$skips"
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] || status=1
exit $status
