# How true the PyTorch baseline's times are (npm run bench:gpu, through test/gpu/torch-timing.sh):
# F.rms_norm on bf16 at two sizes over 10 us, timed three ways:
#   ours:     the sidecar's measure() (events, L2 flushed by a read, spin kernel holding the stream)
#   ncu:      gpu__time_duration summed over the op's kernels (run with --ncu under ncu)
#   do_bench: triton.testing.do_bench, its cache clear on, median
# Usage: python3 torch_timing.py [--ncu]   (prints JSON lines: one per size)
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "bench", "torch"))
import sidecar  # noqa: E402  (the module under test; importing it imports torch)
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

SIZES = [(4096, 4096), (16384, 3072)]
CALLS_UNDER_NCU = 5
TIMING = {"warmupRuns": 3, "minSamples": 10, "maxSamples": 2000, "targetRsdPct": 0.5, "budgetMs": 3000, "flushL2": True}


def inputs(rows, cols, dev):
    x = sidecar.make_buffer({"count": rows * cols, "dtype": "bf16", "init": {"kind": "randn"}, "seed": 1}, dev)
    w = sidecar.make_buffer(
        {"count": cols, "dtype": "bf16", "init": {"kind": "uniform", "low": 0.5, "high": 1.5}, "seed": 2}, dev
    )
    return lambda: F.rms_norm(x.view(rows, cols), (cols,), w, 1e-6)


def main():
    dev = torch.device("cuda", 0)
    if "--ncu" in sys.argv:
        for rows, cols in SIZES:
            op = inputs(rows, cols, dev)
            for _ in range(3):
                op()
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
            for _ in range(CALLS_UNDER_NCU):
                op()
                torch.cuda.synchronize()
            torch.cuda.profiler.stop()
        return
    import triton.testing

    l2 = torch.cuda.get_device_properties(dev).L2_cache_size
    flush = (torch.zeros(max(2 * l2, 32 << 20) // 4, device=dev), torch.zeros((), device=dev))
    per_us = sidecar.cycles_per_us()
    for rows, cols in SIZES:
        op = inputs(rows, cols, dev)
        ours = sidecar.measure(op, TIMING, flush, per_us)
        do_bench_ms = triton.testing.do_bench(op, warmup=25, rep=200, return_mode="median")
        print(json.dumps({"size": f"{rows}x{cols}", "oursNs": ours["medianNs"], "oursRsdPct": ours["rsdPct"],
                          "samples": ours["samples"], "doBenchNs": do_bench_ms * 1e6,
                          "callsUnderNcu": CALLS_UNDER_NCU}))


if __name__ == "__main__":
    main()
