// npm run bench:gpu (GPU machine): how far the runner's numbers are from other ways of timing the same
// kernels, side by side in one run. Prints a table; asserts nothing.
//  - our median vs Nsight Compute's gpu__time_duration (--clock-control none) of the same launch;
//  - vs a plain nvcc + cudaEvent harness (test/gpu/kernels/eventHarness.cu) and triton.testing.do_bench
//    launching the same cubin through CuPy;
//  - a copy kernel's GB/s vs cudaMemcpy device-to-device; an empty kernel's time;
//  - runner turnaround: nvcc + fresh runner + first result (cold), and a result from a warm runner.
// Runs bundled (dist/gpu-tests/gpu.js) via test/gpu/run.sh bench, so it needs only node, nvcc, ncu, python.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import type { BenchmarkRequest, LaunchSpec } from "../../native/runner/protocol";
import { RunnerClient } from "../../native/runner/runnerClient";
import { repoRoot } from "../gpu/paths";

const kernels = join(repoRoot, "test", "gpu", "kernels");
const runnerPath = join(repoRoot, "dist", "runner.js");
const work = mkdtempSync(join(tmpdir(), "ckd-bench-"));

function tool(name: string, extra: string[] = []): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":").filter(Boolean))
    if (existsSync(join(dir, name))) return join(dir, name);
  return [`/usr/local/cuda/bin/${name}`, ...extra].find((p) => existsSync(p));
}

function ncuPath(): string | undefined {
  const opt = "/opt/nvidia/nsight-compute";
  const versions = existsSync(opt) ? readdirSync(opt).sort().reverse() : [];
  return tool(
    "ncu",
    versions.map((v) => join(opt, v, "ncu")),
  );
}

interface Case {
  label: string;
  mode: "copy" | "copy4" | "scale" | "empty";
  symbol: string;
  n: number;
  /** Bytes read + written, for GB/s. */
  bytes: number;
}

const cases: Case[] = [
  ...[1 << 20, 1 << 24, 1 << 26].map((n) => ({
    label: `copy f32 n=2^${Math.log2(n)}`,
    mode: "copy" as const,
    symbol: "_Z4copyPKfPfi",
    n,
    bytes: 8 * n,
  })),
  ...[1 << 24, 1 << 26].map((n) => ({
    label: `scale<f32,4> n=2^${Math.log2(n)}`,
    mode: "scale" as const,
    symbol: "_Z5scaleIfLi4EEvPKT_PS0_if",
    n,
    bytes: 8 * n,
  })),
  { label: "empty <<<1,1>>>", mode: "empty", symbol: "_Z5emptyv", n: 1, bytes: 0 },
];

function spec(c: Case): LaunchSpec {
  const args: LaunchSpec["args"] =
    c.mode === "empty"
      ? []
      : [
          { kind: "buffer", name: "x", dtype: "f32", count: c.n, init: { kind: "zeros" } },
          {
            kind: "buffer",
            name: "y",
            dtype: "f32",
            count: c.n,
            init: { kind: "zeros" },
            output: { atol: 0, rtol: 0 },
          },
          { kind: "scalar", name: "n", dtype: "i32", value: c.mode === "copy4" ? c.n / 4 : c.n },
          ...(c.mode === "scale"
            ? [{ kind: "scalar" as const, name: "a", dtype: "f32" as const, value: 0.5 }]
            : []),
        ];
  const perBlock = c.mode === "scale" || c.mode === "copy4" ? 1024 : 256;
  return {
    symbol: c.symbol,
    displayName: c.label,
    grid: [Math.max(1, Math.ceil(c.n / perBlock)), 1, 1],
    block: [c.mode === "empty" ? 1 : 256, 1, 1],
    dynamicSmemBytes: 0,
    args,
  };
}

function request(cubin: string, c: Case): BenchmarkRequest {
  return {
    cubinPath: cubin,
    device: 0,
    kernel: spec(c),
    timing: {
      warmupRuns: 3,
      minSamples: 10,
      maxSamples: 5000,
      targetRsdPct: 0.5,
      budgetMs: 1500,
      flushL2: true,
    },
    bytes: c.bytes,
  };
}

function harness(bin: string, mode: string, n: number, flush: "read" | "memset" = "read"): number | string {
  try {
    return Number(
      execFileSync(bin, [mode, String(n), "200", flush], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }).trim(),
    );
  } catch (err) {
    return `failed: ${(err as Error).message.split("\n").filter(Boolean).pop()}`;
  }
}

function ncuMedian(ncu: string, bin: string, c: Case): number | string {
  const rep = join(work, `ncu-${c.mode}-${c.n}`);
  try {
    execFileSync(
      ncu,
      [
        "--clock-control",
        "none",
        "--metrics",
        "gpu__time_duration.sum",
        "-k",
        `regex:^${c.mode}`,
        "-c",
        "20",
        "-f",
        "-o",
        rep,
        bin,
        c.mode,
        String(c.n),
        "20",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    const csv = execFileSync(
      ncu,
      [
        "--import",
        `${rep}.ncu-rep`,
        "--csv",
        "--page",
        "raw",
        "--print-units",
        "base",
        "--metrics",
        "gpu__time_duration.sum",
      ],
      {
        encoding: "utf8",
      },
    );
    const rows = parse<Record<string, string>>(csv, { columns: true, skip_empty_lines: true });
    const values = rows
      .map((r) => Number((r["gpu__time_duration.sum"] ?? "").replace(/,/g, "")))
      .filter((v) => Number.isFinite(v) && v > 0)
      .sort((a, b) => a - b);
    if (values.length === 0) return "no rows";
    // ncu flushes caches before each profiled launch, so its warm-up launches are cold samples too.
    return values[Math.floor(values.length / 2)]!;
  } catch (err) {
    return `failed: ${(err as Error).message.split("\n")[0]}`;
  }
}

const TRITON = `
import sys, cupy as cp, triton.testing as tt
cubin, symbol, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
f = cp.RawModule(path=cubin).get_function(symbol)
x = cp.zeros(n, dtype=cp.float32); y = cp.empty_like(x)
if mode == "copy": call = lambda: f(((n + 255) // 256,), (256,), (x, y, cp.int32(n)))
elif mode == "scale": call = lambda: f(((n + 1023) // 1024,), (256,), (x, y, cp.int32(n), cp.float32(0.5)))
else: call = lambda: f((1,), (1,), ())
print(tt.do_bench(call, warmup=25, rep=200, return_mode="median") * 1e6)
`;

function triton(cubin: string, c: Case): number | string {
  const script = join(work, "triton_bench.py");
  writeFileSync(script, TRITON);
  try {
    return Number(
      execFileSync("python3", [script, cubin, c.symbol, c.mode, String(c.n)], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }).trim(),
    );
  } catch (err) {
    return `failed: ${(err as Error).message.split("\n").filter(Boolean).pop()}`;
  }
}

const fmtUs = (ns: number | string) => (typeof ns === "number" ? (ns / 1e3).toFixed(2) : ns);
const pct = (a: number, b: number | string) =>
  typeof b === "number" && b > 0 ? `${(((a - b) / b) * 100).toFixed(1)}%` : "-";

async function main(): Promise<void> {
  const nvcc = tool("nvcc");
  if (!nvcc) throw new Error("nvcc not found");
  const client = new RunnerClient({ runnerPath, timeoutSeconds: 60 });
  try {
    const [dev] = await client.request("devices", {});
    if (!dev) throw new Error("no CUDA device");
    const arch = `sm_${dev.computeCapability.replace(".", "")}`;
    const cubin = join(work, "runnerKernels.cubin");
    const bin = join(work, "eventHarness");

    // Turnaround, cold: compile, start a fresh runner, first result.
    await client.dispose();
    let t0 = performance.now();
    execFileSync(nvcc, ["-cubin", `-arch=${arch}`, "-o", cubin, join(kernels, "runnerKernels.cu")]);
    const compileMs = performance.now() - t0;
    const runner = new RunnerClient({ runnerPath, timeoutSeconds: 60 });
    const quick = {
      ...request(cubin, cases[1]!),
      timing: { ...request(cubin, cases[1]!).timing, budgetMs: 200 },
    };
    await runner.request("benchmark", quick);
    const coldMs = performance.now() - t0;
    t0 = performance.now();
    await runner.request("benchmark", quick);
    const warmMs = performance.now() - t0;
    execFileSync(nvcc, ["-O3", `-arch=${arch}`, "-o", bin, join(kernels, "eventHarness.cu")]);

    const ncu = ncuPath();
    console.log(
      `device: ${dev.name} (${arch}), peak DRAM ${dev.peakDramBandwidthGBs.toFixed(0)} GB/s; ncu: ${ncu ?? "not found"}`,
    );
    console.log("times are medians in µs; Δ = (ours - other) / other");
    const rows: Record<string, string>[] = [];
    for (const c of cases) {
      const ours = await runner.request("benchmark", request(cubin, c));
      const k = ours.kernel;
      const ev = harness(bin, c.mode, c.n);
      const nc = ncu ? ncuMedian(ncu, bin, c) : "no ncu";
      const tr = triton(cubin, c);
      rows.push({
        kernel: c.label,
        ours: fmtUs(k.medianNs),
        "rsd%": k.rsdPct.toFixed(2),
        samples: `${k.samples} (${k.stoppedBy})`,
        ncu: fmtUs(nc),
        Δncu: pct(k.medianNs, nc),
        cudaEvent: fmtUs(ev),
        Δevent: pct(k.medianNs, ev),
        "event, memset flush": fmtUs(harness(bin, c.mode, c.n, "memset")),
        triton: fmtUs(tr),
        Δtriton: pct(k.medianNs, tr),
        "GB/s": k.gbPerSec !== undefined ? k.gbPerSec.toFixed(0) : "-",
      });
    }
    console.table(rows);
    for (const n of [1 << 24, 1 << 26]) {
      const memcpyNs = harness(bin, "memcpy", n);
      const copy4: Case = {
        label: `copy4 n=2^${Math.log2(n)}`,
        mode: "copy4",
        symbol: "_Z5copy4PK6float4PS_i",
        n,
        bytes: 8 * n,
      };
      const copy = await runner.request("benchmark", request(cubin, copy4));
      if (typeof memcpyNs !== "number") {
        console.log(`cudaMemcpy D2D 2^${Math.log2(n)}: ${memcpyNs}`);
        continue;
      }
      const memcpyGBs = (8 * n) / memcpyNs;
      console.log(
        `copy4 (float4) 2^${Math.log2(n)} f32: kernel ${copy.kernel.gbPerSec!.toFixed(0)} GB/s vs cudaMemcpy D2D ${memcpyGBs.toFixed(0)} GB/s ` +
          `(${((copy.kernel.gbPerSec! / memcpyGBs) * 100).toFixed(1)}%; read+write bytes)`,
      );
    }
    console.log(
      `turnaround: cold ${coldMs.toFixed(0)} ms (nvcc ${compileMs.toFixed(0)} ms + runner start + first result, 200 ms budget); ` +
        `warm runner, cached cubin ${warmMs.toFixed(0)} ms`,
    );
    await runner.dispose();
  } finally {
    await client.dispose();
  }
}

main().catch((err: unknown) => {
  console.error(`bench:gpu: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
