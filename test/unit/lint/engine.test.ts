import assert from "node:assert/strict";
import { test } from "node:test";
import { lintSource } from "../../../server/lint/lintDocument";
import { lintTree, type LintOptions, type LintResult } from "../../../server/lint/engine";
import { cudaParser } from "../../../server/lint/parser";
import type { Rule } from "../../../server/rules/rule";
import { shflRule, syncRule, throwingRule } from "./testRules";

const SRC = `__global__ void k(float* x) {
  float v = __shfl(x[0], 1);
  __syncthreads();
  v += __shfl(v, 2);  // cuda-kernel-dev-disable-line test-shfl
  // cuda-kernel-dev-disable-next-line test-sync -- reason: single warp
  __syncthreads();
  // cuda-kernel-dev-disable-next-line
  x[0] = __shfl(v, 3); __syncthreads();
}
`;

test("findings carry rule id, default severity, 0-based span and fixes", async () => {
  const found = await lintSource("__global__ void k(){ float v = __shfl(1.0f, 0); }", { rules: [shflRule] });
  assert.equal(found.length, 1);
  assert.deepEqual(
    { rule: found[0]!.rule, severity: found[0]!.severity, span: found[0]!.span },
    {
      rule: "test-shfl",
      severity: "error",
      span: { startLine: 0, startColumn: 31, endLine: 0, endColumn: 37 },
    },
  );
  assert.equal(found[0]!.fixes[0]!.edits.length, 2);
});

test("suppression comments: same line, next line with reason, next line for every rule", async () => {
  const found = await lintSource(SRC, { rules: [shflRule, syncRule] });
  assert.deepEqual(
    found.map((f) => `${f.rule}@${f.span.startLine}`),
    ["test-shfl@1", "test-sync@2"],
  );
});

test("a file-level suppression silences only the rules it names", async () => {
  const found = await lintSource(`// cuda-kernel-dev-disable-file test-sync, other-rule\n${SRC}`, {
    rules: [shflRule, syncRule],
  });
  assert.deepEqual(
    found.map((f) => f.rule),
    ["test-shfl"],
  );
});

test("severity overrides change the level or turn a rule off", async () => {
  const src = "__global__ void k(){ __syncthreads(); float v = __shfl(1.0f, 0); }";
  const found = await lintSource(src, {
    rules: [shflRule, syncRule],
    severity: { "test-shfl": "hint", "test-sync": "off" },
  });
  assert.deepEqual(
    found.map((f) => `${f.rule}:${f.severity}`),
    ["test-shfl:hint"],
  );
});

/** lintTree over a parsed `text` (the tree freed after), for what lintSource does not return. */
async function lintParsed(text: string, opts: Omit<LintOptions, "fileName">): Promise<LintResult> {
  const tree = (await cudaParser()).parse(text)!;
  try {
    return lintTree(tree, text, { fileName: "a.cu", ...opts });
  } finally {
    tree.delete();
  }
}

test("a throwing rule is isolated: its failure is reported and the other rules still run", async () => {
  const out = await lintParsed("__global__ void k(){ __syncthreads(); }", {
    targets: [90, 75, 90],
    rules: [throwingRule, syncRule],
  });
  assert.deepEqual(
    out.findings.map((f) => f.rule),
    ["test-sync"],
  );
  assert.equal(out.failures[0]!.rule, "test-throws");
  assert.match(out.failures[0]!.message, /boom/);
});

test("rules see targets sorted and de-duplicated", async () => {
  const found = await lintSource("__global__ void k(){ __shfl(1, 0); }", {
    rules: [shflRule],
    targets: [90, 75, 90],
  });
  assert.equal(found[0]!.message, "__shfl on sm_75,90");
});

test("rules run on the valid parts of a tree with ERROR nodes", async () => {
  const found = await lintSource(
    "__global__ void k(){ int x = ; )) }\n__device__ void f(){ __shfl(1, 0); }",
    { rules: [shflRule] },
  );
  assert.equal(found.length, 1);
  assert.equal(found[0]!.span.startLine, 1);
});

test("per-rule timings: every rule that ran has one, at least the time it took; rules that did not run, none", async () => {
  // Spends 20 ms of the clock the engine reads before it returns: its timing cannot be less.
  const slow: Rule = {
    id: "test-slow",
    defaultSeverity: "warning",
    basis: "heuristic",
    summary: "test: takes 20 ms",
    check() {
      const until = performance.now() + 20;
      while (performance.now() < until);
    },
  };
  const candleOnly: Rule = { ...slow, id: "test-candle", convention: "candle" };
  const out = await lintParsed("__global__ void k(){ __syncthreads(); }", {
    targets: [80],
    rules: [shflRule, syncRule, slow, candleOnly, throwingRule],
    severity: { "test-sync": "off" },
  });
  // test-sync is off, test-candle's convention is not opted into: neither ran.
  assert.deepEqual([...out.timings.keys()], ["test-shfl", "test-slow", "test-throws"]);
  assert.ok(out.timings.get("test-slow")! >= 20, `test-slow took ${out.timings.get("test-slow")} ms`);
  for (const [rule, ms] of out.timings) assert.ok(Number.isFinite(ms) && ms >= 0, `${rule}: ${ms}`);
});

test("one finding per rule per span: a rule reporting the same span twice is listed once", async () => {
  const twice: Rule = {
    id: "test-twice",
    defaultSeverity: "warning",
    basis: "heuristic",
    summary: "test: reports each __shfl call twice",
    check(ctx) {
      for (const f of ctx.tree.rootNode.descendantsOfType("identifier"))
        if (f?.text === "__shfl") {
          ctx.report({ node: f, message: "first" });
          ctx.report({ node: f, message: "second" });
        }
    },
  };
  const found = await lintSource("__global__ void k(){ float v = __shfl(1.0f, 0); }", {
    rules: [twice, shflRule],
  });
  assert.deepEqual(
    found.map((f) => `${f.rule}:${f.message.split(" ")[0]}`),
    ["test-shfl:__shfl", "test-twice:first"],
  );
});
