"""A small torch "model" with NVTX steps and a known number of kernel launches per step.

Each step is wrapped in torch.cuda.nvtx.range_push("step") / range_pop(); inside it an "inner" range
holds the first half of its elementwise ops. Step i launches 2*i + OPS elementwise kernels (add_, mul_,
relu_ in turn, one kernel each) plus one sum reduction, and copies once host-to-device and once
device-to-host. A "warmup" range (same ops) before the steps launches kernels that belong to no step.

  python3 step.py                     # the profiled program: prints its counts by construction
  python3 step.py --count             # the same steps under torch.profiler: the independent count
  python3 step.py --steps 1000 --ops 100 --grow 0 --numel 1 --no-copies   # >= 100,000 tiny launches

The output is one JSON line per step: {"step": i, "kernels": N, "copies": M, ...}.
"""

import argparse
import json
import sys
import time

import torch


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--ops", type=int, default=8, help="elementwise ops in step 0; step i adds 2*i")
    p.add_argument("--grow", type=int, default=2, help="extra ops per step")
    p.add_argument("--numel", type=int, default=1 << 20)
    p.add_argument("--no-copies", action="store_true")
    p.add_argument("--count", action="store_true", help="count with torch.profiler instead")
    return p.parse_args()


def make_step(a, b, s, host, dev, copies):
    nvtx = torch.cuda.nvtx

    def step(i, n_ops, name="step"):
        """Runs step i inside an NVTX range NAME; returns its launches by construction."""
        nvtx.range_push(name)
        if copies:
            dev.copy_(host, non_blocking=True)  # one H2D copy
        nvtx.range_push("inner")
        for j in range(n_ops):
            if j == n_ops // 2:
                nvtx.range_pop()  # inner holds ops [0, n_ops/2)
            k = j % 3
            if k == 0:
                a.add_(b)
            elif k == 1:
                a.mul_(0.5)
            else:
                a.relu_()
        if n_ops < 1:
            nvtx.range_pop()
        torch.sum(a, dim=0, keepdim=True, out=s)  # one reduction kernel
        if copies:
            host.copy_(s[:1], non_blocking=False)  # one D2H copy (synchronous)
        nvtx.range_pop()
        return {"step": i, "kernels": n_ops + 1, "copies": 2 if copies else 0}

    return step


def main():
    args = parse_args()
    dev_kw = {"device": "cuda", "dtype": torch.float32}
    a = torch.ones(args.numel, **dev_kw)
    b = torch.full((args.numel,), 0.25, **dev_kw)
    s = torch.zeros(1, **dev_kw)
    host = torch.ones(1, dtype=torch.float32).pin_memory()
    dev = torch.empty(1, **dev_kw)
    step = make_step(a, b, s, host, dev, not args.no_copies)

    step(-1, 3, "warmup")  # kernels in no "step" range
    torch.cuda.synchronize()

    sizes = [args.ops + args.grow * i for i in range(args.steps)]
    if args.count:
        count_with_profiler(step, sizes)
        return
    t0 = time.perf_counter()
    out = [step(i, n) for i, n in enumerate(sizes)]
    torch.cuda.synchronize()
    for o in out:
        print(json.dumps(o))
    total = sum(o["kernels"] for o in out)
    print(json.dumps({"total_step_kernels": total, "seconds": round(time.perf_counter() - t0, 3)}))


def count_with_profiler(step, sizes):
    """Each step alone under torch.profiler (CUDA activity): kernels and copies as CUPTI saw them."""
    from torch.profiler import ProfilerActivity, profile

    for i, n in enumerate(sizes):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            built = step(i, n)
            torch.cuda.synchronize()
        names = {}
        kernels = copies = 0
        for e in prof.events():
            if e.device_type != torch.autograd.DeviceType.CUDA:
                continue
            if e.name.startswith("Memcpy") or e.name.startswith("Memset"):
                copies += 1
                continue
            kernels += 1
            names[e.name] = names.get(e.name, 0) + 1
        print(json.dumps({**built, "profiler_kernels": kernels, "profiler_copies": copies, "names": names}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
