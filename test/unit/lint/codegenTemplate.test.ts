// A Jinja code-generation template kept under a .cu/.cuh name is not CUDA source: read as C++ it would
// compile every arm (the ROCm one as CUDA: `deprecated-shuffle` errors on HIP's `__shfl_xor`). It is not
// linted, quietly: the CLI says so in one summary line and exits 0, the editor shows one information
// note. C++ that only holds `{%` in an asm string or `{{` in an initializer is still linted.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { codegenTemplate } from "../../../server/lint/codegenTemplate";
import { CLI_LIMITS, LintDocument } from "../../../server/lint/lintDocument";
import { cudaParser } from "../../../server/lint/parser";
import { rules } from "../../../server/rules/index";
import { runCli } from "../../support/cliRun";

const dir = join(__dirname, "..", "..", "fixtures", "lint", "codegen-template");
const read = (name: string): string => readFileSync(join(dir, name), "utf8");

void test("a Jinja template is recognised by its block tags; asm strings and initializers are not tags", () => {
  assert.equal(codegenTemplate(read("reduce_template.cuh")), "a Jinja code-generation template");
  assert.equal(codegenTemplate(read("not_template.cu")), undefined);
  assert.equal(codegenTemplate("  {%+ set n = 4 %}\n"), "a Jinja code-generation template");
  assert.equal(codegenTemplate("x = y {% 4;\n"), undefined, "not at a line's start");
});

void test("the lint does not read a template as CUDA, and does read the C++ beside it", async () => {
  const parser = await cudaParser();
  const opts = { fileName: "t.cuh", targets: [90], rules };
  const template = new LintDocument(parser, read("reduce_template.cuh"), CLI_LIMITS);
  assert.deepEqual(template.lint(opts), { kind: "template", what: "a Jinja code-generation template" });
  template.dispose();
  const source = new LintDocument(parser, read("not_template.cu"), CLI_LIMITS);
  const out = source.lint(opts);
  assert.equal(out.kind, "linted");
  assert.ok(out.kind === "linted" && out.findings.some((f) => f.rule === "deprecated-shuffle"));
  source.dispose();
});

void test("cuda-kernel-dev lint: the template is counted as not linted in one line, and the run exits 0", () => {
  const r = runCli({ cwd: dir }, "lint", "reduce_template.cuh", "--arch", "sm_90", "--format", "json");
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), []);
  assert.match(r.stderr, /1 file\(s\) not linted: code-generation templates \(Jinja\)/);
});
