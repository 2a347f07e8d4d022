// Reusing parts of the whole-file context key after an edit (fileContext.ts reuseContext): a reused part
// must be what making it again over the new text gives. Edits that change a part far from its words (a
// typedef's name on the next line, a macro's continuation line, a `;` ending an alias) must make it again.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Tree } from "web-tree-sitter";
import { addChange, changedRegions, windowAround } from "../../../server/lint/incremental";
import { cudaParser, editTree, type CudaParser } from "../../../server/lint/parser";
import { fileContextKey, reuseContext } from "../../../server/lint/fileContext";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { prng } from "../fuzz/mutate";
import { change, EXAMPLES } from "./editing";

/**
 * The key of `next` made from scratch, and with the parts of `prevKey` (the key of `text`, or a made-up
 * one) reused where reuseContext finds the edit [start, end) → `insert` cannot change them.
 */
function keys(
  parser: CudaParser,
  text: string,
  start: number,
  end: number,
  insert: string,
  prevKey?: string,
): { fresh: string; reused: string; old: string } {
  const oldTree = parser.parse(text)!;
  const old = fileContextKey(FileIndex.begin(oldTree, text));
  const next = text.slice(0, start) + insert + text.slice(end);
  const c = change(text, start, end, insert);
  editTree(oldTree, c);
  const tree: Tree = parser.parse(next, oldTree)!;
  // The window a relint would lint: as LintDocument.syntaxTree and relint make it.
  const touched = windowAround(
    [oldTree, tree],
    [...addChange([], c), ...changedRegions(oldTree.getChangedRanges(tree))],
    next.length,
  );
  const window = windowAround([tree], [touched], next.length);
  const fresh = fileContextKey(FileIndex.begin(tree, next));
  const idx = FileIndex.begin(tree, next);
  reuseContext(idx, text, prevKey ?? old, window, window.end - (next.length - text.length));
  const reused = fileContextKey(idx);
  oldTree.delete();
  tree.delete();
  return { fresh, reused, old };
}

/** A key each part of which differs from `key`'s (the new text's): where it shows through, the part was reused. */
function madeUp(key: string): string {
  return key
    .split(",")
    .map((p, i) => (i === 3 ? "0" : i === 4 ? "zz" : String(p !== "true")))
    .join(",");
}

/** The parts (by index) of `key` taken from `made`. */
function reusedParts(key: string, made: string): number[] {
  const parts = made.split(",");
  return key
    .split(",")
    .map((p, i) => (p === parts[i] ? i : -1))
    .filter((i) => i >= 0);
}

/** The parts reuseContext takes over from a made-up last key. */
function reused(parser: CudaParser, text: string, start: number, end: number, insert: string): number[] {
  const made = madeUp(keys(parser, text, start, end, insert).fresh);
  return reusedParts(keys(parser, text, start, end, insert, made).reused, made);
}

const FILE = `#include <cuda_fp16.h>
int a0;
typedef __half
  floatX;
int a1;
#define CHECK() do { \\
  a1 = 0; \\
  report(); \\
} while (0)
int a2;
extern __shared__ float smem[];
int a3;
__global__ void k(float* x) {
  x[0] = 1;
}
int helper(int a) {
  a0 = 1;
  return a;
}
`;

/** [part index, edit] pairs: the edit changes that part of FILE's key. */
const CHANGING: [number, string, string][] = [
  [3, "floatX;", "floatY;"], // the typedef's name, a line below `typedef`
  [3, "floatX;", "floatX"], // its `;`: the alias runs on to the next one
  [3, "report();", "report2();"], // a macro's continuation line
  [5, "report();", "cudaGetLastError();"], // a check named anywhere
  [3, "int helper", "#define N 4\nint helper"],
  [4, "int helper", "extern __shared__ float more[];\nint helper"],
  [1, "  return a;", "  // cudaFuncAttributeMaxDynamicSharedMemorySize\n  return a;"],
  [2, "int helper", "#include <torch/extension.h>\nint helper"],
  [5, "int helper(int a)", "int main(int a)"],
  [0, "  x[0] = 1;", "#if __CUDA_ARCH__ >= 800\n  x[0] = 1;\n#endif"],
  [6, "int helper", "#include <ck_tile/core.hpp>\nint helper"],
];

test("an edit that changes a part of the key makes it again; the others are reused", async () => {
  const parser = await cudaParser();
  for (const [part, from, to] of CHANGING) {
    const at = FILE.indexOf(from);
    const k = keys(parser, FILE, at, at + from.length, to);
    assert.notEqual(k.old.split(",")[part], k.fresh.split(",")[part], `${from} -> ${to} changes ${part}`);
    assert.equal(k.reused, k.fresh, `${from} -> ${to}`);
    const parts = reused(parser, FILE, at, at + from.length, to);
    assert.ok(!parts.includes(part), `${from} -> ${to}: part ${part} reused`);
  }
  // Typing in a function body changes none of them: every part is reused.
  const at = FILE.indexOf("  return a;");
  assert.deepEqual(reused(parser, FILE, at, at, " "), [0, 1, 2, 3, 4, 5, 6]);
});

/** Words the parts are made from, and what breaks them: comments, continuations, statement ends. */
const TOKENS = [
  " ",
  "x",
  ";",
  "\n",
  "{",
  "}",
  "/*",
  "*/",
  "//",
  "\\\n",
  "#",
  "typedef ",
  "using T = ",
  "__half",
  "int ",
  "main(",
  "#define M cudaGetLastError()\n",
  "#include <torch/x.h>\n",
  "extern __shared__ float e[];",
  "extern ",
  "cudaFuncAttributeMaxDynamicSharedMemorySize",
  "C10_CUDA_KERNEL_LAUNCH_CHECK",
  "__CUDA_ARCH__",
  "#if __CUDA_ARCH__ >= 800\n",
  "#endif\n",
  "#include <ck_tile/core.hpp>\n",
  "#ifdef USE_ROCM\n",
  "NV_IF_TARGET(NV_PROVIDES_SM_80, ",
  "if constexpr (",
  ">= 800",
];

test(
  "random edits: the key with reused parts equals the key made from scratch",
  { timeout: 300_000 },
  async () => {
    const parser = await cudaParser();
    const rng = prng(Number(process.env.FUZZ_SEED ?? 20261124));
    let reusedSome = 0;
    for (const original of [FILE, ...EXAMPLES]) {
      let text = original;
      for (let i = 0; i < 60; i++) {
        const start = rng.int(text.length + 1);
        const end = rng.int(3) === 0 ? Math.min(text.length, start + 1 + rng.int(20)) : start;
        const insert = rng.int(4) === 0 ? "" : TOKENS[rng.int(TOKENS.length)]!;
        const k = keys(parser, text, start, end, insert);
        assert.equal(
          k.reused,
          k.fresh,
          `${JSON.stringify(text.slice(start, end))} -> ${JSON.stringify(insert)} at ${start}`,
        );
        if (reused(parser, text, start, end, insert).length > 0) reusedSome++;
        text = text.slice(0, start) + insert + text.slice(end);
      }
    }
    // The comparison means something only where parts were reused.
    assert.ok(reusedSome > 100, String(reusedSome));
  },
);
