#!/usr/bin/env bash
# Collects Nsight Systems fixtures on the GPU machine (test/fixtures/nsys/): real .nsys-rep reports,
# their SQLite exports and `nsys stats` CSVs (the ground truth the parser is tested against) of
#   step      step.py: a small torch program with NVTX "step" ranges and known launches per step
#   bench     our benchmark harness (`cuda-kernel-dev bench`), when node and dist/cli.js are at hand
#   launch100k  step.py with 1,000 steps of 101 one-element launches (>= 100,000 kernels)
# plus the faults: the importer failing without libdw (its words and the loader's), a profile killed
# with SIGKILL and one stopped with SIGINT (what is left on disk), a truncated report.
# Usage: capture.sh OUTDIR [LIBDIR]   LIBDIR holds libdw.so.1 & co. (../shared/tools/nsys-libs)
# Environment: NSYS (default: PATH, then Nsight Compute's copy), NODE, REPO (for the bench case).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
W=${1:?usage: capture.sh OUTDIR [LIBDIR]}
LIBS=${2:-$HERE/libs}
mkdir -p "$W"
W=$(cd "$W" && pwd)
NSYS=${NSYS:-$(command -v nsys || ls -d /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | tail -1)}
STEP="$HERE/step.py"
PROF=(profile --trace cuda,nvtx --sample none --cpuctxsw none --force-overwrite true)
log() { echo "== $*" | tee -a "$W/capture.log"; }
now() { date +%s.%N; }
secs() { echo "$1 $(now)" | awk '{printf "%.2f", $2 - $1}'; }

log "nsys: $NSYS"
{ "$NSYS" --version; nvidia-smi -L; python3 -c 'import torch; print("torch", torch.__version__)'; } >>"$W/capture.log" 2>&1
"$NSYS" stats --help-reports >"$W/stats-reports.txt" 2>&1
"$NSYS" export --help >"$W/export-help.txt" 2>&1

# 1. The importer without libdw: nsys's words, then the loader's.
log "importer failure (no LD_LIBRARY_PATH)"
(cd "$W" && env -u LD_LIBRARY_PATH timeout 120 "$NSYS" "${PROF[@]}" -o nolibs \
  python3 -c 'import torch; torch.ones(4, device="cuda").add_(1); torch.cuda.synchronize()' \
  >importer-failure.log 2>&1; echo "exit code: $?" >>importer-failure.log; ls -la nolibs* >>importer-failure.log 2>&1)
IMP=$(ls -d "$(dirname "$NSYS")"/../*/QdstrmImporter 2>/dev/null | head -1)
{ echo "importer: $IMP"; env -u LD_LIBRARY_PATH ldd "$IMP" | grep -i 'not found';
  env -u LD_LIBRARY_PATH "$IMP" --help; echo "exit code: $?"; } >"$W/importer-ldd.log" 2>&1
rm -f "$W"/nolibs.qdstrm

export LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

truth() { # NAME: SQLite export and nsys stats CSVs, timed
  local n=$1 t
  t=$(now)
  "$NSYS" export --type sqlite --force-overwrite true -o "$W/$n.sqlite" "$W/$n.nsys-rep" >"$W/$n.export.log" 2>&1
  log "$n: export exit $? in $(secs "$t") s"
  for r in cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum nvtx_gpu_proj_sum \
    nvtx_kern_sum cuda_api_sum; do
    t=$(now)
    "$NSYS" stats -r "$r" --format csv --output - "$W/$n.nsys-rep" >"$W/$n.stats.$r.csv" 2>>"$W/$n.stats.err"
    log "$n: stats $r exit $? in $(secs "$t") s"
  done
}

# 2. step.py under nsys, and its independent count under torch.profiler (no nsys).
log "step.py"
t=$(now)
(cd "$W" && PYTHONUNBUFFERED=1 timeout 180 "$NSYS" "${PROF[@]}" -o step python3 "$STEP" >step.profile.log 2>&1)
log "step: profile exit $? in $(secs "$t") s"
truth step
"$NSYS" stats -r cuda_gpu_trace --format csv --output - "$W/step.nsys-rep" >"$W/step.stats.cuda_gpu_trace.csv" 2>>"$W/step.stats.err"
"$NSYS" stats -r nvtx_gpu_proj_trace --format csv --output - "$W/step.nsys-rep" >"$W/step.stats.nvtx_gpu_proj_trace.csv" 2>>"$W/step.stats.err"
PYTHONUNBUFFERED=1 timeout 120 python3 "$STEP" --count >"$W/step.torch-profiler.jsonl" 2>"$W/step.torch-profiler.err"
log "step: torch.profiler count exit $?"
python3 - "$W/step.sqlite" >"$W/schema.sql" 2>&1 <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for name, sql in c.execute("select name, sql from sqlite_master where type in ('table','view') order by name"):
    n = c.execute(f'select count(*) from "{name}"').fetchone()[0]
    print(f"-- {name}: {n} rows\n{sql};")
EOF

# 3. Our benchmark harness under nsys (node spawns the runner, which loads the addon).
if [ -n "${NODE:-}" ] && [ -f "${REPO:-.}/dist/cli.js" ]; then
  log "bench harness"
  t=$(now)
  (cd "$REPO" && timeout 240 "$NSYS" "${PROF[@]}" -o "$W/bench" "$NODE" dist/cli.js bench examples/rmsnorm.cu \
    --kernel rmsnorm_kernel --json --no-history --workspace /tmp --cache-dir /tmp/ckd-cubins \
    >"$W/bench.profile.log" 2>&1)
  log "bench: profile exit $? in $(secs "$t") s"
  truth bench
fi

# 4. >= 100,000 launches.
log "launch100k"
t=$(now)
(cd "$W" && PYTHONUNBUFFERED=1 timeout 240 "$NSYS" "${PROF[@]}" -o launch100k python3 "$STEP" \
  --steps 1000 --ops 100 --grow 0 --numel 1 --no-copies >launch100k.profile.log 2>&1)
log "launch100k: profile exit $? in $(secs "$t") s"
truth launch100k

# 5. Faults: killed and interrupted profiles, a truncated report.
for sig in KILL INT; do
  log "profile stopped with SIG$sig"
  (cd "$W" && timeout -s "$sig" 25 "$NSYS" "${PROF[@]}" -o "sig$sig" python3 "$STEP" \
    --steps 10000000 --ops 10 --grow 0 --numel 1 --no-copies >"sig$sig.profile.log" 2>&1
    echo "exit code: $?" >>"sig$sig.profile.log"; sleep 3; ls -la sig"$sig"* >>"sig$sig.profile.log" 2>&1)
  rm -f "$W/sig$sig".qdstrm "$W/sig$sig".nsys-rep
done
head -c $(($(stat -c %s "$W/step.nsys-rep") / 2)) "$W/step.nsys-rep" >"$W/damaged.nsys-rep"
"$NSYS" export --type sqlite --force-overwrite true -o "$W/damaged.sqlite" "$W/damaged.nsys-rep" >"$W/damaged.export.log" 2>&1
echo "exit code: $?" >>"$W/damaged.export.log"
"$NSYS" stats -r cuda_gpu_kern_sum --format csv --output - "$W/damaged.nsys-rep" >"$W/damaged.stats.log" 2>&1
echo "exit code: $?" >>"$W/damaged.stats.log"
rm -f "$W/damaged.nsys-rep" "$W/damaged.sqlite"
ls -la "$W" >>"$W/capture.log"
