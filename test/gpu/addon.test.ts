// The addon's own checks on a real GPU, loaded straight into this test process: bad arguments and
// stale handles are coded JS errors, driver errors carry the CUDA name, the call and the kernel.
import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import type { CudaAddon, ModuleHandle } from "../../native/addon";
import { packPointer, packScalar } from "../../native/runner/hostData";
import { compileCubin, openGpu0 } from "./device";
import { repoRoot } from "./paths";

function coded(code: string, extra: Record<string, string> = {}) {
  return (err: Error & Record<string, unknown>) => {
    assert.equal(err.code, code, err.message);
    for (const [k, v] of Object.entries(extra)) assert.equal(err[k], v, k);
    return true;
  };
}

let cuda: CudaAddon;
let mod: ModuleHandle;

before(() => {
  const gpu = openGpu0();
  cuda = gpu.cuda;
  mod = cuda.loadModule(compileCubin(join(repoRoot, "test", "gpu", "kernels", "runnerKernels.cu"), gpu.arch));
});

describe("CUDA addon on a GPU: driver and memory", () => {
  it("reports the driver and copies memory both ways", () => {
    const s = cuda.driverStatus();
    assert.equal(s.available, true);
    assert.ok(s.driverVersion! >= 12000);
    const ptr = cuda.memAlloc(1024);
    try {
      const data = Uint8Array.from({ length: 1024 }, (_, i) => i % 251);
      cuda.memcpyHtoD(ptr, data);
      assert.deepEqual(new Uint8Array(cuda.memcpyDtoH(ptr, 1024)), data);
      cuda.memsetD8(ptr, 7, 16);
      assert.deepEqual([...cuda.memcpyDtoH(ptr, 17)], [...Array<number>(16).fill(7), 16]);
    } finally {
      cuda.memFree(ptr);
    }
  });
});

describe("CUDA addon on a GPU: coded errors", () => {
  it("rejects bad arguments and stale handles with codes, not crashes", () => {
    assert.throws(() => cuda.memAlloc(-1), coded("BAD_ARGUMENT"));
    assert.throws(() => cuda.memAlloc("8" as never), coded("BAD_ARGUMENT"));
    assert.throws(() => cuda.memFree(0n), coded("BAD_ARGUMENT"));
    assert.throws(() => cuda.memcpyHtoD(1n << 40n, [1, 2] as never), coded("BAD_ARGUMENT"));
    assert.throws(() => cuda.getFunction(999999 as ModuleHandle, "x"), coded("BAD_HANDLE"));
    assert.throws(() => cuda.functionAttributes(424242 as never), coded("BAD_HANDLE"));
    assert.throws(() => cuda.deviceAttributes(99), coded("BAD_ARGUMENT"));
    assert.throws(() => cuda.loadModule("/nonexistent.cubin"), coded("IO_ERROR"));
    assert.throws(
      () => cuda.getFunction(mod, "no_such_kernel"),
      coded("CUDA_ERROR_NOT_FOUND", { call: "cuModuleGetFunction", kernel: "no_such_kernel" }),
    );
  });

  it("names the kernel when a launch is refused", () => {
    const fn = cuda.getFunction(mod, "_Z4copyPKfPfi");
    const ptr = cuda.memAlloc(4);
    try {
      const args = [packPointer(ptr), packPointer(ptr), packScalar("i32", 1)];
      assert.throws(
        () => cuda.launch({ fn, grid: [1, 1, 1], block: [2048, 1, 1], args }),
        coded("CUDA_ERROR_INVALID_VALUE", { call: "cuLaunchKernel", kernel: "_Z4copyPKfPfi" }),
      );
      // The refusal is not sticky: the next launch works.
      cuda.launch({ fn, grid: [1, 1, 1], block: [32, 1, 1], args });
      cuda.synchronize();
    } finally {
      cuda.memFree(ptr);
    }
  });
});

describe("CUDA addon on a GPU: kernels", () => {
  it("lists kernels, their attributes and occupancy", () => {
    const names = cuda.listFunctions(mod);
    assert.ok(names.includes("_Z4copyPKfPfi") && names.some((n) => n.startsWith("_Z5scale")));
    const fn = cuda.getFunction(mod, "_Z12smem_reversePKfPfi");
    const a = cuda.functionAttributes(fn);
    assert.ok(a.numRegs > 0 && a.maxThreadsPerBlock > 0);
    const smemPerSM = cuda.deviceAttributes(0).sharedMemPerSMBytes;
    cuda.setMaxDynamicSharedMemory(fn, 100 * 1024);
    assert.equal(cuda.functionAttributes(fn).maxDynamicSharedSizeBytes, 100 * 1024);
    const blocks = cuda.occupancyMaxActiveBlocksPerMultiprocessor(fn, 256, 100 * 1024);
    // Each block holds 100 KB plus the per-block reservation: what fits in the SM's shared memory.
    assert.equal(
      blocks,
      Math.floor(smemPerSM / (100 * 1024 + cuda.deviceAttributes(0).reservedSharedMemPerBlockBytes)),
    );
    console.log(`smem_reverse with 100 KB dynamic smem: ${blocks} blocks/SM; ${JSON.stringify(a)}`);
  });
});
