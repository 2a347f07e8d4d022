// A Jinja code-generation template kept under a .cu/.cuh name is linted as the CUDA it generates: its
// tags blanked, its ROCm arms dropped (read as C++ with every arm, HIP's `__shfl_xor` would be a
// `deprecated-shuffle` error), the rest linted at the template's own lines. C++ that only holds `{%`
// in an asm string or `{{` in an initializer is not a template.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { renderJinjaForCuda } from "../../../server/lint/codegenTemplate";
import { CLI_LIMITS, LintDocument, lintSource } from "../../../server/lint/lintDocument";
import { cudaParser } from "../../../server/lint/parser";
import { rules } from "../../../server/rules/index";
import { runCli } from "../../support/cliRun";
import { edited } from "./textEdits";

const dir = join(__dirname, "..", "..", "fixtures", "lint", "codegen-template");
const read = (name: string): string => readFileSync(join(dir, name), "utf8");
const lineOf = (text: string, needle: string): number =>
  text.split("\n").findIndex((l) => l.includes(needle));

void test("a template renders as CUDA: same length and lines, tags blanked, ROCm arms dropped", () => {
  const text = read("reduce_template.cuh");
  const out = renderJinjaForCuda(text);
  assert.ok(out !== undefined);
  assert.equal(out.length, text.length);
  assert.deepEqual(
    out.split("\n").map((l) => l.length),
    text.split("\n").map((l) => l.length),
  );
  assert.doesNotMatch(out, /\{%|\{\{|__shfl_xor\(|__shfl_down\(/);
  assert.match(out, /__shfl_xor_sync\(0xffffffffu, v, m, kWidth\)/);
  assert.match(out, /__shfl_down_sync/);
  assert.match(out, /template __device__ _{7} subgroup_sum<_{7}, 32>\(_{7}\);/);
  assert.equal(renderJinjaForCuda(read("not_template.cu")), undefined);
  assert.equal(renderJinjaForCuda("x = y {% 4;\n"), undefined, "a tag not at a line's start");
  // a condition that is not a ROCm switch alone keeps its arm, as an #if on an unknown macro does
  const kept = "{% if is_rocm or x %}\na\n{% endif %}\n";
  assert.equal(
    renderJinjaForCuda(kept),
    kept.replace(/\{%.*?%\}/g, (t) => " ".repeat(t.length)),
  );
});

void test("the template's CUDA is linted at the template's lines; its ROCm arm is not", async () => {
  const text = read("reduce_template.cuh");
  const found = await lintSource(text, { rules, fileName: "reduce_template.cuh", targets: [90] });
  assert.deepEqual(
    found.map((f) => [f.rule, f.span.startLine]),
    [["int-index-overflow", lineOf(text, "int i = blockIdx.x")]],
  );
  const cpp = await lintSource(read("not_template.cu"), {
    rules,
    fileName: "not_template.cu",
    targets: [90],
  });
  assert.ok(
    cpp.some((f) => f.rule === "deprecated-shuffle"),
    "C++ with `{%` in a string is linted as is",
  );
});

void test("cuda-kernel-dev lint on the template exits 0 with its one finding", () => {
  const r = runCli({ cwd: dir }, "lint", "reduce_template.cuh", "--arch", "sm_90", "--format", "json");
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    (JSON.parse(r.stdout) as { rule: string }[]).map((f) => f.rule),
    ["int-index-overflow"],
  );
});

void test("editing a template as you type gives the findings a fresh lint of the new text gives", async () => {
  const parser = await cudaParser();
  const opts = { fileName: "reduce_template.cuh", targets: [90], rules };
  const text = read("reduce_template.cuh");
  const doc = new LintDocument(parser, text, CLI_LIMITS);
  const rules_ = (d: LintDocument): string[] => {
    const out = d.lint(opts);
    assert.equal(out.kind, "linted");
    return out.kind === "linted" ? out.findings.map((f) => `${f.rule}:${f.span.startLine}`).sort() : [];
  };
  rules_(doc);
  // `is_rocm` -> `is_cuda`: the HIP arm becomes live, far from the edit (and it is no CUDA code).
  let now = text;
  for (const [from, to] of [
    ["if is_rocm", "if is_cuda"],
    ["{%- if is_cuda %}", "// if is_cuda"],
  ] as const) {
    const at = now.indexOf(from);
    const e = edited(now, at, at + from.length, to);
    now = e.text;
    doc.update(now, [e.change]);
    const fresh = new LintDocument(parser, now, CLI_LIMITS);
    assert.deepEqual(rules_(doc), rules_(fresh), `after ${to}`);
    fresh.dispose();
  }
  assert.ok(
    rules_(doc).some((r) => r.startsWith("deprecated-shuffle")),
    "the live HIP arm is read as CUDA",
  );
  doc.dispose();
});
