// `cuda-kernel-dev bench` as a user runs it, on this machine with no GPU or driver: one line saying
// what is missing, a non-zero exit, no stack trace, nothing on stdout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { skipWithGpu } from "../../support/gpu";
import { tempDir } from "../../support/tempDir";

const root = join(__dirname, "../../..");
const fixture = join(root, "test/fixtures/bench/scale.cu");

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        "--import",
        "tsx",
        join(root, "server/cli/main.ts"),
        "bench",
        "--workspace",
        tempDir("ckd-ws-"),
        ...args,
      ],
      { env: { ...process.env, CUDA_KERNEL_DEV_RUNNER: join(root, "native/runner/runner.ts") }, cwd: root },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function oneLine(stderr: string): string {
  const lines = stderr.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("npm warn"));
  assert.equal(lines.length, 1, `one line, got:\n${stderr}`);
  assert.ok(!/^\s+at /m.test(stderr), "no stack trace");
  return lines[0]!;
}

test("no GPU or driver: exit 3 and what is missing", { skip: skipWithGpu() }, async () => {
  for (const extra of [[], ["--json"]]) {
    const r = await cli([fixture, "--kernel", "scale_f32", ...extra]);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(
      oneLine(r.stderr),
      /^cuda-kernel-dev: cannot benchmark here: no NVIDIA driver \(libcuda\.so\.1/,
    );
  }
});

test("no GPU and no nvcc: both named on the one line", { skip: skipWithGpu() }, async () => {
  const r = await cli([fixture, "--kernel", "scale_f32", "--nvcc", "/opt/none/nvcc"]);
  assert.equal(r.code, 3);
  assert.match(oneLine(r.stderr), /no NVIDIA driver .*; nvcc not found at "\/opt\/none\/nvcc"/);
});

test("a bad spec: exit 2 and file:line:col, before any GPU is needed", async () => {
  const dir = tempDir("ckd-src-");
  const file = join(dir, "k.cu");
  writeFileSync(
    file,
    readFileSync(fixture, "utf8").replace(
      "// @bench arg alpha: f32 = 2.5",
      "// @bench arg alpha: f32 = 2.5 +",
    ),
  );
  const r = await cli([file, "--kernel", "scale_f32"]);
  assert.equal(r.code, 2);
  assert.match(oneLine(r.stderr), /k\.cu:11:33: expected an expression$/);
});

test("no such kernel: exit 2 with the kernels there are", async () => {
  const r = await cli([fixture, "--kernel", "scale"]);
  assert.equal(r.code, 2);
  assert.match(
    oneLine(r.stderr),
    /no __global__ kernel 'scale' in .*scale\.cu \(kernels: scale_f32, scale_naive, copy_vec, square_inplace, fill_ones\)/,
  );
});
