// "Is there a GPU here?" for every test, asked the way the product asks: the GPU runner (the source
// native/runner/runner.ts under tsx, or dist/runner.js from the bundled GPU tests) loads the addon,
// whose driverStatus() opens libcuda.so.1, and lists the devices. Synchronous, so a test can use the
// answer as its `skip` option; asked once per test process.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { skipWithout } from "./needs";

/** What the runner said: a GPU (with its count), no usable driver, or no addon to ask with. */
export type GpuProbe =
  | { kind: "gpu"; devices: number }
  | { kind: "no-driver"; reason: string }
  | { kind: "no-addon"; reason: string };

const repoRoot = join(__dirname, "..", "..");
let probed: GpuProbe | undefined;

function runnerCommand(): string[] {
  // From the source tree (this file is .ts) the runner's source under tsx; bundled, the built runner.
  return __filename.endsWith(".ts")
    ? ["--import", "tsx", join(repoRoot, "native", "runner", "runner.ts")]
    : [join(repoRoot, "dist", "runner.js")];
}

interface Answer {
  id: number;
  result?: unknown;
  error?: { code: string; message: string };
}

/** The runner's answer to `devices` on this machine. */
export function probeGpu(): GpuProbe {
  if (probed) return probed;
  const r = spawnSync(process.execPath, runnerCommand(), {
    cwd: repoRoot,
    input: `${JSON.stringify({ id: 1, method: "devices", params: {} })}\n`,
    encoding: "utf8",
    timeout: 120_000,
  });
  const line = r.stdout?.split("\n").find((l) => l.startsWith("{"));
  if (!line) throw new Error(`the GPU runner did not answer (exit ${r.status}): ${r.stderr}`);
  const a = JSON.parse(line) as Answer;
  if (Array.isArray(a.result)) probed = { kind: "gpu", devices: a.result.length };
  else if (a.error?.code === "NO_ADDON") probed = { kind: "no-addon", reason: a.error.message };
  else probed = { kind: "no-driver", reason: a.error?.message ?? JSON.stringify(a) };
  if (probed.kind === "gpu" && probed.devices === 0) probed = { kind: "no-driver", reason: "no CUDA device" };
  return probed;
}

/** The skip of a test that needs the built addon (npm run build:native). */
export function skipWithoutAddon(): false | string {
  const p = probeGpu();
  return skipWithout(
    "addon",
    p.kind === "no-addon" ? `addon not built (npm run build:native): ${p.reason}` : undefined,
  );
}

/** The skip of a test that needs a GPU (a failure under CKD_REQUIRE=gpu). */
export function skipWithoutGpu(): false | string {
  const p = probeGpu();
  return (
    skipWithoutAddon() || skipWithout("gpu", p.kind === "gpu" ? undefined : `no usable GPU: ${p.reason}`)
  );
}

/** The skip of a test of the no-driver paths: it needs the addon, and cannot run where a GPU is. */
export function skipWithGpu(): false | string {
  return skipWithoutAddon() || (probeGpu().kind === "gpu" && "this machine has a GPU");
}
