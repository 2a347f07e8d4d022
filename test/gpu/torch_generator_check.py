# The sidecar's torch generator against GENERATOR.md computed one element at a time in plain Python
# (ints for the uint32 hash, struct round trips for float32 rounding: exact for one + or *), at the
# first, last and a spread of indices, for every init kind and several dtypes. Run on the GPU machine
# (test/gpu/torchBaseline.test.ts runs it); prints "ok N" or the first difference and exits 1.
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "bench", "torch"))
import sidecar  # noqa: E402
import torch  # noqa: E402

M = 0xFFFFFFFF


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def h(seed, i):
    x = (i + seed * 0x9E3779B9) & M
    x ^= x >> 16
    x = (x * 0x7FEB352D) & M
    x ^= x >> 15
    x = (x * 0x846CA68B) & M
    return x ^ (x >> 16)


def u(seed, i):
    return f32((h(seed, i) >> 8) * 2.0**-24)


def value(init, seed, i):
    k = init["kind"]
    if k == "uniform":
        lo, hi = f32(init["low"]), f32(init["high"])
        return f32(lo + f32(f32(hi - lo) * u(seed, i)))
    if k == "randn":
        s = f32(f32(u(seed, 4 * i) + u(seed, 4 * i + 1)) + f32(u(seed, 4 * i + 2) + u(seed, 4 * i + 3)))
        return f32(f32(s - 2.0) * f32(1.7320508))
    if k == "arange":
        return f32(float(i))
    if k == "constant":
        return f32(init["value"])
    return {"zeros": 0.0, "ones": 1.0}[k]


CASES = [
    ({"kind": "randn"}, 1, "f32"),
    ({"kind": "randn"}, 77, "bf16"),
    ({"kind": "uniform", "low": -3, "high": 5}, 9, "f32"),
    ({"kind": "uniform", "low": 0.1, "high": 0.7}, 2, "f16"),
    ({"kind": "uniform", "low": -300, "high": 300}, 4, "i8"),
    ({"kind": "arange"}, 0, "u8"),
    ({"kind": "constant", "value": 0.1}, 0, "f64"),
]
COUNT = (1 << 22) + 4099  # more than one generation chunk
dev = torch.device("cuda", 0)
checked = 0
for init, seed, dtype in CASES:
    t = sidecar.make_buffer({"count": COUNT, "dtype": dtype, "init": init, "seed": seed}, dev)
    ref_dtype = sidecar.DTYPES[dtype]
    for i in [0, 1, 2, 3, 4095, 1 << 22, (1 << 22) + 1, COUNT - 1] + list(range(5, COUNT, 99991)):
        want = torch.tensor(value(init, seed, i), dtype=torch.float32)
        want = sidecar.to_dtype(want, dtype) if dtype in ("i8", "u8") else want.to(ref_dtype)
        if t[i].cpu().item() != want.item():
            print(f"differ: {init} seed={seed} {dtype} [{i}]: torch {t[i].item()} formula {want.item()}")
            sys.exit(1)
        checked += 1
print(f"ok {checked}")
