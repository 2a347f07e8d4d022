// Incremental linting (server/lint/incremental.ts): after every edit, the findings of a document that
// relints only the touched definitions must equal those of a whole-file lint of the same tree. (The
// same tree: that the reparse recovers from errors as a fresh parse does is the parser's business,
// tested in parser.test.ts and, end to end, in test/integration/incrementalSync.test.ts.) Targeted
// cases of facts one definition reads from another are in relintRules.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { prng } from "../fuzz/mutate";
import { CLI_LIMITS, LintDocument } from "../../../server/lint/lintDocument";
import { cudaParser, type TextChange } from "../../../server/lint/parser";
import { change, EXAMPLES, lines, OPTS, wholeFile } from "./editing";

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
  seed = Number(process.env.FUZZ_SEED ?? 20261123),
): Promise<Record<"file" | "window" | "unchanged" | "rulesAgain", number>> {
  const parser = await cudaParser();
  const rng = prng(seed);
  const rand = (n: number): number => rng.int(n);
  // rulesAgain: windowed relints that ran some rules over the whole file again (a fact they read changed)
  const scopes = { file: 0, window: 0, unchanged: 0, rulesAgain: 0 };
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
      if ((out.wholeFileRules?.length ?? 0) > 0) scopes.rulesAgain++;
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
    // Both ways a relint keeps findings must have been compared: every rule windowed, and some rules
    // run over the whole file again.
    assert.ok(scopes.window > scopes.rulesAgain && scopes.rulesAgain > 0, JSON.stringify(scopes));
  },
);

test(
  "random edits with the seeds that found window-boundary mistakes: equal after every edit",
  { timeout: 300_000 },
  async () => {
    // Seed 1: a half declaration split across two top-level items by broken code, its initialiser in the
    // window (halfNamesNextTo). Seed 23: a `#define` read differently by the tree after an edit earlier in
    // the window, with the same text (editedConstants compares bindings, not text).
    for (const seed of [1, 23]) await editAndCompare(randomEdit, 60, seed);
  },
);
