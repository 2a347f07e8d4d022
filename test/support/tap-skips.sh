#!/usr/bin/env bash
# Lists the skipped tests of node's TAP files, one per line: "  <file>: <test name> (<reason>)".
# Used by test-all.sh at the end of `npm test`; run it on test-results/*.tap after any suite.
set -uo pipefail
for tap in "$@"; do
  [ -f "$tap" ] || continue
  sed -nE "s/^ *(not )?ok [0-9]+ - (.*) # SKIP ?(.*)$/  $(basename "$tap" .tap): \2 (\3)/p" "$tap"
done
