// The runner client's process handling, against a fake runner that hangs, crashes or faults on
// request (test/unit/runner/fakeRunner.ts): timeouts, SIGTERM then SIGKILL, sticky-error
// replacement, the crash-loop bound, cancellation and dispose. No GPU needed. Where a test is about
// how long the client waits, its clock is node:test's mock timers, not real seconds.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RunnerClient, type RunnerClientOptions } from "../../../native/runner/runnerClient";
import { addLaunchObserver, LaunchError, type LaunchEvent } from "../../../server/process/launch";
import { alive, bench, rejection, waitGone } from "./clientHelpers";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const fakeRunner = join(__dirname, "fakeRunner.ts");
const fakeNcu = join(__dirname, "fakeNcu.ts");

function client(options: RunnerClientOptions = {}): RunnerClient {
  return new RunnerClient({ runnerPath: fakeRunner, killGraceMs: 500, ...options });
}

/** Runs `body` with a fresh client, disposed after it, pass or fail. */
async function withClient(
  options: RunnerClientOptions,
  body: (c: RunnerClient) => Promise<void>,
): Promise<void> {
  const c = client(options);
  try {
    await body(c);
  } finally {
    await c.dispose();
  }
}

/** `p`'s outcome if it has settled by the next turn of the event loop, else "pending". */
async function settled<T>(p: Promise<T>): Promise<T | "pending"> {
  return Promise.race([p, new Promise<"pending">((r) => setImmediate(() => r("pending")))]);
}

/** Also starts the runner: with a generous timeout, as starting tsx under load takes a while. */
async function pidOf(c: RunnerClient): Promise<number> {
  return (await c.request("hello", {}, { timeoutSeconds: 60 })).pid;
}

describe("runner client: one long-lived runner", () => {
  it("answers requests from one long-lived process", () =>
    withClient({}, async (c) => {
      const first = await pidOf(c);
      assert.equal(await pidOf(c), first);
      assert.deepEqual(c.status(), { state: "idle", pid: first });
      const err = await rejection(c.request("benchmark", bench("ok"), { timeoutSeconds: 60 }));
      assert.equal(err.code, "OK"); // the fake's way of answering a benchmark
    }));

  it("says where it looked when the runner script is missing", async () => {
    const c = client({ runnerPath: "/nonexistent/runner.js" });
    const err = await rejection(c.request("hello", {}));
    assert.equal(err.code, "NO_RUNNER");
    assert.match(err.message, /\/nonexistent\/runner\.js/);
    await c.dispose();
  });
});

describe("runner client: timeouts", () => {
  it("kills a request that makes no progress within the timeout and starts fresh for the next", () =>
    withClient({ timeoutSeconds: 0.5 }, async (c) => {
      const pid = await pidOf(c);
      const err = await rejection(c.request("benchmark", bench("hang")));
      assert.equal(err.code, "TIMEOUT");
      assert.equal(err.kernel, "hang");
      assert.match(err.message, /no progress for 0.5 s/);
      await waitGone(pid);
      const next = await pidOf(c);
      assert.notEqual(next, pid);
    }));

  it("follows SIGTERM with SIGKILL when the runner ignores it", () =>
    withClient({ timeoutSeconds: 0.5, killGraceMs: 300 }, async (c) => {
      const pid = await pidOf(c);
      const err = await rejection(c.request("benchmark", bench("hang-ignore-term")));
      assert.equal(err.code, "TIMEOUT");
      await waitGone(pid);
    }));

  it("keeps a request alive while progress arrives, even past the timeout; times out on silence after", (t) =>
    withClient({ timeoutSeconds: 4 }, async (c) => {
      const pid = await pidOf(c);
      const seen: number[] = [];
      let progressed: () => void = () => undefined;
      const onProgress = (p: { samples: number }): void => {
        seen.push(p.samples);
        progressed();
      };
      const nextProgress = (): Promise<void> => new Promise((r) => (progressed = r));
      // The client's clock is mocked; the fake runner ticks once at the start and on each SIGUSR2.
      t.mock.timers.enable({ apis: ["setTimeout"] });
      try {
        // 3.9 s of the clock between ticks, 9 ticks: 35 s in all, never 4 s without progress.
        let tick = nextProgress();
        const answered = rejection(c.request("benchmark", bench("progress-on-signal", 10), { onProgress }));
        for (let i = 1; i < 10; i++) {
          const first = await Promise.race([tick.then(() => undefined), answered]);
          assert.equal(first, undefined, `settled before its last tick: ${first?.code} ${first?.message}`);
          t.mock.timers.tick(3900);
          tick = nextProgress();
          process.kill(pid, "SIGUSR2");
        }
        assert.equal((await answered).code, "OK");
        assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
        // The same runner, silent after its first tick: at 3.999 s still waiting, at 4 s TIMEOUT.
        tick = nextProgress();
        const silent = rejection(c.request("benchmark", bench("progress-on-signal", 10), { onProgress }));
        await tick;
        t.mock.timers.tick(3999);
        assert.equal(await settled(silent), "pending", "still waiting at 3.999 s");
        t.mock.timers.tick(1);
        const err = await settled(silent);
        assert.ok(err !== "pending", "timed out at 4 s");
        assert.equal(err.code, "TIMEOUT");
        assert.match(err.message, /no progress for 4 s/);
      } finally {
        t.mock.timers.reset();
      }
      await waitGone(pid); // polls on the real clock
    }));
});

describe("runner client: sticky errors and crashes", () => {
  it("replaces the runner after a sticky CUDA error, without counting it as a crash", () =>
    withClient({ maxRestarts: 1 }, async (c) => {
      let pid = await pidOf(c);
      for (let i = 0; i < 3; i++) {
        const err = await rejection(c.request("benchmark", bench("sticky"), { timeoutSeconds: 60 }));
        assert.equal(err.code, "CUDA_ERROR_ILLEGAL_ADDRESS");
        assert.equal(err.call, "cuCtxSynchronize");
        assert.equal(err.kernel, "sticky");
        assert.equal(err.sticky, true);
        await waitGone(pid);
        const next = await pidOf(c);
        assert.notEqual(next, pid);
        pid = next;
      }
      assert.equal(c.status().state, "idle");
    }));

  it("restarts a crashing runner a bounded number of times, then stays stopped until reset", () =>
    withClient({ maxRestarts: 3, restartWindowMs: 60_000 }, async (c) => {
      for (let i = 0; i < 4; i++) {
        const err = await rejection(c.request("devices", {}, { timeoutSeconds: 60 }));
        assert.equal(err.code, "CRASHED");
        assert.match(err.message, /exited with code 7/);
        assert.match(err.message, /boom: fake runner crashing on purpose/);
      }
      const stopped = await rejection(c.request("hello", {}));
      assert.equal(stopped.code, "STOPPED");
      assert.match(stopped.message, /failed 4 times in 60 s and was stopped/);
      assert.equal(c.status().state, "stopped");
      c.reset();
      assert.ok((await pidOf(c)) > 0);
    }));
});

describe("runner client: cancel and dispose", () => {
  it("cancels a running request by killing its runner; the next request gets a new one", () =>
    withClient({}, async (c) => {
      const pid = await pidOf(c);
      const ac = new AbortController();
      const running = rejection(c.request("benchmark", bench("hang"), { signal: ac.signal }));
      const queued = c.request("hello", {}, { timeoutSeconds: 60 });
      setTimeout(() => ac.abort(), 100);
      assert.equal((await running).code, "CANCELLED");
      await waitGone(pid);
      const next = (await queued).pid; // the queued request ran in a fresh runner
      assert.notEqual(next, pid);
    }));

  it("cancels a queued request without touching the running one", () =>
    withClient({}, async (c) => {
      const ac = new AbortController();
      const first = rejection(c.request("benchmark", bench("progress", 3, 50), { timeoutSeconds: 60 }));
      const second = rejection(c.request("hello", {}, { signal: ac.signal }));
      ac.abort();
      assert.equal((await second).code, "CANCELLED");
      assert.equal((await first).code, "OK");
    }));

  it("fails in-flight requests on dispose and ends the process", async () => {
    const c = client();
    const pid = await pidOf(c);
    const running = rejection(c.request("benchmark", bench("hang")));
    await c.dispose();
    assert.equal((await running).code, "CANCELLED");
    assert.equal(alive(pid), false);
    assert.equal((await rejection(c.request("hello", {}))).code, "CANCELLED");
  });

  it("lets an idle runner exit by itself on dispose (its exit handlers run: a tracer's data is written)", async () => {
    const marker = join(tempDir("ckd-runner-"), "exited");
    process.env.FAKE_RUNNER_EXIT_MARKER = marker;
    try {
      const c = client({ killGraceMs: 30_000 });
      const pid = await pidOf(c);
      await c.dispose();
      assert.equal(alive(pid), false);
      assert.equal(existsSync(marker), true, "the runner ended at the end of its stdin, not by a signal");
    } finally {
      delete process.env.FAKE_RUNNER_EXIT_MARKER;
    }
  });
});

describe("runner client: under a wrapper, one-shot", () => {
  const underNcu = (options: RunnerClientOptions = {}): RunnerClientOptions => ({
    wrapper: {
      command: process.execPath,
      args: ["--import", "tsx", fakeNcu, "-o", "/tmp/ckd-report", "-c", "1"],
      tool: "ncu",
    },
    oneShot: true,
    timeoutSeconds: 60,
    ...options,
  });

  it("runs `ncu <args> node runner` and settles each request once its process has exited", async () => {
    const lines: string[] = [];
    const launches: LaunchEvent[] = [];
    const stop = addLaunchObserver((e) => launches.push(e));
    // maxRestarts 0: had the one-shot exits counted as crashes, the second request would be STOPPED.
    try {
      await withClient(underNcu({ maxRestarts: 0, log: (l) => lines.push(l) }), async (c) => {
        const r = await c.request("benchmark", bench("answer"));
        assert.equal(r.device, "fake GPU");
        // ncu's last line comes after the runner exited: the answer waited for it.
        assert.equal(lines.at(-1), "==PROF== Report: /tmp/ckd-report.ncu-rep");
        assert.match(lines[0]!, /^==PROF== Connected/);
        const first = await pidOf(c);
        const second = await pidOf(c);
        assert.notEqual(first, second);
        await waitGone(first);
        assert.equal(c.status().state, "not-started");
      });
    } finally {
      stop();
    }
    assert.equal(launches[0]?.tool, "ncu");
    assert.deepEqual(launches[0]?.args.slice(-4), [process.execPath, "--import", "tsx", fakeRunner]);
  });

  it("reports a runner that died under the wrapper as CRASHED, with the wrapper's exit code", () =>
    withClient(underNcu(), async (c) => {
      const err = await rejection(c.request("benchmark", bench("crash")));
      assert.equal(err.code, "CRASHED");
      assert.equal(err.exitCode, 7);
      assert.equal(err.kernel, "crash");
      assert.match(err.message, /^ncu exited with code 7: .*boom: fake runner crashing in a benchmark/);
    }));

  it("gives the launcher's NOT_FOUND as the cause when the wrapper cannot start", () =>
    withClient(
      {
        wrapper: { command: "/nonexistent/ncu", args: [], tool: "ncu", setting: "cudaKernelDev.ncu.path" },
        oneShot: true,
      },
      async (c) => {
        const err = await rejection(c.request("benchmark", bench("answer"), { timeoutSeconds: 60 }));
        assert.equal(err.code, "CRASHED");
        assert.ok(err.cause instanceof LaunchError, String(err.cause));
        assert.equal(err.cause.code, "NOT_FOUND");
        assert.match(err.cause.message, /cudaKernelDev\.ncu\.path/);
      },
    ));

  it("kills a one-shot runner whose request is cancelled", () =>
    withClient(underNcu(), async (c) => {
      const ac = new AbortController();
      const running = rejection(c.request("benchmark", bench("hang"), { signal: ac.signal }));
      const wrapperPid = c.status().pid!; // spawned at once by the request
      setTimeout(() => ac.abort(), 100);
      assert.equal((await running).code, "CANCELLED");
      await waitGone(wrapperPid);
    }));
});
