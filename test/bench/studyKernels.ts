// What the hand-run GPU studies (placementStudy.ts, moduleStudy.ts) share: their kernels, compiled for
// this GPU, vector add n=65,536's buffer sets, and the figures' arithmetic.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CudaAddon, DevicePtr } from "../../native/addon";
import { loadAddon } from "../../native/runner/addon";
import { packPointer, packScalar } from "../../native/runner/hostData";
import { tool } from "./ncuCases";

/** The vector add's size: ~3 µs on an H100, the size issue 13 could not hold within ±5%. */
export const N = 65_536;

const SRC = `
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void empty_k() {}
extern "C" __global__ void clockprobe(unsigned long long* out) {
  unsigned long long t0, t1, c0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1)); } while (t1 - t0 < 200000);
  out[0] = clock64() - c0; out[1] = t1 - t0;
}
`;

/** vadd, empty_k and clockprobe (SM cycles and ns over 200 µs) in a cubin for GPU 0; its folder too. */
export function compileStudyKernels(prefix: string): { cubin: string; work: string } {
  const work = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(work, "k.cu"), SRC);
  const cubin = join(work, "k.cubin");
  const cc = execFileSync("nvidia-smi", ["--query-gpu=compute_cap", "--format=csv,noheader"], {
    encoding: "utf8",
  });
  const arch = `-arch=sm_${cc.trim().split("\n")[0]!.replace(".", "")}`;
  execFileSync(tool("nvcc")!, ["-cubin", arch, "-o", cubin, join(work, "k.cu")]);
  return { cubin, work };
}

/** The addon, with GPU 0's primary context current. */
export function openDevice(): CudaAddon {
  const cuda = loadAddon();
  cuda.init();
  cuda.useDevice(0);
  return cuda;
}

/**
 * `count` buffer sets (a, b, c) of the vector add, inputs generated; with `spacers`, a random
 * allocation (0-3 MiB, kept) before each but the first, to scatter them. addr: each buffer's low 32
 * address bits in MiB.
 */
export function vaddSets(
  cuda: CudaAddon,
  count: number,
  spacers: boolean,
): { args: Uint8Array[]; addr: string }[] {
  const sets = [];
  for (let s = 0; s < count; s++) {
    if (spacers && s > 0) cuda.memAlloc(1 + Math.floor(Math.random() * 3 * 2 ** 20));
    const ptrs: DevicePtr[] = [0, 1, 2].map(() => cuda.memAlloc(N * 4));
    for (const i of [0, 1])
      cuda.fillBuffer({ ptr: ptrs[i]!, dtype: "f32", count: N, kind: "randn", seed: i + 1, a: 0, b: 0 });
    sets.push({
      args: [...ptrs.map(packPointer), packScalar("i32", N)],
      addr: ptrs.map((p) => `${(Number(p % 2n ** 32n) / 2 ** 20).toFixed(2)}M`).join(","),
    });
  }
  cuda.synchronize();
  return sets;
}

export const mean = (x: readonly number[]) => x.reduce((a, b) => a + b, 0) / x.length;
export const sd = (x: readonly number[]) => Math.sqrt(mean(x.map((v) => (v - mean(x)) ** 2)));
export const us = (ns: number) => (ns / 1e3).toFixed(3);
