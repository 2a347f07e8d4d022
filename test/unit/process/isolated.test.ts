// The reader process (server/process/isolated.ts) with real children: an answer comes back; the
// child's error, or its exit without an answer, is an error; a query that never ends is stopped by
// the time budget, one that fills memory (in SQLite's WebAssembly heap, or in the JS heap) by the
// memory budget, and a cancel stops it: each time the child is gone once the promise rejects.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { IsolatedError, runIsolated, type IsolatedFailure } from "../../../server/process/isolated";
import { addLaunchObserver, setLaunchPolicy, type LaunchEvent } from "../../../server/process/launch";
import type { ChildRequest } from "./isolatedChild";

const CHILD = join(__dirname, "isolatedChild.ts");

/** Runs the child on REQ; resolves with its answer, or rejects; `pid` is the child's. */
function run(req: ChildRequest, budget = { seconds: 60, memoryMb: 512 }, signal?: AbortSignal) {
  let pid: number | undefined;
  const done = runIsolated<ChildRequest, unknown>(CHILD, req, {
    tool: "the test child",
    budget,
    onStart: (p) => (pid = p),
    ...(signal ? { signal } : {}),
  });
  return { done, pid: () => pid! };
}

const failed = (reason: IsolatedFailure, re: RegExp) => (e: unknown) =>
  e instanceof IsolatedError && e.reason === reason && re.test(e.message);

/** The child has exited and been reaped: signalling its pid finds no process. */
function assertGone(pid: number): void {
  assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });
}

describe("isolated: answers and failures", () => {
  it("answers the request", async () => {
    assert.deepEqual(await run({ do: "echo" }).done, { do: "echo" });
  });

  it("runs where the trust policy refuses every launch (Restricted Mode); the observers see it", async () => {
    const seen: LaunchEvent[] = [];
    const stop = addLaunchObserver((e) => seen.push(e));
    setLaunchPolicy(() => "nothing runs in an untrusted workspace");
    try {
      assert.deepEqual(await run({ do: "echo" }).done, { do: "echo" });
    } finally {
      setLaunchPolicy(undefined);
      stop();
    }
    assert.deepEqual(
      seen.map((e) => [e.tool, e.outcome, e.command, e.args.at(-1)]),
      [["the test child", "started", process.execPath, CHILD]],
    );
  });

  it("the child's error, and an exit without an answer, are errors", async () => {
    await assert.rejects(run({ do: "throw" }).done, failed("crashed", /the child's own error/));
    await assert.rejects(run({ do: "exit" }).done, failed("crashed", /exited with code 3 without an answer/));
  });
});

describe("isolated: budgets", () => {
  it("a recursive query that never ends (SQLite in WebAssembly) is stopped at the time budget", async () => {
    const r = run({ do: "spin-sql" }, { seconds: 1, memoryMb: 512 });
    await assert.rejects(r.done, failed("time", /took longer than 1 s/));
    assertGone(r.pid());
  });

  it("zeroblob(1e8) rows are stopped at the memory budget", async () => {
    const r = run({ do: "zeroblob-sql" }, { seconds: 60, memoryMb: 256 });
    await assert.rejects(r.done, failed("memory", /needed more than 256 MB/));
    assertGone(r.pid());
  });

  it("a JS heap that grows without end is stopped at the memory budget", async () => {
    const r = run({ do: "heap" }, { seconds: 60, memoryMb: 128 });
    await assert.rejects(r.done, failed("memory", /needed more than 128 MB/));
    assertGone(r.pid());
  });

  it("a cancel stops it", async () => {
    const ac = new AbortController();
    const r = run({ do: "spin-sql" }, { seconds: 60, memoryMb: 512 }, ac.signal);
    ac.abort();
    await assert.rejects(r.done, failed("cancelled", /cancelled/));
    assertGone(r.pid());
    await assert.rejects(run({ do: "echo" }, undefined, ac.signal).done, failed("cancelled", /cancelled/));
  });
});
