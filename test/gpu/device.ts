// GPU 0 for the tests that load the addon straight into their own process (addon, occupancy), and
// test kernels compiled for it.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { CudaAddon, RawDeviceAttributes } from "../../native/addon";
import { loadAddon } from "../../native/runner/addon";
import { nvcc } from "./paths";

/** The addon with GPU 0's primary context current, its attributes and its architecture ("sm_90"). */
export function openGpu0(): { cuda: CudaAddon; attrs: RawDeviceAttributes; arch: string } {
  const cuda = loadAddon();
  cuda.init();
  cuda.useDevice(0);
  const attrs = cuda.deviceAttributes(0);
  return { cuda, attrs, arch: `sm_${attrs.ccMajor}${attrs.ccMinor}` };
}

/** Compiles a .cu file to a cubin for `arch` in a fresh temporary folder; returns the cubin's path. */
export function compileCubin(source: string, arch: string): string {
  const cubin = join(mkdtempSync(join(tmpdir(), "ckd-gpu-")), basename(source).replace(/\.cu$/, ".cubin"));
  execFileSync(nvcc, ["-cubin", `-arch=${arch}`, "-o", cubin, source], { stdio: "inherit" });
  return cubin;
}
