// The CLI's exit codes against README's "Exit codes" table: each situation is run for real, and its
// code must be the one the table gives for it, whichever command meets it.
import assert from "node:assert/strict";
import { chmodSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../../support/cliRun";
import { tempDir } from "../../support/tempDir";

const REPO = join(__dirname, "..", "..", "..");

/** Situation (the table's second column, its first words) → code, read from README. */
function table(): Map<string, number> {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Exit codes"));
  const rows = new Map<string, number>();
  for (const m of section.slice(0, section.indexOf("\n## ")).matchAll(/^\| (\d+) \| ([^|]+) \|/gm))
    rows.set(m[2]!.trim(), Number(m[1]));
  return rows;
}
const TABLE = table();
/** The code of the row whose situation starts with `words`. */
function codeFor(words: string): number {
  const hits = [...TABLE].filter(([situation]) => situation.startsWith(words));
  assert.equal(
    hits.length,
    1,
    `README's Exit codes table has no single row "${words}…": ${[...TABLE.keys()].join("; ")}`,
  );
  return hits[0]![1];
}

const dir = tempDir("ckd-exit-");
const write = (name: string, text: string, mode?: number): string => {
  writeFileSync(join(dir, name), text);
  if (mode !== undefined) chmodSync(join(dir, name), mode);
  return join(dir, name);
};
const KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 0.f; }\n";
const BAD = `__device__ float f(float v) { return __shfl_xor(v, 1); }\n`;
write("k.cu", KERNEL);
write("bad.cu", BAD);
// The first line of a real details export: the columns, no rows.
const HEADER = readFileSync(join(REPO, "test/fixtures/profile/damaged-truncated-midrow.csv"), "utf8").split(
  "\n",
)[0]!;
write("header-only.csv", `${HEADER}\n`);
// An nvcc that rejects every file, as nvcc does: file(line): error, exit 1.
const rejecting = write(
  "nvcc-rejects",
  '#!/bin/sh\necho "k.cu(1): error: expected a \\";\\""\nexit 1\n',
  0o755,
);
// A GPU runner on a machine without the driver: every request answered NO_DRIVER.
const noDriver = write(
  "runner-no-driver.js",
  `require("node:readline").createInterface({ input: process.stdin }).on("line", (l) => {
  const { id } = JSON.parse(l);
  process.stdout.write(JSON.stringify({ id, error: { code: "NO_DRIVER", message: "libcuda.so.1 could not be loaded" } }) + "\\n");
});\n`,
);
const linkDir = tempDir("ckd-exit-link-");
writeFileSync(join(linkDir, "k.cu"), KERNEL);
symlinkSync("missing.cu", join(linkDir, "dangling.cu"));

interface Case {
  situation: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** What stderr must say, besides the code. */
  says?: RegExp;
}

const CASES: Case[] = [
  { situation: "Done, nothing to report", args: ["lint", "--no-gpu", "--arch", "sm_90", "k.cu"] },
  { situation: "Done, nothing to report", args: ["--version"] },
  { situation: "Done, and it found something", args: ["lint", "--no-gpu", "--arch", "sm_90", "bad.cu"] },
  {
    situation: "Done, and it found something",
    args: ["ncu", "summarize", "--no-cache", "header-only.csv"],
    says: /header-only\.csv: no kernels in report/,
  },
  { situation: "Bad usage", args: ["lint", "--no-such-option"] },
  { situation: "Bad usage", args: ["lint", "--format", "xml"] },
  {
    situation: "Bad usage",
    args: ["occupancy", "--regs", "64", "--block", "256"],
    says: /--arch is required/,
  },
  { situation: "Bad usage", args: ["resources", "nope.cu"] },
  { situation: "Bad usage", args: ["profile", "k.cu", "--kernel", "k", "--count", "0"], says: /--count/ },
  {
    situation: "A tool it needs",
    args: ["resources", "k.cu", "--arch", "sm_90", "--nvcc", "/nonexistent/nvcc"],
    says: /^cuda-kernel-dev: --nvcc: nvcc not found at "\/nonexistent\/nvcc"\n$/,
  },
  {
    situation: "A tool it needs",
    args: ["devices"],
    env: { CUDA_KERNEL_DEV_RUNNER: noDriver },
    says: /no usable GPU: libcuda\.so\.1/,
  },
  {
    situation: "The code does not compile",
    args: ["resources", "k.cu", "--arch", "sm_90", "--nvcc", rejecting],
  },
  {
    situation: "Incomplete",
    args: ["lint", "--no-gpu", "--arch", "sm_90", "."],
    cwd: linkDir,
    says: /dangling\.cu: not linted/,
  },
];

describe("exit codes: every command, the same code for the same situation (README, Exit codes)", () => {
  for (const c of CASES)
    it(`${c.situation}: cuda-kernel-dev ${c.args.map((a) => (a.startsWith(dir) ? a.slice(dir.length + 1) : a)).join(" ")}`, () => {
      const r = runCli({ cwd: c.cwd ?? dir, env: c.env ?? {} }, ...c.args);
      assert.equal(r.code, codeFor(c.situation), `stderr: ${r.stderr}`);
      if (c.says) assert.match(r.stderr, c.says);
    });
});
