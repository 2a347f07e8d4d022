import assert from "node:assert/strict";
import { test } from "node:test";
import type { Node, Tree } from "web-tree-sitter";
import { LintDocument, lintSource } from "../../../server/lint/lintDocument";
import { blankUnknownAttributes, cudaParser } from "../../../server/lint/parser";
import { rules } from "../../../server/rules/index";
import { edited, lines } from "./editing";

/** The tree as text with every node's position, so trees from different parse paths can be compared. */
function shape(tree: Tree): string {
  const out: string[] = [];
  const walk = (n: Node): void => {
    out.push(
      `${n.type}@${n.startPosition.row}:${n.startPosition.column}-${n.endPosition.row}:${n.endPosition.column}`,
    );
    for (const c of n.children) if (c) walk(c);
  };
  walk(tree.rootNode);
  return out.join(" ");
}

const KERNEL = `// reduction — “smart quotes”, emoji 😀 and CJK 核 keep UTF-16 columns honest
#include <cuda_bf16.h>
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) rms(const __nv_bfloat16* __restrict__ x, float* out, int n) {
  __shared__ float s[BLOCK];
  float acc = 0.f;
  for (int i = threadIdx.x; i < n; i += BLOCK) acc += __bfloat162float(x[i]) * 2.f;
  s[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = rsqrtf(s[0] + 1e-6f); /* done 😀 */
}
void launch(const __nv_bfloat16* x, float* out, int n) { rms<256><<<1, 256, 0, 0>>>(x, out, n); }
`;

test("an incrementally reparsed tree equals a fresh parse, through edits with non-ASCII text", async () => {
  const parser = await cudaParser();
  let seed = 7;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const inserts = ["x", "😀", "\n", "}", "{ __syncthreads(); }", "//", "/*", '"', "核", ""];
  const doc = new LintDocument(parser, KERNEL);
  let text = KERNEL;
  for (let i = 0; i < 300; i++) {
    const start = rand(text.length + 1);
    // Never split a surrogate pair: LSP clients send whole code points.
    const safe = (o: number): number => (o > 0 && /[\uDC00-\uDFFF]/.test(text[o] ?? "") ? o - 1 : o);
    const s = safe(start);
    const e = safe(Math.min(text.length, s + rand(8)));
    const next = edited(text, s, e, inserts[rand(inserts.length)]!);
    doc.update(next.text, [next.change]);
    text = next.text;
    if (i % 10 !== 9) continue;
    const incremental = doc.syntaxTree();
    const fresh = parser.parse(text)!;
    assert.ok(typeof incremental === "object");
    assert.equal(shape(incremental), shape(fresh), `after edit ${i}`);
    fresh.delete();
  }
  doc.dispose();
});

// Deleting `if (n` leaves `% 4 == 0) {...} else {...}`: a fresh parse reads the else block as a compound
// literal inside an error, while tree-sitter's incremental reparse, reusing the old tree's blocks, reads
// them as blocks (its error recovery depends on what it reuses). Live findings followed the reuse: the
// two launches were not missing their check, where the CLI said they were.
const BRANCHES = `template <typename T> __global__ void k(T* y) {}
void f(float* y, int n) {
  if (n % 4 == 0) {
    k<float><<<1, 64>>>(y);
  } else {
    k<float><<<1, 2048>>>(y);
  }
  cudaGetLastError();
}
`;

test("an edit that breaks the syntax: the reparse recovers as a fresh parse does, and lints alike", async () => {
  const parser = await cudaParser();
  const at = BRANCHES.indexOf("if (n");
  const next = edited(BRANCHES, at, at + "if (n".length, "");
  const doc = new LintDocument(parser, BRANCHES);
  const opts = { fileName: "branches.cu", targets: [75, 90], rules };
  doc.lint(opts);
  doc.update(next.text, [next.change]);
  const live = doc.lint(opts);
  assert.ok(live.kind === "linted");
  assert.deepEqual(lines(live.findings), lines(await lintSource(next.text, opts)));
  const fresh = parser.parse(next.text)!;
  assert.equal(shape(doc.syntaxTree() as Tree), shape(fresh));
  fresh.delete();
  doc.dispose();
});

test("an emoji across web-tree-sitter's 5,119-unit input cut is read as one character", async () => {
  const parser = await cudaParser();
  // Code points where the cuts of a string input fall (every 5,119 UTF-16 units): the lexer read the two
  // halves of the pair as broken characters, and a reparse, asking for text from other places, did not.
  for (const at of [5118, 10237]) {
    const head = `void f() {\n${"  int a;\n".repeat(1300)}`.slice(0, at - 9);
    const text = `${head}\nint x = 😀;\n}\n`;
    assert.equal(text.indexOf("😀"), at);
    const tree = parser.parse(text)!;
    assert.match(tree.rootNode.toString(), /UNEXPECTED 128512/, `emoji at ${at}`);
    tree.delete();
  }
});

test("several changes in one update apply in order", async () => {
  const parser = await cudaParser();
  const doc = new LintDocument(parser, KERNEL);
  assert.equal(typeof doc.syntaxTree(), "object");
  const a = edited(KERNEL, 0, 2, "/*");
  const b = edited(a.text, a.text.indexOf("rsqrtf"), a.text.indexOf("rsqrtf") + 6, "sqrtf */");
  doc.update(b.text, [a.change, b.change]);
  const fresh = parser.parse(b.text)!;
  assert.equal(shape(doc.syntaxTree() as Tree), shape(fresh));
  fresh.delete();
  doc.dispose();
});

test("a parse past its time limit returns nothing, and the parser still works afterwards", async () => {
  const parser = await cudaParser();
  const pathological = "int a = (".repeat(100_000);
  assert.equal(parser.parse(pathological, null, 5), undefined);
  const tree = parser.parse("__global__ void k() {}")!;
  assert.equal(tree.rootNode.hasError, false);
  assert.equal(tree.rootNode.text, "__global__ void k() {}");
  tree.delete();
});

test("a document above the size limit is not parsed and says so", async () => {
  const doc = new LintDocument(await cudaParser(), "x".repeat(3 * 1024 * 1024), {
    maxChars: 1024 * 1024,
    parseTimeoutMs: 1000,
  });
  const out = doc.lint({ fileName: "big.cu", targets: [80], rules: [] });
  assert.equal(out.kind, "skipped");
  assert.match(out.kind === "skipped" ? out.reason : "", /3\.0 MB is above the 1\.0 MB limit/);
});

test("__align__(n) is blanked for the parse: the declaration after it parses, offsets hold", async () => {
  const text =
    "__global__ void k() {\n  __shared__ __align__(16) unsigned char tile[4 * sizeof(float)];\n}\n";
  assert.equal(blankUnknownAttributes(text).length, text.length);
  assert.equal(
    blankUnknownAttributes("struct __align__ (8) P { int a; };"),
    `struct ${" ".repeat("__align__ (8)".length)} P { int a; };`,
  );
  // Not a use: no parenthesis, or one that does not close on the line.
  assert.equal(blankUnknownAttributes("int __align__; f(__align__(4"), "int __align__; f(__align__(4");
  const tree = (await cudaParser()).parse(text)!;
  const decl = tree.rootNode.descendantsOfType("array_declarator")[0]!;
  assert.equal(decl.parent?.type, "declaration");
  assert.equal(text.slice(decl.startIndex, decl.endIndex), "tile[4 * sizeof(float)]");
  assert.ok(!tree.rootNode.hasError);
  tree.delete();
});
