// npm run bench:spec: how long the editor-side benchmark features take on this machine: the kernel
// scan behind every "▶ Benchmark" CodeLens refresh, the spec diagnostics run on each lint, and a
// cubin compile with a cold and a warm cache (real nvcc). Prints figures; asserts nothing.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSpec } from "../../server/bench/benchSpec";
import { compileCubin } from "../../server/bench/compile";
import { generateHarness, resolveInstance } from "../../server/bench/harness";
import { scanKernels } from "../../server/bench/kernelScan";
import { benchSpecFindings } from "../../server/bench/specDiagnostics";
import { resolveNvcc } from "../../server/compiler/nvcc";
import { allowLaunches } from "../support/launches";

allowLaunches();

const root = join(__dirname, "..", "..");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => unknown, runs: number): number {
  for (let i = 0; i < 3; i++) fn();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    fn();
    t.push(performance.now() - s);
  }
  return median(t);
}

async function main(): Promise<void> {
  const files = ["rmsnorm.cu", "geglu.cu", "softmax.cu", "rope.cu", "adaln.cu"].map((f) =>
    join(root, "examples", f),
  );
  const one = readFileSync(files[0]!, "utf8");
  const all = files.map((f) => readFileSync(f, "utf8")).join("\n");
  const big = Array.from({ length: 40 }, () => all).join("\n");
  const kb = (s: string) => `${(s.length / 1024).toFixed(0)} KB`;
  console.log(
    `kernel scan (CodeLens), rmsnorm.cu ${kb(one)}: ${time(() => scanKernels(one), 200).toFixed(2)} ms`,
  );
  console.log(`spec diagnostics, rmsnorm.cu: ${time(() => benchSpecFindings(one), 200).toFixed(2)} ms`);
  console.log(
    `kernel scan, ${kb(big)} with ${scanKernels(big).length} kernels: ${time(() => scanKernels(big), 10).toFixed(1)} ms`,
  );
  console.log(`spec diagnostics, ${kb(big)}: ${time(() => benchSpecFindings(big), 10).toFixed(1)} ms`);

  const nvcc = await resolveNvcc(undefined);
  const file = files[0]!;
  const kernels = scanKernels(one);
  const k = kernels.find((x) => x.name === "rmsnorm_bf16x2_kernel")!;
  const spec = parseSpec(k)!.spec;
  const base = kernels.find((x) => x.name === spec.baseline!.name)!;
  const harness = generateHarness(file, [
    resolveInstance(k, spec.template),
    resolveInstance(base, spec.template, spec.baseline!.templateArgs),
  ]);
  const cacheDir = mkdtempSync(join(tmpdir(), "ckd-bench-cubin-"));
  const req = { harness, nvcc, arch: "sm_90", flags: [], cwd: join(root, "examples"), cacheDir };
  const cold = await compileCubin(req);
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) warm.push((await compileCubin(req)).ms);
  console.log(
    `cubin for rmsnorm_bf16x2 + its baseline (sm_90): cold ${cold.ms.toFixed(0)} ms (nvcc), warm ${median(warm).toFixed(1)} ms (cache hit: ${(await compileCubin(req)).cached})`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
