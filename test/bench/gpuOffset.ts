// npm run bench:gpu (GPU machine): how steady is the event-overhead correction of a small kernel
// across processes? Issue 13 saw vector add n=65,536 read +2.1% of ncu in one bench:gpu run and
// +8.3% in the next. NCU_RUNS ncu processes time the empty kernel and vector add 65,536 and 1,048,576;
// PROCESSES runner processes each time the empty kernel as a calibrated run does (emptyKernel.ts),
// then 3 more times as --calibrate does, then the vector adds. Each vadd is corrected with each
// estimator of the offset, for every pairing of processes, and its Δ against ncu summarized: the
// cached offset (another process's empty kernel, as `--calibrate` left it) against this run's (by the
// empty kernel's median, as before, or its mid-mean, as now); then each pairing's Δ as a run now
// reports it. Prints tables; asserts nothing. Child mode: `gpuOffset.js --child CUBIN`.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LaunchSpec } from "../../native/runner/protocol";
import { RunnerClient } from "../../native/runner/runnerClient";
import { emptyTiming } from "../../server/bench/emptyKernel";
import { DEFAULT_TIMING } from "../../server/bench/plan";
import { midMean } from "../../native/runner/stats";
import { median } from "../../server/profile/calibrate";
import { repoRoot } from "../gpu/paths";
import { EMPTY, ncuPath, ncuTimes, tool, vadd } from "./ncuCases";
import { allowLaunches } from "../support/launches";

allowLaunches();

const PROCESSES = 8;
const NCU_RUNS = 3;
const EMPTY_RUNS = 3;
const SIZES = [65_536, 1_048_576];

interface Child {
  /** The empty kernel timed as a calibrated run times it (emptyTiming: 200 samples), first (ns). */
  runEmpty: number;
  /** Its mid-mean (the mean of the middle half of its samples, ns). */
  runEmptyMid: number;
  /** The empty kernel's runs with the default timing (event median and mean, ns), before the vector adds. */
  empty: { medianNs: number; meanNs: number }[];
  /** Raw event medians of each vadd size (ns). */
  vadd: number[];
  /** Their mid-means (ns). */
  vaddMid: number[];
  /** Wall time of the runEmpty request: what a calibrated run pays for it. */
  emptyMs: number;
}

async function child(cubin: string): Promise<void> {
  const client = new RunnerClient({ runnerPath: join(repoRoot, "dist", "runner.js"), timeoutSeconds: 60 });
  const time = async (kernel: LaunchSpec, timing = DEFAULT_TIMING) =>
    (await client.request("benchmark", { cubinPath: cubin, device: 0, kernel, timing })).kernel;
  try {
    await client.request("devices", {});
    const t0 = performance.now();
    const runEmptyStats = await time(EMPTY, emptyTiming(DEFAULT_TIMING));
    const emptyMs = performance.now() - t0;
    const empty = [];
    for (let i = 0; i < EMPTY_RUNS; i++) empty.push(await time(EMPTY));
    const vadds = [];
    for (const n of SIZES) vadds.push(await time(vadd(n)));
    const result: Child = {
      runEmpty: runEmptyStats.medianNs,
      runEmptyMid: runEmptyStats.midMeanNs ?? NaN,
      empty: empty.map((e) => ({ medianNs: e.medianNs, meanNs: e.meanNs })),
      vadd: vadds.map((v) => v.medianNs),
      vaddMid: vadds.map((v) => v.midMeanNs ?? NaN),
      emptyMs,
    };
    console.log(JSON.stringify(result));
  } finally {
    await client.dispose();
  }
}

function spawnChild(cubin: string): Child {
  const r = spawnSync(process.execPath, [__filename, "--child", cubin], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Child;
}

const us = (ns: number) => (ns / 1e3).toFixed(3);
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
interface NcuRun {
  emptyMedian: number;
  emptyMidMean: number;
  vadd: number[];
}

/**
 * A calibrated run's figure of vadd size i (ns), by each way of taking the offset off: ncu's figure of
 * the empty kernel (its mid-mean) less the empty kernel's event time in another process (as a cached
 * calibration was taken), or in the run's own process (its median, or its mid-mean), from the
 * kernel's median (what a run reports) or its mid-mean.
 */
const ESTIMATORS: Record<string, (c: Child, o: Child, n: NcuRun, i: number) => number> = {
  "cached (another process's median of 3)": (c, o, n, i) =>
    c.vadd[i]! - (median(o.empty.map((e) => e.medianNs)) - n.emptyMidMean),
  "this run's empty median (before)": (c, _o, n, i) => c.vadd[i]! - (c.runEmpty - n.emptyMidMean),
  "this run's empty mid-mean (now)": (c, _o, n, i) => c.vadd[i]! - (c.runEmptyMid - n.emptyMidMean),
  "this run's empty mid-mean, kernel's mid-mean": (c, _o, n, i) =>
    c.vaddMid[i]! - (c.runEmptyMid - n.emptyMidMean),
};
const NOW = "this run's empty mid-mean (now)";

function main(): void {
  const nvcc = tool("nvcc");
  const ncu = ncuPath();
  if (!nvcc || !ncu)
    return console.log(`gpuOffset: skipped (nvcc ${nvcc ?? "missing"}, ncu ${ncu ?? "missing"})`);
  const work = mkdtempSync(join(tmpdir(), "ckd-offset-"));
  const src = join(work, "k.cu");
  writeFileSync(src, `#include "${join(repoRoot, "test", "gpu", "kernels", "runnerKernels.cu")}"\n`);
  const cubin = join(work, "k.cubin");
  const cc = execFileSync("nvidia-smi", ["--query-gpu=compute_cap", "--format=csv,noheader"], {
    encoding: "utf8",
  });
  execFileSync(nvcc, ["-cubin", `-arch=sm_${cc.trim().split("\n")[0]!.replace(".", "")}`, "-o", cubin, src]);
  const ncuRuns: NcuRun[] = [];
  for (let j = 0; j < NCU_RUNS; j++) {
    const t = ncuTimes(ncu, cubin, [EMPTY, ...SIZES.map(vadd)], work);
    if (!t.every((x): x is number[] => typeof x !== "string"))
      return console.log(`gpuOffset: ${t.join(", ")}`);
    const [e, ...v] = t;
    ncuRuns.push({ emptyMedian: median(e!), emptyMidMean: midMean(e!), vadd: v.map((x) => median(x)) });
  }
  const children = Array.from({ length: PROCESSES }, () => spawnChild(cubin));
  console.log(`offset stability: ${NCU_RUNS} ncu processes, ${PROCESSES} runner processes`);
  console.table(
    ncuRuns.map((n, j) => ({
      ncu: j + 1,
      "empty median µs": us(n.emptyMedian),
      "empty mid-mean µs": us(n.emptyMidMean),
      ...Object.fromEntries(SIZES.map((s, i) => [`vadd ${s} µs`, us(n.vadd[i]!)])),
    })),
  );
  console.table(
    children.map((c, p) => ({
      process: p + 1,
      "run's empty µs": us(c.runEmpty),
      "mid-mean": us(c.runEmptyMid),
      "empty medians µs": c.empty.map((e) => us(e.medianNs)).join(" "),
      "empty means µs": c.empty.map((e) => us(e.meanNs)).join(" "),
      "run's empty ms": c.emptyMs.toFixed(0),
      ...Object.fromEntries(
        SIZES.map((s, i) => [`vadd ${s} raw µs (mid-mean)`, `${us(c.vadd[i]!)} (${us(c.vaddMid[i]!)})`]),
      ),
    })),
  );
  // Every (runner process, other process, ncu process) stands for one calibrated run: its Δ of each
  // vadd (the other process matters only to the cached offset).
  const delta = (name: string, i: number, c: Child, o: Child, n: NcuRun) =>
    ((ESTIMATORS[name]!(c, o, n, i) - n.vadd[i]!) / n.vadd[i]!) * 100;
  for (const name of Object.keys(ESTIMATORS))
    SIZES.forEach((s, i) => {
      const d = children.flatMap((c) =>
        (name.startsWith("cached") ? children.filter((o) => o !== c) : [c]).flatMap((o) =>
          ncuRuns.map((n) => delta(name, i, c, o, n)),
        ),
      );
      const sd = Math.sqrt(mean(d.map((x) => (x - mean(d)) ** 2)));
      console.log(
        `vadd ${s}, offset by ${name}: Δ ${Math.min(...d).toFixed(1)}% .. ${Math.max(...d).toFixed(1)}%, mean ${mean(d).toFixed(1)}%, sd ${sd.toFixed(1)}%`,
      );
    });
  console.log(`vadd ${SIZES[0]}, Δ of each pairing, offset by ${NOW}:`);
  console.table(
    children.map((c, p) => ({
      process: p + 1,
      ...Object.fromEntries(ncuRuns.map((n, j) => [`ncu ${j + 1}`, `${delta(NOW, 0, c, c, n).toFixed(1)}%`])),
    })),
  );
}

const args = process.argv.slice(2);
(args[0] === "--child" ? child(args[1]!) : Promise.resolve().then(main)).catch((err: unknown) => {
  console.error(`gpuOffset: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
