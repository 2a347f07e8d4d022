// `npm run bench:compiler`: what the compiler-in-the-loop costs. Prints the nvcc check time per
// architecture for the example kernels (the on-save delay a person waits), the parse time of real
// ptxas/nvcc output, and the occupancy calculator's time per call and per panel redraw (three curves).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileForArchs, projectFlags } from "../../server/compiler/compileFile";
import { resolveNvcc } from "../../server/compiler/nvcc";
import { parseNvccOutput } from "../../server/compiler/nvccDiagnostics";
import { parsePtxasResources } from "../../server/compiler/ptxasResources";
import { occupancy } from "../../server/occupancy/occupancy";
import { allowLaunches } from "../support/launches";

allowLaunches();

const root = join(__dirname, "../..");
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function timeIt(n: number, fn: () => void): number {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return (performance.now() - t0) / n;
}

async function main(): Promise<void> {
  const nvcc = await resolveNvcc(undefined);
  for (const name of ["rmsnorm.cu", "softmax.cu"]) {
    const file = join(root, "examples", name);
    const flags = projectFlags(file, { includePaths: [], extraArgs: [] });
    for (const arch of ["sm_75", "sm_90"]) {
      const runs: number[] = [];
      for (let i = 0; i < 3; i++) {
        const [r] = await compileForArchs({ file, archs: [arch], nvcc, flags, timeoutMs: 300_000 });
        runs.push(r!.run.durationMs);
      }
      console.log(`nvcc check ${name} ${arch}: median ${(median(runs) / 1000).toFixed(2)} s of 3`);
    }
    const t0 = performance.now();
    await compileForArchs({ file, archs: ["sm_75", "sm_80", "sm_90"], nvcc, flags, timeoutMs: 300_000 });
    console.log(
      `nvcc check ${name} sm_75+sm_80+sm_90 (two at a time): ${((performance.now() - t0) / 1000).toFixed(2)} s`,
    );
  }
  const ptxas = readFileSync(join(root, "test/fixtures/compiler/ptxas-v-kernels-multi.txt"), "utf8").repeat(
    100,
  );
  console.log(
    `parse ptxas -v (${(ptxas.length / 1024).toFixed(0)} KB, ${parsePtxasResources(ptxas).length} kernels): ${timeIt(20, () => parsePtxasResources(ptxas)).toFixed(2)} ms`,
  );
  const diag = readFileSync(
    join(root, "test/fixtures/compiler/broken/overload_error.sm_90.txt"),
    "utf8",
  ).repeat(200);
  console.log(
    `parse nvcc diagnostics (${(diag.length / 1024).toFixed(0)} KB): ${timeIt(20, () => parseNvccOutput(diag)).toFixed(2)} ms`,
  );
  const perCall = timeIt(100_000, () =>
    occupancy(
      "sm_90",
      { regsPerThread: 64, staticSmemBytes: 4096 },
      { blockSize: 256, dynamicSmemBytes: 1000 },
    ),
  );
  console.log(`occupancy(): ${(perCall * 1000).toFixed(2)} µs per call`);
  // The panel redraws three curves: 32 block sizes, 256 register counts, ~455 shared-memory sizes (sm_90).
  const redraw = timeIt(200, () => {
    for (let b = 32; b <= 1024; b += 32)
      occupancy("sm_90", { regsPerThread: 64, staticSmemBytes: 4096 }, { blockSize: b, dynamicSmemBytes: 0 });
    for (let r = 0; r < 256; r++)
      occupancy(
        "sm_90",
        { regsPerThread: r, staticSmemBytes: 4096 },
        { blockSize: 256, dynamicSmemBytes: 0 },
      );
    for (let s = 0; s <= 232448; s += 512)
      occupancy("sm_90", { regsPerThread: 64, staticSmemBytes: 0 }, { blockSize: 256, dynamicSmemBytes: s });
  });
  console.log(`occupancy panel curves (743 points): ${redraw.toFixed(2)} ms per redraw`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
