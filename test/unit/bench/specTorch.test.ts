// `// @bench torch EXPR` and `// @bench torch.compile`: the expression kept as raw Python text with
// its exact place (a Python error points at it), and the lines' own mistakes as spec findings.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseSpec } from "../../../server/bench/benchSpec";
import { scanKernels } from "../../../server/bench/kernelScan";
import { benchSpecFindings } from "../../../server/bench/specDiagnostics";

const KERNEL =
  "__global__ void rms(float* out, const float* in, const float* weight, int rows, int cols, float eps) {}";
const BASE = [
  "// @bench rows=[1024] cols=[2048]",
  "// @bench grid=(rows) block=(256)",
  "// @bench arg out: f32[rows*cols] output",
  "// @bench arg in: f32[rows*cols] randn",
  "// @bench arg weight: f32[cols] ones",
  "// @bench arg rows: i32 = rows",
  "// @bench arg cols: i32 = cols",
  "// @bench arg eps: f32 = 1e-6",
];
const doc = (extra: string[]) => [...BASE, ...extra, KERNEL].join("\n");

test("the expression is Python text, kept whole, with its span; torch.compile is a flag", () => {
  const expr = "F.rms_norm(in_.view(rows, cols), (cols,), weight, eps)  # a comment, 'quotes', x[1:2]";
  const parsed = parseSpec(scanKernels(doc([`// @bench   torch ${expr}  `, "// @bench torch.compile"]))[0]!)!;
  assert.deepEqual(parsed.errors, []);
  const t = parsed.spec.torch!;
  assert.equal(t.expr, expr);
  assert.deepEqual(t.span, { startLine: 8, startColumn: 18, endLine: 8, endColumn: 18 + expr.length });
  assert.deepEqual(parsed.spec.torchCompile, { startLine: 9, startColumn: 10, endLine: 9, endColumn: 23 });
  assert.deepEqual(benchSpecFindings(doc([`// @bench torch ${expr}`])), []);
});

test("torch line mistakes are findings at their place", () => {
  const findings = (extra: string[]) =>
    benchSpecFindings(doc(extra)).map((f) => [f.message, f.span.startLine, f.span.startColumn]);
  assert.deepEqual(findings(["// @bench torch"]), [
    ["expected a Python expression after 'torch', e.g. torch F.relu(x)", 8, 10],
  ]);
  assert.deepEqual(findings(["// @bench torch.compile"]), [
    ["'torch.compile' needs a 'torch EXPR' line to compile", 8, 10],
  ]);
  assert.deepEqual(findings(["// @bench torch x", "// @bench torch.compile mode='max'"]), [
    ["'torch.compile' takes nothing: it compiles the 'torch' expression", 9, 10],
  ]);
  assert.deepEqual(findings(["// @bench torch x", "// @bench torch y"]), [["'torch' is given twice", 9, 10]]);
});

test("a variable whose name starts with torch is still a variable", () => {
  const parsed = parseSpec(scanKernels(doc(["// @bench torchy = 3"]))[0]!)!;
  assert.deepEqual(parsed.errors, []);
  assert.equal(parsed.spec.torch, undefined);
  assert.ok(parsed.spec.vars.some((v) => v.name === "torchy"));
});
