// npm run bench:gpu (GPU machine; bundled by test/gpu/bundle.mjs): benchmark turnaround as a user sees
// it, `cuda-kernel-dev bench` from process start to the results JSON, with a cold compile cache (nvcc
// runs) and a warm one (the cubin is reused). Every size of the sweep is included, so this bounds the
// time to the first result from above. Prints a table; asserts nothing. Goal: warm <= 3 s.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../gpu/paths";

interface Run {
  code: number | null;
  totalMs: number;
  compileMs?: number;
  cached?: boolean;
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
        "--json",
        "--cache-dir",
        cacheDir,
        "--workspace",
        workspace,
        "--no-history",
      ],
      { env: { ...process.env, PATH: `${process.env.PATH ?? ""}:/usr/local/cuda/bin` } },
    );
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.on("exit", (code) => {
      const totalMs = performance.now() - started;
      try {
        const r = JSON.parse(stdout) as {
          compile: { ms: number; cached: boolean };
          totalMs: number;
          points: unknown[];
        };
        resolve({ code, totalMs, compileMs: r.compile.ms, cached: r.compile.cached });
      } catch {
        resolve({ code, totalMs });
      }
    });
  });
}

async function main(): Promise<void> {
  const cases: [string, string][] = [
    ["examples/rmsnorm.cu", "rmsnorm_bf16x2_kernel"],
    ["test/fixtures/bench/scale.cu", "copy_vec"],
  ];
  console.log("turnaround of `cuda-kernel-dev bench --json` (process start to results JSON)");
  console.log(["kernel", "cache", "exit", "compile ms", "total ms"].join("\t"));
  for (const [file, kernel] of cases) {
    const cacheDir = mkdtempSync(join(tmpdir(), "ckd-turn-cubin-"));
    for (const label of ["cold", "warm", "warm"]) {
      const r = await run(file, kernel, cacheDir);
      console.log(
        [
          kernel,
          `${label}${r.cached === undefined ? "" : r.cached ? " (hit)" : " (nvcc)"}`,
          r.code,
          r.compileMs?.toFixed(0) ?? "-",
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
