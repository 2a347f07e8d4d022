// Shared by the runner client's tests (unit, against test/unit/runner/fakeRunner.ts, and GPU): a
// failed request as its RunnerRequestError, whether a process is still there, and a benchmark request
// whose kernel name tells the fake runner what to do.
import assert from "node:assert/strict";
import type { BenchmarkRequest } from "../../../native/runner/protocol";
import { RunnerRequestError } from "../../../native/runner/runnerClient";

export async function rejection(p: Promise<unknown>): Promise<RunnerRequestError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof RunnerRequestError, `expected a RunnerRequestError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected the request to fail");
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until the process is gone (the client resolves requests before the kill completes). */
export async function waitGone(pid: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(pid), false, `process ${pid} is still running`);
}

/** A benchmark request for the fake runner: `mode` is what it does (see fakeRunner.ts). */
export function bench(mode: string, ticks = 1, tickMs = 10): BenchmarkRequest {
  return {
    cubinPath: "/nonexistent.cubin",
    device: 0,
    kernel: {
      symbol: mode,
      displayName: mode,
      grid: [1, 1, 1],
      block: [1, 1, 1],
      dynamicSmemBytes: 0,
      args: [],
    },
    timing: {
      warmupRuns: 0,
      minSamples: ticks,
      maxSamples: ticks,
      targetRsdPct: 0.5,
      budgetMs: tickMs,
      flushL2: false,
    },
  };
}
