// npm run bench:gpu (GPU machine): is the events' overhead of a small kernel shared by the empty
// kernel within one process? Issue 13 saw vector add n=65,536 read +2.1% of ncu in one bench:gpu
// run and +8.3% in the next, with the empty kernel's cached offset fixed. So: one process times the
// empty kernel as `--calibrate` does (median of 3 runs: the cached eventNs), then PROCESSES separate
// processes each time the empty kernel, vector add 65,536 and 1,048,576, and the empty kernel again.
// Each vadd is corrected two ways: raw − (cached eventNs − ncu empty), and raw − (this process's
// empty − ncu empty); the spread of each across processes, against ncu's figure, says which is
// steadier. Prints a table; asserts nothing. Child mode: `gpuOffset.js --child CUBIN`.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LaunchSpec } from "../../native/runner/protocol";
import { RunnerClient } from "../../native/runner/runnerClient";
import { DEFAULT_TIMING } from "../../server/bench/plan";
import { median, midMean } from "../../server/profile/calibrate";
import { repoRoot } from "../gpu/paths";
import { EMPTY, ncuPath, ncuTimes, tool, vadd } from "./ncuCases";

const PROCESSES = 5;
const NCU_RUNS = 3;
const EMPTY_RUNS = 3;
const SIZES = [65_536, 1_048_576];

interface Child {
  /** The empty kernel's runs (event median and mean, ns), before the vector adds. */
  empty: { medianNs: number; meanNs: number }[];
  /** Raw event medians of each vadd size (ns). */
  vadd: number[];
  /** Wall time of the first empty-kernel request: what a per-run measurement would cost. */
  emptyMs: number;
}

async function child(cubin: string): Promise<void> {
  const client = new RunnerClient({ runnerPath: join(repoRoot, "dist", "runner.js"), timeoutSeconds: 60 });
  const time = async (kernel: LaunchSpec) =>
    (await client.request("benchmark", { cubinPath: cubin, device: 0, kernel, timing: DEFAULT_TIMING }))
      .kernel;
  try {
    await client.request("devices", {});
    const t0 = performance.now();
    const empty = [await time(EMPTY)];
    const emptyMs = performance.now() - t0;
    for (let i = 1; i < EMPTY_RUNS; i++) empty.push(await time(EMPTY));
    const vadds: number[] = [];
    for (const n of SIZES) vadds.push((await time(vadd(n))).medianNs);
    const result: Child = {
      empty: empty.map((e) => ({ medianNs: e.medianNs, meanNs: e.meanNs })),
      vadd: vadds,
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

/** Offset estimators: how calibrate.ts could reduce its two measurements of the empty kernel. */
const ESTIMATORS: Record<string, (c: Child, n: NcuRun) => number> = {
  "medians (today: median of 3 event medians − ncu median)": (c, n) =>
    median(c.empty.map((e) => e.medianNs)) - n.emptyMedian,
  "per-run (first event median of the run − ncu median)": (c, n) => c.empty[0]!.medianNs - n.emptyMedian,
  "means (mean of 3 event means − ncu mid-mean)": (c, n) =>
    mean(c.empty.map((e) => e.meanNs)) - n.emptyMidMean,
};

async function main(): Promise<void> {
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
      "empty medians µs": c.empty.map((e) => us(e.medianNs)).join(" "),
      "empty means µs": c.empty.map((e) => us(e.meanNs)).join(" "),
      "first empty ms": c.emptyMs.toFixed(0),
      ...Object.fromEntries(SIZES.map((s, i) => [`vadd ${s} raw µs`, us(c.vadd[i]!)])),
    })),
  );
  // Every (runner process, ncu process) pair stands for one bench:gpu run: its Δ of each vadd.
  for (const [name, offsetOf] of Object.entries(ESTIMATORS))
    SIZES.forEach((s, i) => {
      const d = children.flatMap((c) =>
        ncuRuns.map((n) => ((c.vadd[i]! - offsetOf(c, n) - n.vadd[i]!) / n.vadd[i]!) * 100),
      );
      const sd = Math.sqrt(mean(d.map((x) => (x - mean(d)) ** 2)));
      console.log(
        `vadd ${s}, offset by ${name}: Δ ${Math.min(...d).toFixed(1)}% .. ${Math.max(...d).toFixed(1)}%, mean ${mean(d).toFixed(1)}%, sd ${sd.toFixed(1)}%`,
      );
    });
}

const args = process.argv.slice(2);
(args[0] === "--child" ? child(args[1]!) : main()).catch((err: unknown) => {
  console.error(`gpuOffset: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
