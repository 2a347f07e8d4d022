// npm run bench:gpu (GPU machine; bundled by test/gpu/bundle.mjs): benchmark turnaround as a user sees
// it, `cuda-kernel-dev bench` from process start to its first size's result (the line it prints as
// that size finishes, the moment the panel first shows figures) and to the last, with a cold compile
// cache (nvcc runs) and a warm one (the cubin is reused). Prints a table; asserts nothing. Goal
// (issue 13): the warm 4-size RMSNorm sweep with its CUDA baseline shows its first size within 1 s and
// all four within 3 s.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../gpu/paths";

interface Run {
  code: number | null;
  firstMs?: number;
  totalMs: number;
  sizes: number;
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
    let sizes = 0;
    let partial = "";
    // "[1/4] rows=1024 cols=2048: 7.20 µs, ..." is printed as each size finishes.
    child.stderr.setEncoding("utf8").on("data", (t: string) => {
      const lines = (partial + t).split("\n");
      partial = lines.pop() ?? "";
      for (const l of lines)
        if (/^\[\d+\/\d+\] .*: /.test(l)) {
          firstMs ??= performance.now() - started;
          sizes++;
        }
    });
    child.stdout.resume();
    child.on("exit", (code) =>
      resolve({
        code,
        ...(firstMs !== undefined ? { firstMs } : {}),
        totalMs: performance.now() - started,
        sizes,
      }),
    );
  });
}

async function main(): Promise<void> {
  const cases: [string, string][] = [
    ["examples/rmsnorm.cu", "rmsnorm_bf16x2_kernel"],
    ["test/fixtures/bench/scale.cu", "copy_vec"],
  ];
  console.log(
    "turnaround of `cuda-kernel-dev bench` (process start to the first size's result, and to the last)",
  );
  console.log(["kernel", "cache", "exit", "sizes", "first result ms", "all sizes ms"].join("\t"));
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
          r.firstMs?.toFixed(0) ?? "-",
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
