// The real runner and `cuda-kernel-dev devices` on a machine with no NVIDIA driver (CI): a clear
// NO_DRIVER answer saying what is missing, never a crash. Skipped where a driver is present.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { RunnerClient } from "../../../native/runner/runnerClient";
import { rejection } from "./clientHelpers";

const root = join(__dirname, "..", "..", "..");
const runnerSource = join(root, "native", "runner", "runner.ts");
const hasDriver = ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1"].some((p) =>
  existsSync(p),
);
const hasAddon = existsSync(join(root, "native", "build", "Release", "cuda_addon.node"));

describe("without a GPU driver", { skip: hasDriver && "a CUDA driver is installed here" }, () => {
  it(
    "the runner answers NO_DRIVER naming libcuda.so.1, and stays up for the next request",
    { skip: !hasAddon && "addon not built (npm run build:native)" },
    async () => {
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
    },
  );

  it("the runner says which addon paths it tried when the addon is missing", async () => {
    const c = new RunnerClient({
      runnerPath: runnerSource,
      timeoutSeconds: 60,
      env: { CUDA_KERNEL_DEV_ADDON: "/nonexistent/cuda_addon.node" },
    });
    try {
      const hello = await c.request("hello", {});
      assert.equal(hello.error?.code, hasAddon ? "NO_DRIVER" : "NO_ADDON");
      if (!hasAddon) assert.match(hello.error?.message ?? "", /\/nonexistent\/cuda_addon\.node \(missing\)/);
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
