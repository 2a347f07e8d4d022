// npm run bench:gpu (GPU machine): the runner's medians beside Nsight Compute's gpu__time_duration of
// the same kernels and launch configurations, in one run, from ~3 µs to ~300 µs. ncu runs with
// --clock-control none --cache-control all (clocks free, caches flushed before each launch, as our cold
// samples are). Goal: within ±5% of ncu for every kernel of 3 µs or more, ±2% from 20 µs. Prints a
// table with each row's RSD, sample count, buffer sets taken in turn, stop reason and whether it was
// timed behind the blocking kernel, and a verdict line; asserts nothing. First it calibrates
// (server/profile/calibrate.ts: an empty kernel by events and by ncu, into a calibration file of its
// own, not the user's): "ours" is the figure a calibrated run reports (event median − offset), "raw" the event median itself. The
// empty kernel's corrected row equals ncu by construction (it is what was calibrated on).
// Runs bundled (dist/gpu-tests/gpu.js) via test/gpu/run.sh bench; needs node, nvcc and ncu.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LaunchSpec, SampleStats } from "../../native/runner/protocol";
import { RunnerClient } from "../../native/runner/runnerClient";
import { correctStats, type TimingCalibration } from "../../server/bench/calibration";
import { DEFAULT_TIMING } from "../../server/bench/plan";
import { calibrate } from "../../server/profile/calibrate";
import { repoRoot } from "../gpu/paths";
import { EMPTY, i32, input, ncuMedians, ncuPath, output, tool, vadd } from "./ncuCases";
import { allowLaunches } from "../support/launches";

allowLaunches();

const runnerPath = join(repoRoot, "dist", "runner.js");
const work = mkdtempSync(join(tmpdir(), "ckd-bench-"));

/** examples/rmsnorm.cu's kernels as its @bench spec launches them: one block of 256 per row. */
function rmsnorm(symbol: string, label: string, rows: number, cols: number): LaunchSpec {
  return {
    symbol,
    displayName: `RMSNorm ${label} ${rows}×${cols}`,
    grid: [rows, 1, 1],
    block: [256, 1, 1],
    dynamicSmemBytes: 0,
    args: [
      output("out", "bf16", rows * cols),
      input("in", "bf16", rows * cols, 1),
      {
        kind: "buffer",
        name: "weight",
        dtype: "bf16",
        count: cols,
        init: { kind: "uniform", low: 0.5, high: 1.5, seed: 2 },
      },
      i32("rows", rows),
      i32("cols", cols),
      { kind: "scalar", name: "eps", dtype: "f32", value: 1e-6 },
    ],
  };
}

/** rmsnorm.cu plus the scalar kernel's bf16 instance (its baseline), in one cubin with the test kernels. */
function buildCubin(nvcc: string, arch: string): string {
  const src = join(work, "benchKernels.cu");
  writeFileSync(
    src,
    [
      `#include "${join(repoRoot, "examples", "rmsnorm.cu")}"`,
      `#include "${join(repoRoot, "test", "gpu", "kernels", "runnerKernels.cu")}"`,
      "template __global__ void rmsnorm_kernel<__nv_bfloat16, 256>(__nv_bfloat16*, const __nv_bfloat16*,",
      "                                                           const __nv_bfloat16*, int, int, float);",
    ].join("\n"),
  );
  const cubin = join(work, "benchKernels.cubin");
  execFileSync(nvcc, ["-cubin", `-arch=${arch}`, "-o", cubin, src]);
  return cubin;
}

const us = (ns: number | string) => (typeof ns === "number" ? (ns / 1e3).toFixed(2) : ns);

const pct = (ours: number, ncu: number | string): number =>
  typeof ncu === "number" ? ((ours - ncu) / ncu) * 100 : NaN;
const signed = (d: number): string => (Number.isFinite(d) ? `${d >= 0 ? "+" : ""}${d.toFixed(1)}%` : "-");

function row(
  spec: LaunchSpec,
  raw: SampleStats,
  offsetNs: number | undefined,
  ncu: number | string,
): { cells: Record<string, string>; ok: boolean } {
  const k = offsetNs === undefined || raw.blocked === false ? raw : correctStats(raw, offsetNs);
  const delta = pct(k.medianNs, ncu);
  // Limits by ncu's time: ±2% from 20 µs, ±5% from 3 µs, none below (reported only).
  const limit = typeof ncu !== "number" ? NaN : ncu >= 20e3 ? 2 : ncu >= 3e3 ? 5 : Infinity;
  const ok = Number.isFinite(delta) && Math.abs(delta) <= limit;
  return {
    ok: ok || limit === Infinity,
    cells: {
      kernel: spec.displayName,
      "ours µs": us(k.medianNs),
      "raw µs": us(raw.medianNs),
      "ncu µs": us(ncu),
      Δ: signed(delta),
      "Δ raw": signed(pct(raw.medianNs, ncu)),
      limit: Number.isFinite(limit) ? `±${limit}%` : "-",
      within: limit === Infinity ? "(< 3 µs)" : ok ? "yes" : "NO",
      "RSD %": k.rsdPct.toFixed(2),
      samples: String(k.samples),
      sets: String(k.bufferSets ?? 1),
      stop: k.stoppedBy,
      blocked: String(k.blocked),
    },
  };
}

/** The calibration bench:gpu applies, kept in its own folder (the user's cache is left alone); or why none. */
async function calibration(client: RunnerClient, ncu: string): Promise<TimingCalibration | string> {
  try {
    return await calibrate({
      runner: client,
      ncuPath: ncu,
      runnerPath,
      execPath: process.execPath,
      // run.sh names the file so that torch-timing.sh can take the same offset off torch's times.
      path: process.env.CKD_BENCH_CALIBRATION ?? join(work, "timing-calibration.json"),
      onStep: (m) => console.log(`calibrate: ${m}`),
    });
  } catch (e) {
    return `calibration failed: ${e instanceof Error ? e.message : String(e)}`;
  }
}

async function main(): Promise<void> {
  const nvcc = tool("nvcc");
  if (!nvcc) throw new Error("nvcc not found");
  const client = new RunnerClient({ runnerPath, timeoutSeconds: 60 });
  try {
    const [dev] = await client.request("devices", {});
    if (!dev) throw new Error("no CUDA device");
    const arch = `sm_${dev.computeCapability.replace(".", "")}`;
    const cubin = buildCubin(nvcc, arch);
    const names = (await client.request("kernelInfo", { cubinPath: cubin, device: 0 })).functions.map(
      (f) => f.name,
    );
    const symbol = (re: RegExp) => names.find((n) => re.test(n)) ?? `(no ${re.source} in the cubin)`;
    const x2 = symbol(/rmsnorm_bf16x2_kernel/);
    const scalar = symbol(/rmsnorm_kernelI13__nv_bfloat16Li256E/);
    const cases: LaunchSpec[] = [
      EMPTY,
      ...[65_536, 1_048_576, 16_777_216, 67_108_864].map(vadd),
      rmsnorm(x2, "bf16x2", 16, 4096),
      rmsnorm(x2, "bf16x2", 256, 4096),
      rmsnorm(scalar, "scalar bf16", 16, 4096),
      rmsnorm(x2, "bf16x2", 4096, 4096),
      rmsnorm(x2, "bf16x2", 32768, 4096),
    ];
    const ncu = ncuPath();
    const cal = ncu ? await calibration(client, ncu) : "no ncu";
    const offsetNs = typeof cal === "string" ? undefined : cal.offsetNs;
    const theirs = ncu ? ncuMedians(ncu, cubin, cases, work) : cases.map(() => "no ncu");
    console.log(
      `device: ${dev.name} (${arch}); ncu: ${ncu ?? "not found"}; ours: cuda-kernel-dev's runner, default timing`,
    );
    console.log(
      typeof cal === "string"
        ? `not calibrated (${cal}): ours = raw event medians`
        : `calibration: empty kernel ${us(cal.eventNs)} µs by events, ${us(cal.ncuNs)} µs by ncu (mid-mean of ${cal.ncuLaunches} launches): offset ${us(cal.offsetNs)} µs`,
    );
    console.log(
      "medians in µs; ours = raw − offset; Δ = (ours - ncu) / ncu; ncu --clock-control none --cache-control all, gpu__time_duration.sum",
    );
    const rows: Record<string, string>[] = [];
    let bad = 0;
    for (const [i, spec] of cases.entries()) {
      const r = await client.request("benchmark", {
        cubinPath: cubin,
        device: 0,
        kernel: spec,
        timing: DEFAULT_TIMING,
      });
      const { cells, ok } = row(spec, r.kernel, offsetNs, theirs[i]!);
      if (!ok) bad++;
      if (!r.checks.every((c) => c.pass)) cells.within += " (outputs failed)";
      rows.push(cells);
    }
    console.table(rows);
    console.log(bad === 0 ? "every kernel within its limit" : `${bad} kernel(s) outside their limit`);
  } finally {
    await client.dispose();
  }
}

main().catch((err: unknown) => {
  console.error(`bench:gpu: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
