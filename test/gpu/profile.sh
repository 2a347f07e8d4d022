#!/usr/bin/env bash
# Collects Nsight Compute / Nsight Systems fixtures on a GPU machine (test/fixtures/profile/gpu/):
# rms.cu built with -lineinfo, one rmsnorm_vec launch profiled with each set (basic, detailed, full;
# clock control none, and base for full), each report exported as details/raw/source CSV in base
# units plus `--print-summary per-kernel`; the real `nsys profile` outcome; nvidia-smi -q -x.
# Usage: test/gpu/profile.sh OUTDIR   (needs nvcc and ncu on PATH or NCU/NSYS set)
set -uo pipefail
cd "$(dirname "$0")/../.."
W=${1:?usage: profile.sh OUTDIR}
mkdir -p "$W"
NCU=${NCU:-ncu}
NSYS=${NSYS:-nsys}
NVCC=${NVCC:-nvcc}
log() { echo "== $*" | tee -a "$W/collect.log"; }

log "versions"
{ "$NCU" --version; "$NSYS" --version; "$NVCC" --version | tail -2; } >>"$W/collect.log" 2>&1
nvidia-smi -q -x >"$W/nvidia-smi-q.xml" 2>>"$W/collect.log"

log "nvcc -lineinfo rms.cu"
"$NVCC" -O3 -lineinfo -arch=native -o "$W/rms" test/fixtures/profile/rms.cu >>"$W/collect.log" 2>&1 || exit 1

profile() { # name set clock
  local name=$1 set=$2 clock=$3 t0=$SECONDS
  (cd "$W" && timeout 240 "$NCU" --set "$set" -k regex:rmsnorm_vec -s 3 -c 1 --import-source yes \
    --clock-control "$clock" -f -o "$name" ./rms >"$name.run.log" 2>&1)
  log "ncu $name: exit $? in $((SECONDS - t0)) s"
  for page in details raw; do
    "$NCU" --import "$W/$name.ncu-rep" --csv --page "$page" --print-units base >"$W/$name.$page.csv" 2>>"$W/collect.log"
  done
  "$NCU" --import "$W/$name.ncu-rep" --csv --page source --print-units base --print-source cuda,sass \
    >"$W/$name.source.csv" 2>>"$W/collect.log"
  "$NCU" --import "$W/$name.ncu-rep" --print-summary per-kernel >"$W/$name.print-summary.txt" 2>>"$W/collect.log"
}
profile rms-vec-basic basic none
profile rms-vec-detailed detailed none
profile rms-vec-full full none
profile rms-vec-full-base full base
# Other source views, to know their layout.
"$NCU" --import "$W/rms-vec-full.ncu-rep" --csv --page source --print-source cuda >"$W/rms-vec-full.source-cuda.csv" 2>>"$W/collect.log"
"$NCU" --import "$W/rms-vec-full.ncu-rep" --csv --page source --print-source sass >"$W/rms-vec-full.source-sass.csv" 2>>"$W/collect.log"
# CSV printed while profiling: ==PROF== lines and the program's output mixed in.
(cd "$W" && timeout 120 "$NCU" --set basic -k regex:rmsnorm_vec -c 1 --csv ./rms >rms-vec-basic.stdout.csv 2>&1)

log "nsys profile"
t0=$SECONDS
(cd "$W" && timeout 120 "$NSYS" profile --trace cuda,nvtx --force-overwrite true --stats false -o nsys-rms ./rms >nsys-profile.log 2>&1
  echo "exit code: $?" >>nsys-profile.log; ls -la nsys-rms* >>nsys-profile.log 2>&1
  rm -f nsys-rms.qdstrm) # 32 MB: too big to bring back
log "nsys: $((SECONDS - t0)) s"
exit 0
