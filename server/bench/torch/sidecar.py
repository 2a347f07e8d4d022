# The PyTorch baseline of a benchmark (`// @bench torch EXPR`), run by torchBaseline.ts as
# `python3 -u sidecar.py --device N`, once per benchmark run or kept between runs (sidecarPool.ts): it
# imports torch and sets up CUDA on that GPU at once (while the kernel compiles and runs), then reads
# one request per line on stdin and answers each with one JSON line on stdout (torchProtocol.ts); it
# exits when stdin closes. A kept one gets `{"release": true}` after each run and frees what the run
# left (each request stands alone: nothing of one run is used by the next). It rebuilds the kernel's inputs on the GPU with the
# runner's formula (GENERATOR.md: uint32 hash, float32 ops without fma), so the values are the same
# bit for bit; evaluates EXPR over them; compares its outputs with the kernel's (the runner wrote
# them as raw bytes into the request's outputsDir); and times EXPR (and its torch.compile) the way
# the runner times a kernel: CUDA events around it, L2 flushed by a read before each sample, the
# same stopping rule. Errors are answers too; what the expression prints goes to stderr, so stdout
# carries only the answers; an exit before the answer is a crash.
import gc
import json
import keyword
import math
import os
import sys
import time

MASK = 0xFFFFFFFF
CHUNK = 1 << 22  # elements generated at once: bounds the int64 temporaries of a large buffer


OUT = sys.stdout  # the answers' stream (main() points print() at stderr)
BASELINE = {"allocated": 0}  # torch.cuda.memory_allocated() once CUDA is set up, before any run
COMPILED = {"any": False}  # torch.compile was used since the last release


class Failed(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def fail(kind, message):
    raise Failed(kind, message)


def answer(obj):
    OUT.write(json.dumps(obj) + "\n")
    OUT.flush()


def one_line(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}".rstrip(": ")


NO_TORCH = None
try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # ImportError, or a broken install: every request is answered with it
    torch = None
    NO_TORCH = f"torch is not importable by {sys.executable} ({one_line(e)})"

DTYPES = {} if torch is None else {
    "f32": torch.float32,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f64": torch.float64,
    "i32": torch.int32,
    "i64": torch.int64,
    "u8": torch.uint8,
    "i8": torch.int8,
    "u32": getattr(torch, "uint32", None),
    "u64": getattr(torch, "uint64", None),
}


# --- inputs: GENERATOR.md, bit for bit --------------------------------------------------------


def mul32(x, c):
    """x * c mod 2^32 for int64 tensors x < 2^32: split c so no product passes 2^48."""
    return (x * (c & 0xFFFF) + (((x * (c >> 16)) & 0xFFFF) << 16)) & MASK


def hash32(seed, idx):
    x = (idx + ((seed * 0x9E3779B9) & MASK)) & MASK
    x = x ^ (x >> 16)
    x = mul32(x, 0x7FEB352D)
    x = x ^ (x >> 15)
    x = mul32(x, 0x846CA68B)
    return x ^ (x >> 16)


def unit(seed, idx):
    """u(seed, i) = float32(hash >> 8) * 2^-24: both steps exact in float32."""
    return (hash32(seed, idx) >> 8).to(torch.float32) * (2.0**-24)


def f32(v, dev):
    return torch.tensor(v, dtype=torch.float32, device=dev)


def values_f32(init, seed, lo, hi, dev):
    """The float32 values of elements lo..hi-1."""
    kind = init["kind"]
    idx = torch.arange(lo, hi, dtype=torch.int64, device=dev)
    if kind == "zeros":
        return torch.zeros(hi - lo, dtype=torch.float32, device=dev)
    if kind == "ones":
        return torch.ones(hi - lo, dtype=torch.float32, device=dev)
    if kind == "constant":
        return f32(init["value"], dev).expand(hi - lo).clone()
    if kind == "arange":
        return idx.to(torch.float32)
    if kind == "uniform":
        low, high = f32(init["low"], dev), f32(init["high"], dev)
        t = high - low
        return low + t * unit(seed, idx)  # two float32 kernels: no fma
    if kind == "randn":
        i4 = idx * 4
        s = (unit(seed, i4) + unit(seed, i4 + 1)) + (unit(seed, i4 + 2) + unit(seed, i4 + 3))
        return (s - 2.0) * f32(1.7320508, dev)
    raise ValueError(f"unknown init {kind}")


def to_dtype(v, dtype):
    """float32 -> the buffer's dtype: floats round to nearest even, integers truncate and wrap."""
    if dtype in ("f32", "f16", "bf16", "f64"):
        return v.to(DTYPES[dtype])
    i = v.to(torch.int64)  # truncates toward zero
    if dtype in ("i64", "i32"):
        return i.to(DTYPES[dtype])
    bits = {"u8": 8, "i8": 8, "u32": 32, "u64": 64}[dtype]
    if bits < 64:
        i = i & ((1 << bits) - 1)
    if dtype == "u8":
        return i.to(torch.uint8)
    if dtype == "i8":
        return ((i + 128) & 0xFF).sub(128).to(torch.int8)
    if DTYPES[dtype] is None:
        raise ValueError(f"this torch has no {dtype} tensors")
    narrow = i.to(torch.int32) if dtype == "u32" else i
    return narrow.view(DTYPES[dtype])


def make_buffer(arg, dev):
    count = arg["count"]
    parts = [
        to_dtype(values_f32(arg["init"], arg["seed"], lo, min(lo + CHUNK, count), dev), arg["dtype"])
        for lo in range(0, count, CHUNK)
    ]
    return torch.cat(parts) if len(parts) > 1 else parts[0]


# --- timing: the runner's stopping rule (native/runner/stats.ts) ------------------------------

NOISE_WINDOW, NOISE_CHECK_EVERY, NOISE_SETTLED = 512, 50, 0.05


class StoppingRule:
    def __init__(self, t):
        self.t, self.n, self.mean, self.m2 = t, 0, 0.0, 0.0
        self.noise, self.next = [], 0

    def rsd(self):
        if self.n < 2 or self.mean <= 0:
            return math.inf
        return math.sqrt(self.m2 / (self.n - 1)) / self.mean * 100

    def add(self, ns, elapsed_ms):
        self.n += 1
        d = ns - self.mean
        self.mean += d / self.n
        self.m2 += d * (ns - self.mean)
        rsd, t = self.rsd(), self.t
        if math.isfinite(rsd):
            if len(self.noise) < NOISE_WINDOW:
                self.noise.append(rsd)
            else:
                self.noise[self.next] = rsd
            self.next = (self.next + 1) % NOISE_WINDOW
        if self.n >= t["minSamples"] and rsd <= t["targetRsdPct"]:
            return "rsd"
        if self.n >= t["minSamples"] and self.n % NOISE_CHECK_EVERY == 0 and self.settled(rsd):
            return "converged"
        if self.n >= t["maxSamples"]:
            return "maxSamples"
        if elapsed_ms >= t["budgetMs"]:
            return "budget"
        return None

    def settled(self, cur):
        if len(self.noise) < NOISE_WINDOW or not cur > 0:
            return False
        spread = math.sqrt(sum((x - cur) ** 2 for x in self.noise) / (len(self.noise) - 1))
        return spread / cur < NOISE_SETTLED


def summarize(samples, stopped_by):
    s = sorted(samples)
    n, mid = len(s), len(s) // 2
    mean = sum(s) / n
    stdev = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
    return {
        "samples": n,
        "medianNs": s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2,
        "minNs": s[0],
        "maxNs": s[-1],
        "meanNs": mean,
        "stdevNs": stdev,
        "rsdPct": stdev / mean * 100 if mean > 0 else 0.0,
        "stoppedBy": stopped_by,
    }


PER_US = {}


def cycles_per_us(dev=None):
    """torch.cuda._sleep spins for a number of clock cycles: how many make a microsecond here (once
    per run: it runs on the GPU, so only in the sidecar's turn)."""
    if dev in PER_US:
        return PER_US[dev]
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(1000)
    a.record()
    torch.cuda._sleep(2_000_000)
    b.record()
    b.synchronize()
    PER_US[dev] = 2_000_000 / (a.elapsed_time(b) * 1000)
    return PER_US[dev]


def measure(fn, timing, flush, per_us):
    """Samples of fn's GPU time. Each: a spin kernel holds the stream while the flush, the start
    event, fn's kernels and the stop event are enqueued behind it, so no host time falls between the
    events (the runner's blocking launch, in torch). A sample whose start event the GPU reached
    before the host was done enqueuing is dropped and the spin doubled."""
    for _ in range(timing["warmupRuns"]):
        fn()
    torch.cuda.synchronize()
    start_ev, stop_ev = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    fn()
    host_us = (time.perf_counter() - t0) * 1e6
    spin = int((2 * host_us + 50) * per_us)
    rule, samples, stopped = StoppingRule(timing), [], None
    started = time.perf_counter()
    while stopped is None:
        torch.cuda._sleep(spin)
        if flush is not None:
            torch.sum(flush[0], dim=(0,), out=flush[1])  # a read of it all, like the runner's flush
        start_ev.record()
        fn()
        stop_ev.record()
        late = start_ev.query()
        stop_ev.synchronize()
        if late and spin < per_us * 1e6:  # past a second of spin, keep what comes
            spin *= 2
            continue
        ns = start_ev.elapsed_time(stop_ev) * 1e6
        samples.append(ns)
        stopped = rule.add(ns, (time.perf_counter() - started) * 1000)
    return summarize(samples, stopped)


# --- the check against the kernel's outputs ---------------------------------------------------


def finite(x):
    """JSON has no NaN: a NaN or infinite error is null (the check fails on it anyway)."""
    return x if math.isfinite(x) else None


def compare(name, kernel_out, want, tol):
    got, ref = kernel_out.double(), want.detach().reshape(-1).double()
    if got.numel() != ref.numel():
        return {"arg": name, "pass": False, "elements": got.numel(), "mismatches": got.numel(),
                "message": f"torch gave {ref.numel()} elements, the kernel's {name} has {got.numel()}"}
    diff = (got - ref).abs()
    bad = ~(diff <= tol["atol"] + tol["rtol"] * ref.abs())  # NaN compares false: counted as bad
    nz = ref.abs() > 0
    rel = (diff[nz] / ref.abs()[nz]).max().item() if bool(nz.any()) else 0.0
    norm = got.norm() * ref.norm()
    return {
        "arg": name,
        "pass": not bool(bad.any()),
        "elements": got.numel(),
        "mismatches": int(bad.sum().item()),
        "maxAbsErr": finite(diff.max().item()),
        "maxRelErr": finite(rel),
        "cosine": finite((torch.dot(got, ref) / norm).item() if norm.item() > 0 else 1.0),
    }


def kernel_outputs(req, dev):
    outs = []
    for a in req["args"]:
        if a["kind"] == "buffer" and a.get("output"):
            path = os.path.join(req["outputsDir"], f"{a['name']}.bin")
            with open(path, "rb") as f:
                data = bytearray(f.read())
            outs.append((a, torch.frombuffer(data, dtype=DTYPES[a["dtype"]]).to(dev)))
    return outs


def check(req, result, dev):
    outs = kernel_outputs(req, dev) if req.get("outputsDir") else []
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    if outs and len(results) != len(outs):
        raise ValueError(f"the expression gave {len(results)} tensors for {len(outs)} kernel outputs")
    return [compare(a["name"], k, r, a["output"]) for (a, k), r in zip(outs, results)]


# --- one size ---------------------------------------------------------------------------------


def run(req):
    if NO_TORCH:
        fail("unavailable", NO_TORCH)
    if not torch.cuda.is_available():
        fail("unavailable", f"torch {torch.__version__} has no CUDA here (torch.cuda.is_available() is False)")
    dev = torch.device("cuda", req["device"])
    torch.cuda.set_device(dev)
    names, values = [], []
    for a in req["args"]:
        names.append(a["name"] + ("_" if keyword.iskeyword(a["name"]) else ""))  # `in` is `in_`
        if a["kind"] == "scalar":
            values.append(a["value"] if a["dtype"] in ("f32", "f16", "bf16", "f64") else int(a["value"]))
        else:
            values.append(make_buffer(a, dev))
    scope = {"torch": torch, "F": F, "math": math, **req["vars"]}
    try:
        fn = eval(f"lambda {', '.join(names)}: ({req['expr']})", scope)
        with torch.no_grad():
            result = fn(*values)
    except Exception as e:
        fail("expr", one_line(e))
    out = {"checks": check(req, result, dev)}
    timing = req["timing"]
    flush = None
    if timing["flushL2"]:
        n = max(2 * req["l2Bytes"], 32 << 20) // 4
        flush = (torch.zeros(n, dtype=torch.float32, device=dev), torch.zeros((), device=dev))
    per_us = cycles_per_us(dev)
    with torch.no_grad():
        out["eager"] = measure(lambda: fn(*values), timing, flush, per_us)
        if req["compile"]:
            try:
                COMPILED["any"] = True
                compiled = torch.compile(fn)
                compiled(*values)
                out["compiled"] = measure(lambda: compiled(*values), timing, flush, per_us)
            except Exception as e:
                out["compileError"] = one_line(e)
    out["torchVersion"] = torch.__version__
    return out


def warm_up(device):
    """CUDA's context on the GPU, made now: an allocation, no kernel (the runner may be timing)."""
    try:
        if torch is not None and torch.cuda.is_available():
            torch.cuda.set_device(device)
            torch.empty(1, device=torch.device("cuda", device))
            BASELINE["allocated"] = torch.cuda.memory_allocated()
    except Exception:
        pass  # the first request meets the same error and answers it


def release():
    """The end of a run in a kept sidecar: the run's tensors collected, the allocator's cache given back
    to the driver (an idle sidecar must not hold GPU memory the next kernel may need), torch.compile's
    caches of the run's expressions dropped, the spin calibration forgotten; a broken CUDA context
    raises here, and the pool then ends this sidecar."""
    gc.collect()
    PER_US.clear()
    out = {"allocatedBytes": 0, "baselineBytes": BASELINE["allocated"], "reservedBytes": 0}
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        if COMPILED["any"]:
            torch._dynamo.reset()
            COMPILED["any"] = False
            gc.collect()
        torch.cuda.synchronize()
        if hasattr(torch._C, "_cuda_clearCublasWorkspaces"):
            torch._C._cuda_clearCublasWorkspaces()  # a matmul's workspace is kept per stream otherwise
        torch.cuda.empty_cache()
        out["allocatedBytes"] = torch.cuda.memory_allocated()
        out["reservedBytes"] = torch.cuda.memory_reserved()
    return {"released": out}


def main():
    sys.stdout = sys.stderr  # print() in an expression must not break the protocol
    args = sys.argv[1:]
    if "--device" in args:
        warm_up(int(args[args.index("--device") + 1]))
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            answer(release() if req.get("release") else run(req))
        except Failed as e:
            answer({"error": {"kind": e.kind, "message": str(e)}})
        except Exception as e:
            answer({"error": {"kind": "internal", "message": one_line(e)}})
    OUT.flush()
    os._exit(0)  # torch's teardown at exit takes a while and there is nothing left to free


if __name__ == "__main__":
    main()
