// npm run bench:gpu (GPU machine; bundled by test/gpu/bundle.mjs): benchmark turnaround as a user sees
// it, `cuda-kernel-dev bench` from process start to its first size's result (the line it prints as
// that size finishes, the moment the panel first shows figures) and to the last, with a cold compile
// cache (nvcc runs) and a warm one (the cubin is reused). Prints a table; asserts nothing. Goal
// (issue 13): the warm 4-size RMSNorm sweep with its CUDA baseline, and with its PyTorch baseline
// too, shows its first size within 1 s and all four within 3 s (test/gpu/rmsnormTurnaround.cu; torch
// eager only: torch.compile recompiles per shape, seconds each, and is not part of the goal).
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../gpu/paths";

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
      { env: { ...process.env, PATH: `${process.env.PATH ?? ""}:/usr/local/cuda/bin` } },
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

async function main(): Promise<void> {
  const cases: [string, string][] = [
    ["test/gpu/rmsnormTurnaround.cu", "rmsnorm_bf16x2_cuda"],
    ["test/gpu/rmsnormTurnaround.cu", "rmsnorm_bf16x2_torch"],
    ["test/fixtures/bench/scale.cu", "copy_vec"],
  ];
  console.log(
    "turnaround of `cuda-kernel-dev bench` (process start to the first size's result, and to the last)",
  );
  const head = ["kernel", "cache", "exit", "sizes", "torch sizes", "first result ms", "kernel sizes ms"];
  console.log([...head, "torch sizes ms", "all sizes ms (exit)"].join("\t"));
  for (const [file, kernel] of cases) {
    const cacheDir = mkdtempSync(join(tmpdir(), "ckd-turn-cubin-"));
    for (const label of ["cold", "warm", "warm"]) {
      const r = await run(file, kernel, cacheDir);
      console.log(
        [
          kernel,
          label === "cold" ? "cold (nvcc)" : "warm (cached cubin)",
          r.code,
          r.sizes,
          r.torchSizes,
          r.firstMs?.toFixed(0) ?? "-",
          r.kernelsMs?.toFixed(0) ?? "-",
          r.torchMs?.toFixed(0) ?? "-",
          r.totalMs.toFixed(0),
        ].join("\t"),
      );
    }
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
