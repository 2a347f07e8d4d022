// The PyTorch baseline (`// @bench torch EXPR`) end to end on the GPU machine, through the built CLI:
// torch sees the same input values as the kernel (copy kernels, compared with zero tolerance), a
// wrong expression fails the check, an expression that raises gives its Python error with the spec
// line, cancelling stops the sidecar, and no sidecar is left running after repeated runs. Then the
// sidecar the extension keeps between runs (a SidecarPool, runBenchmark in this process): the second
// run is served by the same process, sees the kernel's inputs bit for bit again, and after each run
// torch's allocated GPU memory is back to what it was before the first; none is left after dispose.
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RunnerClient } from "../../native/runner/runnerClient";
import { isBenchRunResults, type BenchRunResults } from "../../server/bench/results";
import { runBenchmark } from "../../server/bench/runBench";
import { SidecarPool } from "../../server/bench/torch/sidecarPool";
import { SIDECAR_ENV } from "../../server/bench/torch/torchBaseline";
import type { Released } from "../../server/bench/torch/torchProtocol";
import { raisingLine, torchFixture } from "../support/torchFixture";
import { repoRoot } from "./paths";
import { allowLaunches } from "../support/launches";

allowLaunches();

const cli = join(repoRoot, "dist", "cli.js");
const fixture = torchFixture;
const cacheDir = mkdtempSync(join(tmpdir(), "ckd-gpu-torch-cubin-"));
const env = { ...process.env, PATH: `${process.env.PATH ?? ""}:/usr/local/cuda/bin` };

function start(kernel: string): ChildProcess {
  const args = [cli, "bench", fixture, "-k", kernel, "--json", "--no-history", "--cache-dir", cacheDir];
  return spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
}

async function bench(kernel: string): Promise<{ code: number; res: BenchRunResults; stderr: string }> {
  const child = start(kernel);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  const res: unknown = JSON.parse(stdout);
  assert.ok(isBenchRunResults(res), stderr);
  return { code, res, stderr };
}

/** The pids of sidecar.py processes now running (from /proc: no ps needed). */
function sidecars(): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, "utf8").includes("sidecar.py")) pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("PyTorch baseline on a GPU", () => {
  it("the sidecar's torch generator equals GENERATOR.md's formula element by element", () => {
    const script = join(repoRoot, "test", "gpu", "torch_generator_check.py");
    const out = execFileSync("python3", [script], { encoding: "utf8" });
    assert.match(out, /^ok \d+/);
    console.log(`# generator: ${out.trim()} elements equal the formula`);
  });

  it("torch sees the kernel's inputs bit for bit (f32 randn, bf16 uniform, i32 arange, f16 randn, u8 uniform)", async () => {
    const { code, res, stderr } = await bench("copy_inputs");
    assert.equal(res.torch?.unavailable, undefined, res.torch?.unavailable);
    const t = res.points[0]!.torch!;
    assert.equal(t.error, undefined, t.error);
    assert.deepEqual(
      t.checks.map((c) => [c.arg, c.pass, c.mismatches, c.maxAbsErr]),
      ["a", "b", "c", "d", "e"].map((a) => [a, true, 0, 0]),
    );
    assert.equal(code, 0, `${stderr}${JSON.stringify(res.points[0])}`);
    assert.ok(t.eager!.samples >= 10 && t.eager!.medianNs > 0);
    console.log(
      `# torch ${res.torch!.torchVersion}: the copy's inputs equal torch's; torch ${(t.eager!.medianNs / 1e3).toFixed(2)} us`,
    );
  });

  it("a torch expression that differs from the kernel fails the check (exit 1)", async () => {
    const { code, res } = await bench("twice");
    const c = res.points[0]!.torch!.checks[0]!;
    assert.equal(c.pass, false);
    assert.ok(c.mismatches > 0 && c.maxAbsErr! > 5e-4, JSON.stringify(c));
    assert.equal(res.ok, false);
    assert.equal(code, 1);
  });

  it("an expression that raises: its Python error in one line, at the spec line", async () => {
    const { code, res } = await bench("twice_raises");
    const err = res.points[0]!.torch!.error!;
    const line = raisingLine();
    assert.match(
      err,
      new RegExp(`torch\\.cu:${line}:17: torch expression failed: AttributeError: .*no_such_method`),
    );
    assert.ok(!err.includes("\n"));
    assert.ok(res.points[0]!.kernel, "the kernel's own figures are still there");
    assert.equal(code, 1);
  });

  it("cancel (SIGINT) stops the sidecar", async () => {
    const child = start("twice_slow");
    const exited = new Promise<number | null>((r) => child.on("close", (c) => r(c)));
    let seen: number[] = [];
    for (let i = 0; i < 600 && seen.length === 0; i++) {
      await sleep(100);
      seen = sidecars();
    }
    assert.ok(seen.length > 0, "the sidecar started");
    await sleep(300); // while it imports torch (seconds), so the run is surely not over
    child.kill("SIGINT");
    assert.equal(await exited, 130);
    await sleep(500);
    assert.deepEqual(sidecars(), []);
  });

  it("no sidecar is left running after repeated runs", async () => {
    for (let i = 0; i < 5; i++) await bench("twice"); // 100 in the unit tests, with a fake python
    assert.deepEqual(sidecars(), []);
  });
});

describe("the extension's pooled PyTorch sidecar on a GPU", () => {
  it("a pooled sidecar serves the next run, holding no GPU memory between runs", async () => {
    process.env[SIDECAR_ENV] ??= join(repoRoot, "dist", "torch", "sidecar.py");
    const released: (Released & { pid: number | undefined })[] = [];
    const pool = new SidecarPool({ onReleased: (r) => released.push(r) });
    const runner = new RunnerClient({ runnerPath: join(repoRoot, "dist", "runner.js") });
    const job = {
      file: fixture,
      kernel: "copy_inputs",
      runner,
      cacheDir,
      sidecars: pool,
      calibrationPath: join(cacheDir, "no-calibration.json"),
    };
    try {
      for (let run = 0; run < 2; run++) {
        const t0 = performance.now();
        const res = await runBenchmark(job);
        const t = res.points[0]!.torch!;
        assert.equal(res.torch?.unavailable, undefined, res.torch?.unavailable);
        assert.deepEqual(
          t.checks.map((c) => [c.arg, c.pass, c.mismatches]),
          ["a", "b", "c", "d", "e"].map((a) => [a, true, 0]),
          `run ${run + 1}`,
        );
        assert.equal(sidecars().length, 1, "one sidecar, alive between runs");
        console.log(
          `# pooled run ${run + 1}: ${(performance.now() - t0).toFixed(0)} ms, ${JSON.stringify(released.at(-1))}`,
        );
      }
      assert.equal(released.length, 2);
      assert.equal(released[0]!.pid, released[1]!.pid, "the same process served both runs");
      for (const r of released) {
        assert.equal(r.allocatedBytes, r.baselineBytes, "the run's tensors are freed");
        assert.ok(
          r.reservedBytes <= 2 << 20,
          `its cached blocks are given back (${r.reservedBytes} reserved)`,
        );
      }
    } finally {
      await pool.dispose();
      await runner.dispose();
    }
    await sleep(300);
    assert.deepEqual(sidecars(), [], "none after dispose");
  });
});
