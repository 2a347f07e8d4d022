// BenchProfiler against a stand-in for ncu (test/unit/runner/fakeNcu.ts) around the fake runner: the
// first benchmark runs one-shot under ncu through the runner client, everything else goes to the inner
// runner; ncu's failures come back as NcuError, the runner's own as RunnerRequestError. No GPU needed.
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { RunnerRequestError } from "../../../native/runner/runnerClient";
import type { BenchRunner } from "../../../server/bench/runBench";
import { NcuError } from "../../../server/profile/ncuCli";
import { BenchProfiler, type BenchProfileOptions } from "../../../server/profile/profileBench";
import { bench } from "../runner/clientHelpers";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const runnerTests = join(__dirname, "..", "runner");

describe("profiling a benchmark under ncu (BenchProfiler)", () => {
  let dir: string;
  let ncu: string;
  const asked: string[] = [];
  const inner: BenchRunner = {
    request: (method) => {
      asked.push(method);
      return Promise.resolve({ pid: 0, driverVersion: null } as never);
    },
  };
  const profiler = (o: Partial<BenchProfileOptions> = {}) =>
    new BenchProfiler({
      inner,
      ncuPath: ncu,
      runnerPath: join(runnerTests, "fakeRunner.ts"),
      execPath: process.execPath,
      report: join(dir, "report"),
      set: "basic",
      clockControl: "base",
      count: 1,
      ...o,
    });

  before(() => {
    dir = tempDir("ckd-profile-bench-");
    // ncu is one executable: a script that runs the TypeScript stand-in.
    ncu = join(dir, "ncu");
    writeFileSync(
      ncu,
      `#!/bin/sh\nexec "${process.execPath}" --import tsx "${join(runnerTests, "fakeNcu.ts")}" "$@"\n`,
    );
    chmodSync(ncu, 0o755);
  });

  it("profiles the first benchmark under ncu and hands everything else to the inner runner", async () => {
    const lines: string[] = [];
    const p = profiler({ onLine: (l) => lines.push(l) });
    await p.request("hello", {});
    const r = await p.request("benchmark", bench("answer"), { timeoutSeconds: 60 });
    assert.equal(r.device, "fake GPU");
    assert.equal(p.report, join(dir, "report.ncu-rep"));
    assert.match(lines.join("\n"), /==PROF== Connected/);
    await p.request("benchmark", bench("answer"));
    assert.deepEqual(asked, ["hello", "benchmark"]);
  });

  it("says so when ncu profiled no kernel", async () => {
    const req = bench("answer");
    req.kernel.symbol = "none";
    await assert.rejects(profiler().request("benchmark", req), (e) => {
      assert.ok(e instanceof NcuError);
      assert.equal(e.code, "NO_KERNELS");
      return true;
    });
  });

  it("names the setting when ncu is missing", async () => {
    await assert.rejects(
      profiler({ ncuPath: "/nonexistent/ncu" }).request("benchmark", bench("answer")),
      (e) => {
        assert.ok(e instanceof NcuError);
        assert.equal(e.code, "NOT_FOUND");
        assert.match(e.message, /cudaKernelDev\.ncu\.path/);
        return true;
      },
    );
  });

  it("gives ncu's exit code when the runner died under it", async () => {
    await assert.rejects(profiler().request("benchmark", bench("crash")), (e) => {
      assert.ok(e instanceof NcuError);
      assert.equal(e.code, "FAILED");
      assert.match(e.message, /^the runner under ncu gave no answer \(ncu exit 7\): /);
      return true;
    });
  });

  it("passes the runner's own error on with its CUDA code and call", async () => {
    await assert.rejects(profiler().request("benchmark", bench("sticky")), (e) => {
      assert.ok(e instanceof RunnerRequestError);
      assert.equal(e.code, "CUDA_ERROR_ILLEGAL_ADDRESS");
      assert.equal(e.call, "cuCtxSynchronize");
      return true;
    });
  });

  it("is cancelled by the signal", async () => {
    const ac = new AbortController();
    const running = profiler().request("benchmark", bench("hang"), { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await assert.rejects(running, (e) => e instanceof NcuError && e.code === "CANCELLED");
  });
});
