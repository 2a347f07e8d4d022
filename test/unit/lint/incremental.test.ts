// Incremental linting (server/lint/incremental.ts): after every edit, the findings of a document that
// relints only the touched definitions must equal those of a whole-file lint of the same tree. (The
// same tree: after destructive edits tree-sitter's incremental reparse may recover from errors
// differently than a fresh parse, which is the parser's business, not the windowing's.)
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { prng } from "../fuzz/mutate";
import { lintTree, type LintOptions } from "../../../server/lint/engine";
import { CLI_LIMITS, LintDocument } from "../../../server/lint/lintDocument";
import type { Tree } from "web-tree-sitter";
import { cudaParser, type TextChange } from "../../../server/lint/parser";
import type { Finding } from "../../../server/rules/rule";
import { rules } from "../../../server/rules/index";

const REPO = join(__dirname, "..", "..", "..");
const OPTS: LintOptions = { fileName: "incremental.cu", targets: [75, 90], rules };

const EXAMPLES = readdirSync(join(REPO, "examples"))
  .filter((f) => /\.cuh?$/.test(f))
  .sort()
  .map((f) => readFileSync(join(REPO, "examples", f), "utf8"));

function pointAt(text: string, offset: number): { row: number; column: number } {
  const before = text.slice(0, offset);
  return { row: before.split("\n").length - 1, column: offset - before.lastIndexOf("\n") - 1 };
}

function change(text: string, start: number, end: number, newText: string): TextChange {
  return {
    startOffset: start,
    oldEndOffset: end,
    start: pointAt(text, start),
    oldEnd: pointAt(text, end),
    newText,
  };
}

/** A whole-file lint of the document's current tree: what its incremental findings must equal. */
function wholeFile(doc: LintDocument, text: string): Finding[] {
  const tree = doc.syntaxTree();
  assert.notEqual(typeof tree, "string");
  return lintTree(tree as Tree, text, OPTS).findings;
}

/** One line per finding (rule, span, fixes, message): a mismatch reads as a short diff. */
function lines(findings: readonly Finding[]): string[] {
  const at = (s: Finding["span"]): string => `${s.startLine}:${s.startColumn}-${s.endLine}:${s.endColumn}`;
  return findings.map(
    (f) =>
      `${f.rule} ${at(f.span)} fixes ${f.fixes.map((x) => x.edits.map((e) => `${at(e.span)}=${JSON.stringify(e.newText)}`).join(",")).join(" | ")} ${f.message}`,
  );
}

/** Edits like typing in a kernel, plus tokens that change what other definitions' findings depend on. */
const TOKENS = [
  " ",
  "x",
  ";",
  "\n",
  "}",
  "{",
  "/*",
  "*/",
  "//",
  "__syncthreads();",
  "__shfl_down(v, 1)",
  "if (threadIdx.x < 16) ",
  "<<<grid, 100>>>(x);",
  "<<<1, 256, 100000>>>(x);",
  "cudaFuncAttributeMaxDynamicSharedMemorySize",
  "cudaGetLastError();",
  "C10_CUDA_KERNEL_LAUNCH_CHECK();",
  "#if __CUDA_ARCH__ >= 800\n",
  "#endif\n",
  "__half ",
  "__nv_bfloat16 ",
  "float ",
  "const int threads = 100;",
  "threads = n;",
  "constexpr int kThreads = 96;",
  "#define BLOCK 100\n",
  "__shared__ float big[16384];",
  "h * h",
  "// cuda-kernel-dev-disable-next-line\n",
];

function randomEdit(text: string, rand: (n: number) => number): { text: string; change: TextChange } {
  const start = rand(text.length + 1);
  const kind = rand(4);
  const end = kind === 0 ? Math.min(text.length, start + 1 + rand(30)) : kind === 1 ? start + rand(2) : start;
  const insert = kind === 0 ? "" : TOKENS[rand(TOKENS.length)]!;
  const stop = Math.min(end, text.length);
  return {
    text: text.slice(0, start) + insert + text.slice(stop),
    change: change(text, start, stop, insert),
  };
}

/** A character typed or deleted at the start of a line inside some function body. */
function typingEdit(text: string, rand: (n: number) => number): { text: string; change: TextChange } {
  const bodies = [...text.matchAll(/\{\n/g)].map((m) => m.index + 2);
  const at = bodies[rand(bodies.length)]!;
  const del = rand(2) === 0 && text[at] === " ";
  const insert = del ? "" : " x;"[rand(3)]!;
  const end = del ? at + 1 : at;
  return { text: text.slice(0, at) + insert + text.slice(end), change: change(text, at, end, insert) };
}

/**
 * Edits each example (and all of them in one file: many definitions, small windows) `steps` times with
 * `edit`, a lint after every one or two; the findings must equal a whole-file lint's each time.
 */
async function editAndCompare(
  edit: (text: string, rand: (n: number) => number) => { text: string; change: TextChange },
  steps: number,
): Promise<Record<"file" | "window" | "unchanged", number>> {
  const parser = await cudaParser();
  const seed = Number(process.env.FUZZ_SEED ?? 20261123);
  const rng = prng(seed);
  const rand = (n: number): number => rng.int(n);
  const scopes = { file: 0, window: 0, unchanged: 0 };
  for (const original of [...EXAMPLES, EXAMPLES.join("\n")]) {
    const doc = new LintDocument(parser, original, CLI_LIMITS);
    doc.lint(OPTS);
    let text = original;
    for (let i = 0; i < steps; i++) {
      const edits = 1 + rand(2);
      for (let e = 0; e < edits; e++) {
        const m = edit(text, rand);
        doc.update(m.text, [m.change]);
        text = m.text;
      }
      const out = doc.lint(OPTS);
      assert.equal(out.kind, "linted");
      if (out.kind !== "linted") continue;
      scopes[out.scope]++;
      assert.deepEqual(lines(out.findings), lines(wholeFile(doc, text)), `edit ${i} (FUZZ_SEED=${seed})`);
    }
    doc.dispose();
  }
  return scopes;
}

test(
  "typing in kernel bodies: relinted by window, findings equal a whole-file lint",
  { timeout: 300_000 },
  async () => {
    const scopes = await editAndCompare(typingEdit, 40);
    // The comparison means something only if the edits took the incremental path.
    assert.ok(scopes.window >= 0.9 * (scopes.window + scopes.file), JSON.stringify(scopes));
  },
);

test(
  "random destructive edits and context tokens: findings equal a whole-file lint after every edit",
  { timeout: 300_000 },
  async () => {
    const scopes = await editAndCompare(randomEdit, 60);
    assert.ok(scopes.window > 0 && scopes.file > 0, JSON.stringify(scopes));
  },
);

/** Lints `before`, applies one replacement, and returns the outcome's scope and findings of `rule`. */
async function afterEdit(
  before: string,
  find: string,
  replace: string,
  rule: string,
): Promise<{ scope: string; was: Finding[]; now: Finding[] }> {
  const parser = await cudaParser();
  const doc = new LintDocument(parser, before, CLI_LIMITS);
  const first = doc.lint(OPTS);
  const at = before.indexOf(find);
  assert.ok(at >= 0, `${find} is not in the text`);
  const after = before.slice(0, at) + replace + before.slice(at + find.length);
  doc.update(after, [change(before, at, at + find.length, replace)]);
  const out = doc.lint(OPTS);
  const whole = wholeFile(doc, after);
  doc.dispose();
  assert.ok(first.kind === "linted" && out.kind === "linted");
  assert.deepEqual(out.findings, whole);
  const of = (fs: Finding[]): Finding[] => fs.filter((f) => f.rule === rule);
  return { scope: out.scope, was: of(first.findings), now: of(out.findings) };
}

const HOST = `
__global__ void k(float* x) { x[threadIdx.x] = 0.f; }

void launch(float* x) {
  k<<<1, 256, 60000>>>(x);
  cudaGetLastError();
}

void setup() {
  int unused = 0;
}
`;

test("an opt-in attribute added in another function clears a launch's shared-memory finding", async () => {
  const r = await afterEdit(
    HOST,
    "int unused = 0;",
    "cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 60000);",
    "shared-memory-limit",
  );
  assert.equal(r.was.length, 1);
  assert.equal(r.now.length, 0);
  assert.equal(r.scope, "file");
});

test("a constant's definition edited elsewhere changes a launch's block-size finding", async () => {
  const text = `constexpr int kThreads = 256;

__global__ void k(float* x) { x[threadIdx.x] = 0.f; }

void launch(float* x) {
  k<<<1, kThreads>>>(x);
  cudaGetLastError();
}
`;
  const r = await afterEdit(text, "= 256", "= 100", "block-size-not-warp-multiple");
  assert.equal(r.was.length, 0);
  assert.equal(r.now.length, 1);
  assert.equal(r.scope, "file");
});

test("a file-scope __half turned into float clears operator findings in the kernels that use it", async () => {
  const text = `#include <cuda_fp16.h>
__device__ __half g;

__global__ void k(__half* y) { y[0] = g * g; }
`;
  const r = await afterEdit(text, "__device__ __half g;", "__device__ float g;", "half-operator");
  assert.equal(r.was.length, 1);
  assert.equal(r.now.length, 0);
});

test("an edit inside one kernel relints that kernel only and moves the findings below it", async () => {
  const text = `__global__ void a(float* x) {
  x[threadIdx.x] = __shfl_down(x[0], 1);
}

__global__ void b(float* x) {
  x[threadIdx.x] = __shfl_down(x[0], 1);
}
`;
  const r = await afterEdit(
    text,
    "x[threadIdx.x] = __shfl",
    "\n\n  x[threadIdx.x] = __shfl",
    "deprecated-shuffle",
  );
  assert.equal(r.scope, "window");
  assert.deepEqual(
    r.now.map((f) => f.span.startLine),
    [3, 7],
  );
});
