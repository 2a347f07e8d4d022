// Faults in the tools we run, with real processes standing in for them: ncu missing, ncu dying
// half way through a profile or an export, nvcc missing. Each ends in one clear sentence (what
// failed and what to do), and an export that fails half way leaves the previous CSV as it was.
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { compileForArchs } from "../../../server/compiler/compileFile";
import { NvccNotFoundError, resolveNvcc } from "../../../server/compiler/nvcc";
import { exportPage, NcuError, profile } from "../../../server/profile/ncuCli";
import { LaunchError } from "../../../server/process/launch";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const dir = tempDir("ckd-faults-tools-");
after(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

const profileOpts = {
  command: ["./app"],
  report: join(dir, "reports", "r"),
  set: "basic" as const,
  clockControl: "base" as const,
};

describe("ncu missing", () => {
  it("profiling names the setting to fix", async () => {
    await assert.rejects(
      profile({ ncuPath: join(dir, "no-such-ncu"), ...profileOpts }),
      (e) => e instanceof NcuError && e.code === "NOT_FOUND" && /cudaKernelDev\.ncu\.path/.test(e.message),
    );
  });
});

describe("ncu failing mid-run", () => {
  it("killed while profiling: says it was killed, with ncu's last words", async () => {
    const ncu = script(
      "ncu-killed.sh",
      'echo "==PROF== Connected to process 4242 (/work/app)"\necho "==PROF== Profiling \\"rmsnorm\\" - 0: 0%....50%"\nkill -9 $$',
    );
    await assert.rejects(
      profile({ ncuPath: ncu, ...profileOpts }),
      (e) =>
        e instanceof NcuError &&
        e.code === "FAILED" &&
        /killed by SIGKILL/.test(e.message) &&
        /Profiling/.test(e.message),
    );
  });

  it("an ==ERROR== from ncu is the message", async () => {
    const ncu = script(
      "ncu-error.sh",
      'echo "==PROF== Connected to process 4242"\necho "==ERROR== An error was reported by the driver" >&2\nexit 1',
    );
    await assert.rejects(
      profile({ ncuPath: ncu, ...profileOpts }),
      (e) =>
        e instanceof NcuError &&
        e.message === "ncu failed (exit code 1): An error was reported by the driver",
    );
  });

  it("an export that dies half way leaves the previous CSV untouched and no partial file", async () => {
    const csv = join(dir, "r.details.csv");
    writeFileSync(csv, "the previous export\n");
    const ncu = script("ncu-export-dies.sh", 'echo \'"ID","Kernel Name","Section\'\nkill -9 $$');
    await assert.rejects(
      exportPage(ncu, join(dir, "r.ncu-rep"), "details", csv),
      (e) => e instanceof NcuError && /killed by SIGKILL/.test(e.message),
    );
    assert.equal(readFileSync(csv, "utf8"), "the previous export\n");
    assert.equal(existsSync(`${csv}.partial`), false);
  });
});

describe("nvcc missing", () => {
  it("a configured path that does not exist names the setting", async () => {
    await assert.rejects(
      resolveNvcc(join(dir, "cuda", "bin", "nvcc")),
      (e) => e instanceof NvccNotFoundError && /cudaKernelDev\.nvcc\.path/.test(e.message),
    );
  });

  it("an nvcc that disappears between resolving and running is a clear error, not a crash", async () => {
    const file = join(dir, "k.cu");
    writeFileSync(file, "__global__ void k() {}\n");
    await assert.rejects(
      compileForArchs({
        file,
        archs: ["sm_90"],
        nvcc: join(dir, "gone", "nvcc"),
        flags: { args: [], cwd: dir, from: "settings" },
        timeoutMs: 10_000,
      }),
      (e) =>
        (e instanceof NvccNotFoundError || (e instanceof LaunchError && e.code === "NOT_FOUND")) &&
        /nvcc/.test(e.message) &&
        /cudaKernelDev\.nvcc\.path/.test(e.message),
    );
  });
});
