// `cuda-kernel-dev nsys summarize|profile` as a user runs them, and where nsys is looked for.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { findNsys, nsysCandidates } from "../../../server/profile/nsysFind";
import type { NsysSummary } from "../../../server/profile/nsysReportSummary";
import { tempDir } from "../../support/tempDir";

const root = join(__dirname, "../../..");
const FIX = join(root, "test/fixtures/nsys");
const cli = (...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", join(root, "server/cli/main.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
  });

describe("cuda-kernel-dev nsys summarize", () => {
  it("summarize --json: the documented shape, the real report's numbers", () => {
    const r = cli("nsys", "summarize", join(FIX, "step.sqlite"), "--json");
    assert.equal(r.status, 0, r.stderr);
    const s = JSON.parse(r.stdout) as NsysSummary;
    assert.deepEqual(Object.keys(s), [
      "report",
      "gpus",
      "launches",
      "kernelCount",
      "kernels",
      "memory",
      "gpuIdle",
      "nvtx",
    ]);
    assert.equal(s.kernelCount, 72);
    assert.deepEqual(
      s.nvtx.find((n) => n.name === "step")!.instances.map((i) => i.launches),
      [9, 11, 13, 15, 17],
    );
    assert.deepEqual(Object.keys(s.kernels[0]!).sort(), [
      "avgNs",
      "instances",
      "maxNs",
      "medNs",
      "minNs",
      "name",
      "registersPerThread",
      "shapes",
      "shortName",
      "stdDevNs",
      "timePct",
      "totalNs",
    ]);
  });

  it("summarize as text: kernels, memory, launches per range", () => {
    const r = cli("nsys", "summarize", join(FIX, "step.sqlite"));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /72 kernels from 72 launches/);
    assert.match(r.stdout, /GPU 0: busy .* idle 99\.8%/);
    assert.match(r.stdout, /\[CUDA memcpy Host-to-Device\]: 6 in/);
    assert.match(r.stdout, /step x5: 13 \[9-17\] launches, 4 distinct kernels/);
  });
});

describe("cuda-kernel-dev nsys: faults and profile", () => {
  it("exit codes: 1 for damaged input, 3 when nsys is missing", () => {
    const d = tempDir("ckd-nsys-cli-");
    writeFileSync(join(d, "bad.sqlite"), "not sqlite at all ".repeat(64));
    const bad = cli("nsys", "summarize", join(d, "bad.sqlite"));
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /^cuda-kernel-dev: .*bad\.sqlite is damaged or not an SQLite file/);
    copyFileSync(join(FIX, "nocuda.nsys-rep"), join(d, "nocuda.nsys-rep")); // no export beside it
    const rep = cli("nsys", "summarize", join(d, "nocuda.nsys-rep"), "--nsys", join(d, "missing-nsys"));
    assert.equal(rep.status, 3);
    assert.match(
      rep.stderr,
      /needs the Nsight Systems CLI \(nsys\), which was not found \(looked on PATH, .*cudaKernelDev\.nsys\.path/,
    );
    const prof = cli(
      "nsys",
      "profile",
      "--nsys",
      join(d, "missing-nsys"),
      "-o",
      join(d, "r.nsys-rep"),
      "--",
      "true",
    );
    assert.equal(prof.status, 3);
    assert.deepEqual(readdirSync(d).sort(), ["bad.sqlite", "nocuda.nsys-rep"], "nothing written");
  });

  it("profile -- COMMAND: nsys gets the command after its options; the report lands where asked", () => {
    const d = tempDir("ckd-nsys-cli-");
    const nsys = join(d, "nsys");
    writeFileSync(
      nsys,
      `#!/bin/sh\necho "$@" > "${join(d, "args")}"\nout=""; prev=""; for a in "$@"; do [ "$prev" = "--output" ] && out=$a; prev=$a; done\n` +
        `case "$1" in profile) cp "${join(FIX, "step.nsys-rep")}" "$out.nsys-rep";; export) cp "${join(FIX, "step.sqlite")}" "$out";; esac\n`,
    );
    chmodSync(nsys, 0o755);
    const r = cli(
      "nsys",
      "profile",
      "--nsys",
      nsys,
      "--json",
      "-o",
      join(d, "run.nsys-rep"),
      "--",
      "python3",
      "step.py",
      "--steps",
      "5",
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as NsysSummary).kernelCount, 72);
    assert.match(r.stderr, /report: .*run\.nsys-rep/);
    assert.deepEqual(readdirSync(d).sort(), ["args", "nsys", "run.nsys-rep", "run.sqlite"]);
  });
});

describe("finding nsys", () => {
  const dirs: Record<string, string[]> = {
    "/opt/nvidia/nsight-systems": ["2024.6.2", "2025.3.1"],
    "/usr/local": ["bin", "cuda-12.8", "cuda-13.0"],
    "/usr/local/cuda-12.8": ["nsight-systems-2024.6.2"],
    "/opt/nvidia/nsight-compute": ["2025.3.1"],
  };
  const o = { env: { PATH: "/usr/bin:/home/me/bin" }, listDir: (d: string) => dirs[d] ?? [] };

  it("looks on PATH, then Nsight Systems (newest first), the toolkit, Nsight Compute's copy", () => {
    assert.deepEqual(nsysCandidates(o), [
      "/usr/bin/nsys",
      "/home/me/bin/nsys",
      "/opt/nvidia/nsight-systems/2025.3.1/bin/nsys",
      "/opt/nvidia/nsight-systems/2025.3.1/target-linux-x64/nsys",
      "/opt/nvidia/nsight-systems/2024.6.2/bin/nsys",
      "/opt/nvidia/nsight-systems/2024.6.2/target-linux-x64/nsys",
      "/usr/local/cuda/bin/nsys",
      "/usr/local/cuda-13.0/bin/nsys",
      "/usr/local/cuda-12.8/nsight-systems-2024.6.2/bin/nsys",
      "/usr/local/cuda-12.8/bin/nsys",
      "/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys",
    ]);
  });

  it("the setting wins as given; else the first executable candidate; else none", () => {
    assert.equal(findNsys({ ...o, configured: " /my/nsys ", isExecutable: () => false }), "/my/nsys");
    const gpuMachine = "/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys";
    assert.equal(findNsys({ ...o, isExecutable: (p) => p === gpuMachine }), gpuMachine);
    assert.equal(findNsys({ ...o, isExecutable: () => false }), undefined);
    assert.equal(
      findNsys({ ...o, configured: "nsys", isExecutable: (p) => p === gpuMachine }),
      gpuMachine,
      "the setting's default, the bare name, is looked up everywhere",
    );
  });
});
