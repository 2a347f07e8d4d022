// Bundles the GPU tests and GPU benchmarks (and ncuTarget.ts, the process bench:gpu profiles, and
// the *Study.ts scripts, run by hand) to dist/gpu-tests/*.js so they run on the GPU machine with a bare
// node (no npm, no node_modules, no tsx there). Run by test/gpu/run.sh where esbuild exists.
import * as esbuild from "esbuild";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const entries = [
  ...readdirSync("test/gpu")
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => join("test/gpu", f)),
  ...readdirSync("test/bench")
    .filter((f) => /^gpu.*\.ts$/.test(f) || f === "ncuTarget.ts" || /Study\.ts$/.test(f))
    .map((f) => join("test/bench", f)),
];
await esbuild.build({
  entryPoints: entries,
  outdir: "dist/gpu-tests",
  entryNames: "[name]", // flat: dist/gpu-tests/runner.test.js, dist/gpu-tests/gpu.js
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  logLevel: "warning",
});
