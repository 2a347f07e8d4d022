#!/usr/bin/env bash
# Exports the CSV pages of the H100 reports kept in test/fixtures/profile/h100/ (details, raw, source
# in base units, and --print-summary per-kernel) into OUTDIR. Needs only ncu.
# Usage: test/gpu/profile-export.sh OUTDIR
set -uo pipefail
cd "$(dirname "$0")/../.."
W=${1:?usage: profile-export.sh OUTDIR}
NCU=${NCU:-ncu}
mkdir -p "$W"
for rep in test/fixtures/profile/h100/*.ncu-rep; do
  name=$(basename "$rep" .ncu-rep)
  for page in details raw; do
    "$NCU" --import "$rep" --csv --page "$page" --print-units base >"$W/$name.$page.csv"
  done
  "$NCU" --import "$rep" --csv --page source --print-units base --print-source cuda,sass >"$W/$name.source.csv"
  "$NCU" --import "$rep" --print-summary per-kernel >"$W/$name.print-summary.txt"
done
ls -la "$W"
