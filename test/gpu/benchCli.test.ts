// `cuda-kernel-dev bench` end to end on the GPU machine: spec -> nvcc (cached) -> runner -> results
// JSON in the shape the panel renders; a template kernel; a baseline that catches a wrong result; the
// cache making the second run skip nvcc. Runs the built CLI (dist/cli.js) as a user would.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { BenchRunResults } from "../../server/bench/results";
import { isBenchRunResults } from "../../server/bench/results";
import { repoRoot } from "./paths";

const cli = join(repoRoot, "dist", "cli.js");
const cacheDir = mkdtempSync(join(tmpdir(), "ckd-gpu-cubin-"));
const workspace = mkdtempSync(join(tmpdir(), "ckd-gpu-ws-"));

function bench(
  file: string,
  kernel: string,
  extra: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        cli,
        "bench",
        join(repoRoot, file),
        "--kernel",
        kernel,
        "--json",
        "--cache-dir",
        cacheDir,
        "--workspace",
        workspace,
        ...extra,
      ],
      {
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, PATH: `${process.env.PATH ?? ""}:/usr/local/cuda/bin` },
      },
      (err, stdout, stderr) =>
        resolve({
          code: err ? ((err as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr,
          ms: performance.now() - started,
        }),
    );
  });
}

function parse(stdout: string): BenchRunResults {
  const r: unknown = JSON.parse(stdout);
  assert.ok(isBenchRunResults(r), "the results JSON has the panel's shape");
  return r;
}

describe("bench CLI on a GPU", () => {
  it("benchmarks the bf16x2 RMSNorm against its template baseline; outputs match; figures are sane", async () => {
    const out = join(workspace, "rmsnorm.json");
    const r = await bench("examples/rmsnorm.cu", "rmsnorm_bf16x2_kernel", ["--out", out]);
    assert.equal(r.code, 0, r.stderr);
    const res = parse(r.stdout);
    assert.deepEqual(parse(readFileSync(out, "utf8")), res);
    assert.equal(res.baseline, "rmsnorm_kernel<__nv_bfloat16, 256>");
    assert.equal(res.points.length, 5); // the seeds' five RMSNorm shapes
    for (const p of res.points) {
      assert.ok(p.kernel && p.kernel.samples >= 10, `${p.label}: samples`);
      assert.ok(p.kernel.medianNs > 1000, `${p.label}: a real kernel takes microseconds`);
      assert.ok(
        p.pctPeakBandwidth! > 1 && p.pctPeakBandwidth! < 110,
        `${p.label}: ${p.pctPeakBandwidth}% of peak`,
      );
      assert.ok(
        p.checks.length === 1 && p.checks[0]!.pass && p.checks[0]!.unwritten === 0,
        JSON.stringify(p.checks),
      );
      assert.ok(p.speedup! > 0);
    }
    const history = readFileSync(join(workspace, ".cuda-kernel-dev", "bench-history.jsonl"), "utf8")
      .trim()
      .split("\n");
    assert.equal(history.length, 1);
    console.log(
      `# rmsnorm_bf16x2 ${res.points.map((p) => `${p.label}: ${(p.kernel!.medianNs / 1e3).toFixed(2)} us ${p.pctPeakBandwidth!.toFixed(1)}% ${p.speedup!.toFixed(2)}x`).join("; ")}`,
    );
  });

  it("the second run of an unchanged kernel uses the cached cubin", async () => {
    const r = await bench("examples/rmsnorm.cu", "rmsnorm_bf16x2_kernel");
    assert.equal(r.code, 0, r.stderr);
    const res = parse(r.stdout);
    assert.equal(res.compile.cached, true);
    console.log(
      `# warm turnaround (process start to results): ${r.ms.toFixed(0)} ms; compile lookup ${res.compile.ms.toFixed(0)} ms`,
    );
  });

  it("a template kernel (copy_vec<__nv_bfloat16, 8, true>) runs; its instance is named", async () => {
    const r = await bench("test/fixtures/bench/scale.cu", "copy_vec");
    assert.equal(r.code, 0, r.stderr);
    const res = parse(r.stdout);
    assert.equal(res.instance, "copy_vec<__nv_bfloat16, 8, true>");
    assert.match(res.compile.symbol, /^_Z8copy_vecI13__nv_bfloat16Li8ELb1EE/);
    assert.ok(res.points.every((p) => p.kernel && p.checks.every((c) => c.pass)));
  });

  it("a baseline comparison catches a wrong result: exit 1, the output named as failing", async () => {
    const r = await bench("test/fixtures/bench/wrong.cu", "negate_wrong");
    assert.equal(r.code, 1, r.stderr);
    const res = parse(r.stdout);
    assert.equal(res.ok, false);
    const check = res.points[0]!.checks.find((c) => c.arg === "out")!;
    assert.equal(check.pass, false);
    assert.equal(check.mismatched, (1 << 20) / 1024);
  });
});
