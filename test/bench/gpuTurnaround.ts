// npm run bench:gpu (GPU machine; bundled by test/gpu/bundle.mjs): benchmark turnaround as a user sees
// it, `cuda-kernel-dev bench` from process start to its first size's result (the line it prints as
// that size finishes, the moment the panel first shows figures) and to the last, with a cold compile
// cache (nvcc runs) and a warm one (the cubin is reused). Then the same sweeps as the extension runs
// them: runBenchmark in this one process, with one runner client and one SidecarPool kept across
// runs (extension/benchmark.ts), so a run after the first finds the runner and torch's sidecar
// started ("warm": the first run of a session still pays torch's import). Prints a table; asserts
// nothing. Goal (issue 13): the warm 4-size RMSNorm sweep with its CUDA baseline, and with its
// PyTorch baseline too, shows its first size within 1 s and all four within 3 s
// (test/gpu/rmsnormTurnaround.cu; torch eager only: torch.compile recompiles per shape, seconds
// each, and is not part of the goal).
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunnerClient } from "../../native/runner/runnerClient";
import { runBenchmark } from "../../server/bench/runBench";
import { SidecarPool } from "../../server/bench/torch/sidecarPool";
import { SIDECAR_ENV } from "../../server/bench/torch/torchBaseline";
import { repoRoot } from "../gpu/paths";
import { allowLaunches } from "../support/launches";

allowLaunches();

interface Run {
  code: number | null;
  firstMs?: number;
  /** When the kernel's last size, and torch's last, were printed. */
  kernelsMs?: number;
  torchMs?: number;
  totalMs: number;
  sizes: number;
  torchSizes: number;
}

/** bench:gpu's calibration (gpu.js runs first and keeps it there): the runs are timed calibrated, as a user's are, paying for the empty kernel's timing. */
function calibration(): string | undefined {
  const path = process.env.CKD_BENCH_CALIBRATION;
  return path && existsSync(path) ? path : undefined;
}

let xdgHome: string | undefined;
/** A cache folder for the CLI holding that calibration where it looks (calibration.ts). */
function xdg(): { XDG_CACHE_HOME?: string } {
  const path = calibration();
  if (!path) return {};
  if (!xdgHome) {
    xdgHome = mkdtempSync(join(tmpdir(), "ckd-turn-xdg-"));
    mkdirSync(join(xdgHome, "cuda-kernel-dev"));
    copyFileSync(path, join(xdgHome, "cuda-kernel-dev", "timing-calibration.json"));
  }
  return { XDG_CACHE_HOME: xdgHome };
}

function run(file: string, kernel: string, cacheDir: string): Promise<Run> {
  const started = performance.now();
  const workspace = mkdtempSync(join(tmpdir(), "ckd-turn-ws-"));
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, "dist", "cli.js"),
        "bench",
        join(repoRoot, file),
        "--kernel",
        kernel,
        "--cache-dir",
        cacheDir,
        "--workspace",
        workspace,
        "--no-history",
      ],
      { env: { ...process.env, PATH: `${process.env.PATH ?? ""}:/usr/local/cuda/bin`, ...xdg() } },
    );
    let firstMs: number | undefined;
    let kernelsMs: number | undefined;
    let torchMs: number | undefined;
    let sizes = 0;
    let torchSizes = 0;
    let partial = "";
    // "[1/4] rows=1024 cols=2048: 7.20 µs, ..." is printed as each size finishes, and
    // "[1/4] rows=1024 vs torch: torch 9.10 µs, ..." as torch's figures for it arrive.
    child.stderr.setEncoding("utf8").on("data", (t: string) => {
      const lines = (partial + t).split("\n");
      partial = lines.pop() ?? "";
      for (const l of lines) {
        if (!/^\[\d+\/\d+\] .*: /.test(l)) continue;
        const now = performance.now() - started;
        if (/^\[\d+\/\d+\] [^:]* vs torch: /.test(l)) {
          torchMs = now;
          torchSizes++;
          continue;
        }
        firstMs ??= now;
        kernelsMs = now;
        sizes++;
      }
    });
    child.stdout.resume();
    child.on("exit", (code) =>
      resolve({
        code,
        ...(firstMs !== undefined ? { firstMs } : {}),
        ...(kernelsMs !== undefined ? { kernelsMs } : {}),
        ...(torchMs !== undefined ? { torchMs } : {}),
        totalMs: performance.now() - started,
        sizes,
        torchSizes,
      }),
    );
  });
}

/** One run as the extension makes it: runBenchmark in this process, with the caller's runner and pool. */
async function inProcess(
  file: string,
  kernel: string,
  cacheDir: string,
  runner: RunnerClient,
  sidecars: SidecarPool,
): Promise<Run> {
  const started = performance.now();
  const r: Run = { code: null, totalMs: 0, sizes: 0, torchSizes: 0 };
  const results = await runBenchmark({
    file: join(repoRoot, file),
    kernel,
    runner,
    cacheDir,
    sidecars,
    calibrationPath: calibration() ?? join(cacheDir, "no-calibration.json"),
    onProgress: (p) => {
      const now = performance.now() - started;
      if (p.stage === "result") {
        r.firstMs ??= now;
        r.kernelsMs = now;
        r.sizes++;
      } else if (p.stage === "torch") {
        r.torchMs = now;
        r.torchSizes++;
      }
    },
  });
  return { ...r, code: results.ok ? 0 : 1, totalMs: performance.now() - started };
}

function print(kernel: string, how: string, r: Run): void {
  const ms = (x: number | undefined) => x?.toFixed(0) ?? "-";
  console.log(
    [
      kernel,
      how,
      r.code,
      r.sizes,
      r.torchSizes,
      ms(r.firstMs),
      ms(r.kernelsMs),
      ms(r.torchMs),
      ms(r.totalMs),
    ].join("\t"),
  );
}

const TURNAROUND = "test/gpu/rmsnormTurnaround.cu";

async function main(): Promise<void> {
  const cases: [string, string][] = [
    [TURNAROUND, "rmsnorm_bf16x2_cuda"],
    [TURNAROUND, "rmsnorm_bf16x2_torch"],
    ["test/fixtures/bench/scale.cu", "copy_vec"],
  ];
  console.log(
    `turnaround of \`cuda-kernel-dev bench\` (process start to the first size's result, and to the last); ${calibration() ? "calibrated: each run times the empty kernel too" : "uncalibrated"}`,
  );
  const head = ["kernel", "cache", "exit", "sizes", "torch sizes", "first result ms", "kernel sizes ms"];
  console.log([...head, "torch sizes ms", "all sizes ms (exit)"].join("\t"));
  const caches = new Map<string, string>();
  for (const [file, kernel] of cases) {
    const cacheDir = mkdtempSync(join(tmpdir(), "ckd-turn-cubin-"));
    caches.set(kernel, cacheDir);
    for (const label of ["cold", "warm", "warm"])
      print(
        kernel,
        label === "cold" ? "cold (nvcc)" : "warm (cached cubin)",
        await run(file, kernel, cacheDir),
      );
  }
  await extensionRows(caches);
}

/** The extension's way: one process, its runner client and sidecar pool kept between runs (cubins cached). */
async function extensionRows(caches: Map<string, string>): Promise<void> {
  console.log(
    "as the extension runs it (runBenchmark in one process, from the call to the first size's result and the last; the runner, started by the first row, and the torch sidecar, by the first torch row, are kept between runs)",
  );
  process.env[SIDECAR_ENV] ??= join(repoRoot, "dist", "torch", "sidecar.py");
  const runner = new RunnerClient({ runnerPath: join(repoRoot, "dist", "runner.js") });
  const sidecars = new SidecarPool();
  try {
    for (const kernel of ["rmsnorm_bf16x2_cuda", "rmsnorm_bf16x2_torch"])
      for (const label of ["first run", "warm (second run)", "warm (third run)"])
        print(
          kernel,
          `extension, ${label}`,
          await inProcess(TURNAROUND, kernel, caches.get(kernel)!, runner, sidecars),
        );
  } finally {
    await sidecars.dispose();
    await runner.dispose();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
