// The built addon on a machine without the NVIDIA driver (CI): it loads, says what is missing, and
// every call fails with a coded JS Error rather than aborting the process.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CudaAddon } from "../../../native/addon";
import { loadAddon } from "../../../native/runner/addon";
import { skipWithGpu } from "../../support/gpu";

describe("cuda addon without a driver", { skip: skipWithGpu() }, () => {
  const addon: CudaAddon = loadAddon();

  it("exports the typed surface", () => {
    const names: (keyof CudaAddon)[] = [
      "driverStatus",
      "init",
      "deviceCount",
      "deviceAttributes",
      "useDevice",
      "synchronize",
      "memGetInfo",
      "memAlloc",
      "memFree",
      "memcpyHtoD",
      "memcpyDtoH",
      "memsetD8",
      "loadModule",
      "unloadModule",
      "getFunction",
      "listFunctions",
      "functionAttributes",
      "setMaxDynamicSharedMemory",
      "occupancyMaxActiveBlocksPerMultiprocessor",
      "launch",
      "timedLaunch",
      "fillBuffer",
      "compareBuffers",
    ];
    for (const n of names) assert.equal(typeof addon[n], "function", n);
    assert.equal(addon.abiVersion, 1);
  });

  it("reports the missing libcuda.so.1 without throwing", () => {
    const s = addon.driverStatus();
    assert.equal(s.available, false);
    assert.match(s.reason ?? "", /libcuda\.so\.1/);
    assert.equal(s.driverVersion, undefined);
  });

  it("throws coded errors from every entry point instead of aborting", () => {
    const calls: [string, () => unknown][] = [
      ["init", () => addon.init()],
      ["deviceCount", () => addon.deviceCount()],
      ["memAlloc", () => addon.memAlloc(16)],
      ["loadModule", () => addon.loadModule("/nonexistent.cubin")],
      [
        "timedLaunch",
        () => addon.timedLaunch({ fn: 1 as never, grid: [1, 1, 1], block: [1, 1, 1], args: [] }),
      ],
      [
        "fillBuffer",
        () => addon.fillBuffer({ ptr: 1n, dtype: "f32", count: 1, kind: "randn", seed: 1, a: 0, b: 0 }),
      ],
      [
        "compareBuffers",
        () => addon.compareBuffers({ got: { ptr: 1n, dtype: "f32" }, count: 1, atol: 0, rtol: 0 }),
      ],
    ];
    for (const [name, call] of calls) {
      assert.throws(call, (err: Error & { code?: string }) => {
        assert.ok(err instanceof Error, name);
        assert.equal(err.code, "NO_DRIVER", name);
        assert.match(err.message, /libcuda\.so\.1/);
        return true;
      });
    }
  });
});
