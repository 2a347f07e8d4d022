// The occupancy sweep, run on the GPU machine with only a carried node (no npm there):
//   node test/gpu/occupancySweep.mjs SWEEP_DIR OUT.csv [ADDON.node]
// SWEEP_DIR comes from test/gpu/occupancySweepBuild.ts (cubins + manifest.json, built where nvcc is).
// For every kernel, block size and dynamic shared memory size it asks the driver
// (cuOccupancyMaxActiveBlocksPerMultiprocessor, through the native addon) for the active blocks per
// SM and writes one CSV row; test/unit/occupancy/sweep.test.ts checks the calculator on every row.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const [dir, out, addonArg] = process.argv.slice(2);
if (!dir || !out) {
  console.error("usage: node occupancySweep.mjs SWEEP_DIR OUT.csv [ADDON.node]");
  process.exit(2);
}
const addonPath = [addonArg, "dist/native/cuda_addon.node", "native/build/Release/cuda_addon.node"].find(
  (p) => p && existsSync(p),
);
if (!addonPath) {
  console.error("occupancySweep: no cuda_addon.node (build it with npm run build:native)");
  process.exit(2);
}
const addon = createRequire(import.meta.url)(resolve(addonPath));

export const BLOCK_SIZES = [
  1, 32, 33, 64, 96, 100, 128, 160, 192, 256, 288, 320, 384, 448, 512, 576, 640, 768, 896, 1024,
];
export const DYNAMIC_SMEM = [0, 1000, 8192, 30000, 50000, 100000, 150000, 200000, 232448];

addon.init();
addon.useDevice(0);
const dev = addon.deviceAttributes(0);
const arch = `sm_${dev.ccMajor}${dev.ccMinor}`;
const optin = dev.sharedMemPerBlockOptinBytes;
// The device's limits, to check server/occupancy/archLimits.ts against.
writeFileSync(out.replace(/\.csv$/, "") + ".device.json", JSON.stringify({ ...dev, arch }, null, 2) + "\n");
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));

// maxDynamicSmem: the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize during the query. Each
// kernel is swept twice: as loaded (48 KB less its static size) and opted in to the device maximum.
const header =
  "arch,regs,staticSmem,block,dynamicSmem,activeBlocksPerSM,barriers,maxDynamicSmem,maxThreadsPerBlock,kernel,error";
const rows = [header];
let errors = 0;
const sweep = (fn, attrs, k, maxDynamic, dynamicSizes) => {
  for (const block of BLOCK_SIZES) {
    for (const dyn of dynamicSizes) {
      let active = "";
      let error = "";
      try {
        active = String(addon.occupancyMaxActiveBlocksPerMultiprocessor(fn, block, dyn));
      } catch (e) {
        error = e && typeof e === "object" && "code" in e ? String(e.code) : String(e);
        errors++;
      }
      rows.push(
        [
          arch,
          attrs.numRegs,
          attrs.sharedSizeBytes,
          block,
          dyn,
          active,
          k.barriers,
          maxDynamic,
          attrs.maxThreadsPerBlock,
          k.name,
          error,
        ].join(","),
      );
    }
  }
};
for (const cubin of manifest.cubins) {
  const mod = addon.loadModule(resolve(dir, cubin.file));
  for (const k of cubin.kernels) {
    const fn = addon.getFunction(mod, k.name);
    const attrs = addon.functionAttributes(fn);
    if (attrs.numRegs !== k.regs || attrs.sharedSizeBytes !== k.staticSmem) {
      console.error(
        `note: ${k.name} in ${cubin.file}: driver says ${attrs.numRegs} regs / ${attrs.sharedSizeBytes} B, ptxas said ${k.regs} / ${k.staticSmem}`,
      );
    }
    sweep(
      fn,
      attrs,
      k,
      attrs.maxDynamicSharedSizeBytes,
      DYNAMIC_SMEM.filter((d) => d <= 60000),
    );
    addon.setMaxDynamicSharedMemory(fn, optin - attrs.sharedSizeBytes);
    sweep(fn, attrs, k, optin - attrs.sharedSizeBytes, DYNAMIC_SMEM);
  }
}
writeFileSync(out, rows.join("\n") + "\n");
console.log(
  `occupancySweep: ${dev.name} (${arch}), ${rows.length - 1} rows, ${errors} driver errors -> ${out}`,
);
