#!/usr/bin/env bash
# npm run bench:gpu (from run.sh): the PyTorch baseline's timing of F.rms_norm against ncu's
# gpu__time_duration summed over the op's kernels, with triton.testing.do_bench beside it.
# Needs python3 with torch (CUDA) and triton, and ncu on PATH. Prints one table.
set -euo pipefail
cd "$(dirname "$0")"
PY="${CKD_PYTHON:-python3}"
if ! "$PY" -c 'import torch, triton; assert torch.cuda.is_available()' 2>/dev/null; then
  echo "torch-timing: skipped ($PY has no torch with CUDA, or no triton)"
  exit 0
fi
ours=$("$PY" torch_timing.py)
echo "$ours"
csv=$(ncu --clock-control none --cache-control all --profile-from-start off --metrics gpu__time_duration.sum \
  --csv "$PY" torch_timing.py --ncu 2>/dev/null | grep '^"')
OURS="$ours" CSV="$csv" "$PY" - <<'PY'
import csv, io, json, os, statistics
rows = [json.loads(l) for l in os.environ["OURS"].splitlines() if l.startswith("{")]
recs = [r for r in csv.DictReader(io.StringIO(os.environ["CSV"])) if r.get("Metric Name") == "gpu__time_duration.sum"]
unit = {"nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6}
ns = [float(r["Metric Value"].replace(",", "")) * unit[r["Metric Unit"]] for r in recs]
per_size = len(ns) // len(rows)
# The event overhead bench:gpu calibrated against ncu (run.sh passes its file), taken off as the CLI does.
offset = 0.0
cal_path = os.environ.get("CKD_BENCH_CALIBRATION", "")
if cal_path and os.path.exists(cal_path):
    entries = json.load(open(cal_path)).get("calibrations", [])
    offset = entries[0]["offsetNs"] if entries else 0.0
print(f"event overhead taken off: {offset / 1e3:.2f} us" if offset else "no calibration: ours is the raw event time")
print(f"{'size':>12} {'ours':>10} {'raw':>10} {'ncu sum':>10} {'ours/ncu':>9} {'do_bench':>10} {'kernels':>8}")
for i, r in enumerate(rows):
    calls = r["callsUnderNcu"]
    chunk = ns[i * per_size:(i + 1) * per_size]
    k = per_size // calls
    sums = [sum(chunk[c * k:(c + 1) * k]) for c in range(calls)]
    ncu = statistics.median(sums)
    names = sorted({recs[i * per_size + j]["Kernel Name"][:40] for j in range(k)})
    ours = max(0.0, r['oursNs'] - offset)
    print(f"{r['size']:>12} {ours/1e3:>8.2f}us {r['oursNs']/1e3:>8.2f}us {ncu/1e3:>8.2f}us {(ours/ncu-1)*100:>+8.1f}% {r['doBenchNs']/1e3:>8.2f}us {k:>8}  {'; '.join(names)}")
PY
