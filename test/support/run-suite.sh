#!/usr/bin/env bash
# Runs one suite (unit | component | integration | ui) with node's test runner.
# Node 20 has no --test globs, so the files are found here. A TAP copy goes to test-results/ for the tally.
set -uo pipefail
cd "$(dirname "$0")/../.."
suite="$1"; shift
mapfile -t files < <(find "test/$suite" -name '*.test.ts' 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "run-suite: no tests under test/$suite" >&2
  exit 1
fi
mkdir -p test-results
extra=()
[ "$suite" = ui ] && extra+=(--test-concurrency=1)
exec node --import tsx --test "${extra[@]}" "$@" \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="test-results/$suite.tap" \
  "${files[@]}"
