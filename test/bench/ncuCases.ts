// What bench:gpu's scripts (gpu.ts, gpuOffset.ts) share: finding nvcc and ncu, the vector add's launch
// as the runner takes it, and ncu's median gpu__time_duration of each case from one profiled process
// (ncuTarget.ts under ncu --clock-control none --cache-control all).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import type { KernelArg, LaunchSpec } from "../../native/runner/protocol";
import { EMPTY_KERNEL } from "../../server/bench/emptyKernel";
import { repoRoot } from "../gpu/paths";

/** Profiled launches per case; ncu flushes caches before each, so all are cold samples. */
export const NCU_LAUNCHES = 15;

export function tool(name: string, extra: string[] = []): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":").filter(Boolean))
    if (existsSync(join(dir, name))) return join(dir, name);
  return [`/usr/local/cuda/bin/${name}`, ...extra].find((p) => existsSync(p));
}

export function ncuPath(): string | undefined {
  const opt = "/opt/nvidia/nsight-compute";
  const versions = existsSync(opt) ? readdirSync(opt).sort().reverse() : [];
  return tool(
    "ncu",
    versions.map((v) => join(opt, v, "ncu")),
  );
}

export const input = (name: string, dtype: "f32" | "bf16", count: number, seed: number): KernelArg => ({
  kind: "buffer",
  name,
  dtype,
  count,
  init: { kind: "randn", seed },
});
export const output = (name: string, dtype: "f32" | "bf16", count: number): KernelArg => ({
  kind: "buffer",
  name,
  dtype,
  count,
  init: { kind: "zeros" },
  output: { atol: 0, rtol: 0 },
});
export const i32 = (name: string, value: number): KernelArg => ({
  kind: "scalar",
  name,
  dtype: "i32",
  value,
});

/** test/gpu/kernels/runnerKernels.cu's empty kernel: its time is the events' own overhead. */
export const EMPTY: LaunchSpec = { ...EMPTY_KERNEL, symbol: "_Z5emptyv", displayName: "empty <<<1, 1>>>" };

export function vadd(n: number): LaunchSpec {
  return {
    symbol: "_Z4vaddPKfS0_Pfi",
    displayName: `vector add f32 n=${n.toLocaleString("en-US")}`,
    grid: [Math.ceil(n / 256), 1, 1],
    block: [256, 1, 1],
    dynamicSmemBytes: 0,
    args: [input("a", "f32", n, 1), input("b", "f32", n, 2), output("c", "f32", n), i32("n", n)],
  };
}

/** ncu's median gpu__time_duration per case, in ns (or why there is none), from one profiled process. */
export function ncuMedians(
  ncu: string,
  cubin: string,
  cases: LaunchSpec[],
  work: string,
): (number | string)[] {
  return ncuTimes(ncu, cubin, cases, work).map((t) =>
    typeof t === "string" ? t : t[Math.floor(t.length / 2)]!,
  );
}

/** ncu's gpu__time_duration of each case's launches, sorted, in ns (or why there are none), from one profiled process. */
export function ncuTimes(
  ncu: string,
  cubin: string,
  cases: LaunchSpec[],
  work: string,
): (number[] | string)[] {
  const json = join(work, "ncu-cases.json");
  writeFileSync(json, JSON.stringify({ cubin, launches: NCU_LAUNCHES, cases }));
  const rep = join(work, "ncu-cases");
  const metric = "gpu__time_duration.sum";
  try {
    execFileSync(
      ncu,
      [
        ...["--clock-control", "none", "--cache-control", "all", "--metrics", metric],
        ...["-k", "regex:^(vadd|rmsnorm|empty)", "-f", "-o", rep],
        ...[process.execPath, join(repoRoot, "dist", "gpu-tests", "ncuTarget.js"), json],
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    const rows = reportDurations(ncu, rep, metric);
    // Launch order: case by case, NCU_LAUNCHES each.
    return cases.map((_, i) => {
      const mine = rows.slice(i * NCU_LAUNCHES, (i + 1) * NCU_LAUNCHES).sort((a, b) => a - b);
      return mine.length === NCU_LAUNCHES ? mine : `${rows.length} rows`;
    });
  } catch (err) {
    const why = `ncu failed: ${(err as Error).message.split("\n")[0]}`;
    return cases.map(() => why);
  }
}

/** The positive values of `metric` per launch, in launch order, from the ncu report `rep`.ncu-rep. */
export function reportDurations(ncu: string, rep: string, metric: string): number[] {
  const csv = execFileSync(
    ncu,
    ["--import", `${rep}.ncu-rep`, "--csv", "--page", "raw", "--print-units", "base", "--metrics", metric],
    { encoding: "utf8", maxBuffer: 64 << 20 },
  );
  return parse<Record<string, string>>(csv, { columns: true, skip_empty_lines: true })
    .map((r) => Number((r[metric] ?? "").replace(/,/g, "")))
    .filter((v) => Number.isFinite(v) && v > 0);
}
