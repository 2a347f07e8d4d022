import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  exportArgs,
  ncuFailureMessage,
  noKernelsMessage,
  profile,
  profileArgs,
  NcuError,
} from "../../../server/profile/ncuCli";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const FIX = join(__dirname, "../../fixtures/profile");

describe("ncu command lines and failures", () => {
  it("profiles one kernel with the set, clock control and source import", () => {
    const args = profileArgs({
      command: ["./rms", "8192"],
      report: "/p/r",
      kernel: "rmsnorm_vec",
      count: 1,
      skip: 3,
      set: "detailed",
      clockControl: "none",
    });
    assert.deepEqual(args, [
      "--set",
      "detailed",
      "--clock-control",
      "none",
      "--import-source",
      "yes",
      "-f",
      "-o",
      "/p/r",
      "-k",
      "regex:rmsnorm_vec",
      "-s",
      "3",
      "-c",
      "1",
      "./rms",
      "8192",
    ]);
  });

  it("exports pages as CSV in base units; the source page correlates CUDA lines with SASS", () => {
    assert.deepEqual(exportArgs("r.ncu-rep", "raw"), [
      "--import",
      "r.ncu-rep",
      "--csv",
      "--page",
      "raw",
      "--print-units",
      "base",
    ]);
    assert.deepEqual(exportArgs("r.ncu-rep", "source").slice(-2), ["--print-source", "cuda,sass"]);
  });

  it("no kernel matched (real H100 output): lists the kernels the program launched", () => {
    const msg = noKernelsMessage(readFileSync(join(FIX, "ncu-no-kernels-h100.log"), "utf8"), "doesnotexist");
    assert.equal(
      msg,
      'ncu profiled no kernels matching "doesnotexist"; the program launched: rmsnorm_scalar, rmsnorm_vec',
    );
  });

  it("a failed run: ncu's ==ERROR== line is the message", () => {
    assert.equal(
      ncuFailureMessage(readFileSync(join(FIX, "ncu-app-failed-h100.log"), "utf8")),
      "The application returned an error code (1).",
    );
  });

  /** Profiles with an ncu that does not exist, into a folder that is never made. */
  const profileWithoutNcu = (signal?: AbortSignal): Promise<string> =>
    profile({
      ncuPath: "/nonexistent/ncu",
      command: ["true"],
      report: join(tempDir("ckd-ncu-"), "never", "r"),
      set: "basic",
      clockControl: "base",
      ...(signal ? { signal } : {}),
    });

  it("ncu missing: a NOT_FOUND error naming the setting", async () => {
    await assert.rejects(
      profileWithoutNcu(),
      (e: unknown) =>
        e instanceof NcuError && e.code === "NOT_FOUND" && /cudaKernelDev\.ncu\.path/.test(e.message),
    );
  });

  it("cancelled before it starts: CANCELLED", async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(
      profileWithoutNcu(ac.signal),
      (e: unknown) => e instanceof NcuError && e.code === "CANCELLED",
    );
  });
});
