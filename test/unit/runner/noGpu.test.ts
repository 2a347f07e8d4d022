// The real runner and `cuda-kernel-dev devices` on a machine with no NVIDIA driver (CI): a clear
// NO_DRIVER answer saying what is missing, never a crash; skipped where a GPU is (test/support/gpu.ts
// asks the runner). And the runner without its addon, on any machine: the override names an addon
// that is not there, so the built one is not tried.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { ADDON_ENV, addonCandidates } from "../../../native/runner/addon";
import { RunnerClient } from "../../../native/runner/runnerClient";
import { skipWithGpu } from "../../support/gpu";
import { rejection } from "./clientHelpers";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const root = join(__dirname, "..", "..", "..");
const runnerSource = join(root, "native", "runner", "runner.ts");

describe("the addon loader", () => {
  it("tries only the addon CUDA_KERNEL_DEV_ADDON names, else the bundle's and the build's", () => {
    const saved = process.env[ADDON_ENV];
    try {
      process.env[ADDON_ENV] = "elsewhere/cuda_addon.node";
      assert.deepEqual(addonCandidates("/ext/dist"), [resolve("elsewhere/cuda_addon.node")]);
      delete process.env[ADDON_ENV];
      assert.deepEqual(addonCandidates("/ext/dist"), [
        "/ext/dist/native/cuda_addon.node",
        "/ext/native/cuda_addon.node",
        "/ext/build/Release/cuda_addon.node",
      ]);
    } finally {
      if (saved === undefined) delete process.env[ADDON_ENV];
      else process.env[ADDON_ENV] = saved;
    }
  });

  it("the runner says which addon paths it tried when the addon is missing", async () => {
    const c = new RunnerClient({
      runnerPath: runnerSource,
      timeoutSeconds: 60,
      env: { [ADDON_ENV]: "/nonexistent/cuda_addon.node" },
    });
    try {
      const hello = await c.request("hello", {});
      assert.equal(hello.driverVersion, null);
      assert.equal(hello.error?.code, "NO_ADDON");
      assert.equal(
        hello.error?.message,
        "the CUDA addon (cuda_addon.node) could not be loaded; tried: /nonexistent/cuda_addon.node (missing)",
      );
      const err = await rejection(c.request("devices", {}));
      assert.equal(err.code, "NO_ADDON");
    } finally {
      await c.dispose();
    }
  });
});

describe("without a GPU driver", { skip: skipWithGpu() }, () => {
  it("the runner answers NO_DRIVER naming libcuda.so.1, and stays up for the next request", async () => {
    const c = new RunnerClient({ runnerPath: runnerSource, timeoutSeconds: 60 });
    try {
      const hello = await c.request("hello", {});
      assert.equal(hello.driverVersion, null);
      assert.equal(hello.error?.code, "NO_DRIVER");
      const err = await rejection(c.request("devices", {}));
      assert.equal(err.code, "NO_DRIVER");
      assert.match(err.message, /libcuda\.so\.1/);
      const bad = await rejection(c.request("benchmark", { cubinPath: "" } as never));
      assert.equal(bad.code, "BAD_REQUEST");
      assert.equal((await c.request("hello", {})).pid, hello.pid);
    } finally {
      await c.dispose();
    }
  });

  const cli = (args: string[]) =>
    promisify(execFile)(
      process.execPath,
      ["--import", "tsx", join(root, "server", "cli", "main.ts"), "devices", ...args],
      {
        cwd: root,
        env: { ...process.env, CUDA_KERNEL_DEV_RUNNER: runnerSource },
      },
    );

  it("`devices` prints one line saying what is missing and exits 3 (a missing tool or driver)", async () => {
    const err = (await cli([]).then(
      () => assert.fail("expected a non-zero exit"),
      (e: unknown) => e,
    )) as { code: number; stdout: string; stderr: string };
    assert.equal(err.code, 3);
    assert.equal(err.stdout, "");
    assert.equal(err.stderr.trim().split("\n").length, 1, err.stderr);
    assert.match(err.stderr, /^cuda-kernel-dev: no usable GPU: .*(libcuda\.so\.1|cuda_addon\.node)/);
    assert.doesNotMatch(err.stderr, /\n\s+at /);
  });

  it("`devices --json` prints [] and exits 0", async () => {
    const { stdout } = await cli(["--json"]);
    assert.deepEqual(JSON.parse(stdout), []);
  });
});
