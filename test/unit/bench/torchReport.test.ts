// The PyTorch baseline in what a run shows: the CLI table's columns, the history line, the panel's
// charts. From a real run: examples/rmsnorm.cu's bf16 kernel on an H100 against F.rms_norm and
// torch.compile (test/fixtures/bench/results-rmsnorm-torch-h100.json, `cuda-kernel-dev bench --out`).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { formatTable, historyEntry } from "../../../server/bench/report";
import { type BenchRunResults, isBenchRunResults } from "../../../server/bench/results";
import { chartsFor } from "../../../webview/bench/chartData";

const run = JSON.parse(
  readFileSync(join(__dirname, "../../fixtures/bench/results-rmsnorm-torch-h100.json"), "utf8"),
) as BenchRunResults;

test("the table has torch, the speedups over it and torch.compile, and the worst error", () => {
  assert.ok(isBenchRunResults(run));
  const lines = formatTable(run).split("\n");
  assert.match(
    lines[1]!,
    /baseline\s+speedup\s+torch\s+vs torch\s+compiled\s+vs compiled\s+torch err\s+check$/,
  );
  assert.match(lines[2]!, /^rows=1024 .* 7\.52 µs\s+1\.04x\s+5\.79 µs\s+0\.80x\s+0\.016\s+ok$/);
  assert.equal(lines.length, 2 + run.points.length, "no notes: torch ran everywhere, nothing failed");
});

test("torch unavailable: no torch columns, one line saying why", () => {
  const r = { ...run, torch: { ...run.torch!, unavailable: "torch is not importable by /usr/bin/python3" } };
  r.points = r.points.map(({ torch: _, ...p }) => p);
  const text = formatTable(r);
  assert.doesNotMatch(text.split("\n")[1]!, /torch/);
  assert.equal(
    text.split("\n").at(-1),
    "PyTorch baseline not run: torch is not importable by /usr/bin/python3",
  );
});

test("a mismatch against torch fails the size; torch's errors are notes", () => {
  const [first, ...rest] = run.points;
  const torch = first!.torch!;
  const bad = {
    ...first!,
    torch: {
      ...torch,
      checks: [{ ...torch.checks[0]!, pass: false }],
      compileError: "BackendCompilerFailed: boom",
    },
  };
  const r = { ...run, points: [bad, ...rest] };
  const text = formatTable(r);
  assert.match(text.split("\n")[2]!, /FAIL out vs torch$/);
  assert.ok(text.endsWith("torch.compile failed: BackendCompilerFailed: boom"));
  assert.equal(historyEntry(r).points[0]!.pass, false);
});

test("history lines keep torch's medians; charts show torch beside the kernel", () => {
  const h = historyEntry(run);
  assert.deepEqual(
    [h.points[0]!.torchMedianNs, h.points[0]!.torchCompiledMedianNs],
    [run.points[0]!.torch!.eager!.medianNs, run.points[0]!.torch!.compiled!.medianNs],
  );
  const charts = chartsFor(run, [h, h]);
  const series = (id: string) => charts.find((c) => c.id === id)!.series.map((s) => s.label);
  assert.deepEqual(series("time"), [run.instance, `${run.baseline} (baseline)`, "PyTorch", "torch.compile"]);
  assert.deepEqual(series("speedup"), [`over ${run.baseline}`, "over PyTorch", "over torch.compile"]);
  assert.deepEqual(series("history").slice(0, 2), ["rows=1024", "rows=1024 (PyTorch)"]);
  assert.equal(charts.find((c) => c.id === "history")!.series.length, 2 * run.points.length);
});
