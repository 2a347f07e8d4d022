#!/usr/bin/env bash
# npm run test:gpu (and npm run bench:gpu with "bench"): the runner's GPU tests, on a machine with an
# NVIDIA GPU, nvcc and node. They need a built tree: `npm run build:native && npm run build` puts
# dist/runner.js and dist/native/cuda_addon.node in place; this script bundles test/gpu/*.test.ts and
# test/bench/gpu*.ts into dist/gpu-tests/ when esbuild is installed. On the GPU machine (node only,
# no node_modules) it runs the bundles carried in dist/. It runs on a machine that has the GPU and the
# tools, so a test that would skip for want of one fails instead (test/support/needs.ts); set
# CKD_REQUIRE yourself (empty: nothing required) to say otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CKD_REQUIRE="${CKD_REQUIRE-gpu,nvcc,ncu,nsys}"
if [ -x node_modules/.bin/esbuild ]; then
  node test/gpu/bundle.mjs
fi
for f in dist/runner.js dist/native/cuda_addon.node; do
  if [ ! -f "$f" ]; then
    echo "test:gpu: $f is missing; run: npm run build:native && npm run build" >&2
    exit 1
  fi
done
if [ "${1:-}" = bench ]; then
  shift
  mapfile -t benches < <(find dist/gpu-tests -maxdepth 1 -name 'gpu*.js' | sort)
  [ ${#benches[@]} -gt 0 ] || { echo "bench:gpu: no dist/gpu-tests/gpu*.js" >&2; exit 1; }
  CKD_BENCH_CALIBRATION="$(mktemp -d)/timing-calibration.json"
  export CKD_BENCH_CALIBRATION # gpu.js calibrates into it; torch-timing.sh applies the same offset
  for b in "${benches[@]}"; do node "$b" "$@"; done
  bash test/gpu/torch-timing.sh # the PyTorch baseline's timing against ncu and do_bench
  exit 0
fi
mapfile -t files < <(find dist/gpu-tests -maxdepth 1 -name '*.test.js' | sort)
[ ${#files[@]} -gt 0 ] || { echo "test:gpu: no dist/gpu-tests/*.test.js" >&2; exit 1; }
exec node --test --test-concurrency=1 --test-reporter=spec "$@" "${files[@]}"
