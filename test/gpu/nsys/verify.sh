#!/usr/bin/env bash
# On the GPU machine: the built CLI end to end against nsys's own numbers.
#   truth   nsys stats (--force-export) of the fixture reports (test/fixtures/nsys/*.nsys-rep)
#   e2e     `cuda-kernel-dev nsys profile --json -- python3 step.py` (nsys found by the CLI itself),
#           `nsys summarize --json` of that report, nsys stats of it, and torch.profiler's own count
#   100k    the same for 1,000 steps of 101 one-element launches, summarize timed (time, max RSS)
#   bench   our benchmark harness under the CLI, with --cuda-flush-interval
#   faults  importer without libdw, nsys killed mid-profile, a truncated report
# Usage: verify.sh OUTDIR   Environment: NODE, CLI (dist/cli.js), LIBS (libdw & co.), FIXTURES, REPO.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
W=${1:?usage: verify.sh OUTDIR}
mkdir -p "$W" && W=$(cd "$W" && pwd)
NODE=${NODE:-node}
CLI=${CLI:?set CLI to dist/cli.js}
FIXTURES=${FIXTURES:-$HERE/../../fixtures/nsys}
NSYS=${NSYS:-$(command -v nsys || ls -d /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys | tail -1)}
STEP="$HERE/step.py"
log() { echo "== $*" | tee -a "$W/verify.log"; }
ckd() { "$NODE" "$CLI" "$@"; }
stats() { # REP PREFIX
  for r in cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum nvtx_gpu_proj_sum cuda_api_sum; do
    "$NSYS" stats --force-export true -r "$r" --format csv --output - "$1" >"$2.stats.$r.csv" 2>>"$2.stats.err"
  done
}

log "faults: importer without libdw"
(cd "$W" && env -u LD_LIBRARY_PATH timeout 120 "$NODE" "$CLI" nsys profile -o "$W/nolibs.nsys-rep" -- \
  python3 -c 'import torch; torch.ones(4, device="cuda").add_(1)' >nolibs.out 2>nolibs.err
  echo "exit code: $?" >>nolibs.err; ls -la "$W" | grep -i nolibs >>nolibs.err)
tail -3 "$W/nolibs.err" | tee -a "$W/verify.log"

export LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

log "truth for the fixtures"
mkdir -p "$W/fx"
cp "$FIXTURES"/step.nsys-rep "$FIXTURES"/bench.nsys-rep "$W/fx/"
for n in step bench; do stats "$W/fx/$n.nsys-rep" "$W/fx/$n"; done
"$NSYS" stats --force-export true -r cuda_gpu_trace --format csv --output - "$W/fx/step.nsys-rep" >"$W/fx/step.stats.cuda_gpu_trace.csv" 2>>"$W/fx/step.stats.err"
rm -f "$W"/fx/*.nsys-rep "$W"/fx/*.sqlite

log "e2e: nsys profile -- python3 step.py"
t=$(date +%s.%N)
(cd "$W" && PYTHONUNBUFFERED=1 timeout 180 "$NODE" "$CLI" nsys profile --json -o "$W/e2e.nsys-rep" -- python3 "$STEP" >e2e.profile.json 2>e2e.profile.err)
log "e2e profile exit $? in $(echo "$t $(date +%s.%N)" | awk '{printf "%.1f", $2-$1}') s"
ckd nsys summarize --json "$W/e2e.nsys-rep" >"$W/e2e.summary.json" 2>"$W/e2e.summary.err"
log "e2e summarize exit $?"
ckd nsys summarize "$W/e2e.nsys-rep" >"$W/e2e.summary.txt" 2>&1
stats "$W/e2e.nsys-rep" "$W/e2e"
PYTHONUNBUFFERED=1 python3 "$STEP" --count >"$W/e2e.torch-profiler.jsonl" 2>/dev/null

log "100k launches"
(cd "$W" && timeout 240 "$NODE" "$CLI" nsys profile --no-summary -o "$W/l100k.nsys-rep" -- python3 "$STEP" \
  --steps 1000 --ops 100 --grow 0 --numel 1 --no-copies >/dev/null 2>l100k.profile.err)
log "100k profile exit $?"
for i in 1 2; do # the first also exports the .sqlite
  /usr/bin/time -f "summarize: %e s, max RSS %M KB" "$NODE" "$CLI" nsys summarize --json "$W/l100k.nsys-rep" \
    >"$W/l100k.summary.json" 2>>"$W/l100k.time.txt"
done
cat "$W/l100k.time.txt" | tee -a "$W/verify.log"
stats "$W/l100k.nsys-rep" "$W/l100k"

log "bench harness under the CLI"
(cd "$REPO" && timeout 240 "$NODE" "$CLI" nsys profile --json --nsys-arg=--cuda-flush-interval=100 -o "$W/bench.nsys-rep" -- \
  "$NODE" "$CLI" bench examples/rmsnorm.cu --kernel rmsnorm_kernel --json --no-history --workspace /tmp \
  --cache-dir /tmp/ckd-cubins >"$W/bench.summary.json" 2>"$W/bench.profile.err")
log "bench exit $?"
stats "$W/bench.nsys-rep" "$W/bench"

log "faults: nsys killed mid-profile"
mkdir -p "$W/killed"
(cd "$W/killed" && "$NODE" "$CLI" nsys profile -o "$W/killed/k.nsys-rep" -- python3 "$STEP" --steps 10000000 \
  --ops 10 --grow 0 --numel 1 --no-copies >k.out 2>k.err) &
CLI_PID=$!
sleep 15
tree() { local c; for c in $(pgrep -P "$1"); do echo "$c"; tree "$c"; done; }
PIDS=$(tree "$CLI_PID")
for q in $PIDS; do [ "$(cat /proc/$q/comm 2>/dev/null)" = nsys ] && kill -KILL "$q"; done
wait "$CLI_PID"; echo "exit code: $?" >>"$W/killed/k.err"
for q in $PIDS; do kill -KILL "$q" 2>/dev/null; done # the orphaned program
ls -la "$W/killed" >>"$W/killed/k.err"
tail -4 "$W/killed/k.err" | tee -a "$W/verify.log"

log "faults: truncated report"
head -c 30000 "$W/e2e.nsys-rep" >"$W/damaged.nsys-rep"
ckd nsys summarize "$W/damaged.nsys-rep" >"$W/damaged.out" 2>"$W/damaged.err"; echo "exit code: $?" >>"$W/damaged.err"
ls -la "$W" | grep damaged >>"$W/damaged.err"
cat "$W/damaged.err" | tee -a "$W/verify.log"
rm -f "$W"/*.sqlite "$W"/damaged.nsys-rep "$W"/l100k.nsys-rep
ls -la "$W" >>"$W/verify.log"
