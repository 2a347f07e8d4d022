// Builds the occupancy sweep's cubins where nvcc is (no GPU needed):
//   npx tsx test/gpu/occupancySweepBuild.ts OUT_DIR [ARCH]
// One cubin per -maxrregcount value; manifest.json lists each kernel's registers, static shared memory
// and barriers as ptxas reported them (through the project's own ptxas parser).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parsePtxasResources } from "../../server/compiler/ptxasResources";
import { sweepCubinArgs } from "./occupancySweepArgs";

const REG_CAPS = [24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 136, 168, 200, 232, 255];

const [outDir, arch = "sm_90"] = process.argv.slice(2);
if (!outDir) {
  console.error("usage: tsx test/gpu/occupancySweepBuild.ts OUT_DIR [ARCH]");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const nvcc = process.env.NVCC ?? "/usr/local/cuda/bin/nvcc";
const source = join("test", "gpu", "occupancySweep.cu"); // run from the repository root
const cubins = [];
for (const [i, cap] of REG_CAPS.entries()) {
  const file = `regs${cap}.cubin`;
  const args = sweepCubinArgs(arch, cap, join(outDir, file), source);
  const run = spawnSync(nvcc, args, { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`nvcc failed (${run.status}): ${run.stderr}`);
  const out = run.stdout + run.stderr; // ptxas reports on stderr
  // The light and barrier kernels do not depend on the cap: sweep them once.
  const kernels = parsePtxasResources(out)
    .filter((k) => i === 0 || k.name.startsWith("heavy"))
    .map((k) => ({ name: k.symbol, regs: k.registers, staticSmem: k.sharedBytes, barriers: k.barriers }));
  cubins.push({ file, maxrregcount: cap, kernels });
  console.log(
    `${file}: ${kernels.map((k) => `${k.name}=${k.regs}r/${k.staticSmem}B/${k.barriers}bar`).join(" ")}`,
  );
}
writeFileSync(join(outDir, "manifest.json"), JSON.stringify({ arch, cubins }, null, 2));
