// A tool stopped on a timeout, or cancelled (a newer save cancels an older compile), is stopped with
// everything it started: nvcc's cicc and ptxas must not live on with PPID 1. And nvcc writes its
// intermediate files (tmpxft_*) in a private temporary folder that is removed after each run.
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runNvcc } from "../../../server/compiler/nvcc";
import { runProcess } from "../../../server/process/launch";
import { alive, waitGone } from "../runner/clientHelpers";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const dir = tempDir("ckd-killed-");
const pids: number[] = [];
after(() => {
  for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** A fake nvcc: starts a "cicc" that outlives it, leaves a tmpxft file in $TMPDIR, then waits. */
function fakeNvcc(name: string, waits: boolean): { tool: string; pidFile: string; tmpFile: string } {
  const tool = join(dir, name);
  const pidFile = join(dir, `${name}.pid`);
  const tmpFile = join(dir, `${name}.tmpdir`);
  writeFileSync(
    tool,
    `#!/bin/sh\nsleep 1000 &\necho $! > '${pidFile}'\necho "$TMPDIR" > '${tmpFile}'\ntouch "$TMPDIR/tmpxft_0001_k.cpp1.ii"\n${waits ? "wait\n" : ""}`,
  );
  chmodSync(tool, 0o755);
  return { tool, pidFile, tmpFile };
}

async function childPid(pidFile: string): Promise<number> {
  for (let i = 0; i < 100 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 20));
  const pid = Number(readFileSync(pidFile, "utf8"));
  pids.push(pid);
  return pid;
}

describe("a stopped tool is stopped with everything it started", () => {
  it("on a timeout, the grandchild (cicc under nvcc) is killed too", async () => {
    const f = fakeNvcc("nvcc-timeout", true);
    const r = await runProcess(f.tool, [], {
      timeoutMs: 300,
      killGraceMs: 200,
      env: { ...process.env, TMPDIR: dir },
    });
    assert.equal(r.timedOut, true);
    await waitGone(await childPid(f.pidFile), 3000);
  });

  it("on a cancel, the grandchild is killed too", async () => {
    const f = fakeNvcc("nvcc-cancel", true);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const r = await runProcess(f.tool, [], {
      signal: abort.signal,
      killGraceMs: 200,
      env: { ...process.env, TMPDIR: dir },
    });
    assert.equal(r.cancelled, true);
    await waitGone(await childPid(f.pidFile), 3000);
  });

  it("nvcc runs with a private TMPDIR, removed after the run, on success and on a timeout", async () => {
    for (const waits of [false, true]) {
      const f = fakeNvcc(`nvcc-tmp-${waits}`, waits);
      const r = await runNvcc(f.tool, [], { cwd: dir, timeoutMs: waits ? 300 : 10_000 });
      assert.equal(r.timedOut, waits);
      const tmp = readFileSync(f.tmpFile, "utf8").trim();
      assert.notEqual(tmp, "", "TMPDIR was not set");
      assert.notEqual(tmp, tmpdir());
      assert.equal(existsSync(tmp), false, `${tmp} was left behind`);
      await childPid(f.pidFile);
    }
  });
});
