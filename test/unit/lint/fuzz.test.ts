// Bounded fuzzing of the parser + every registered rule: random mutations of the example kernels and
// random bytes, applied as incremental edits the way an editor sends them. Nothing may throw or hang.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CLI_LIMITS, EDITOR_LIMITS, LintDocument } from "../../../server/lint/lintDocument";
import type { LintOptions } from "../../../server/lint/engine";
import { cudaParser, type TextChange } from "../../../server/lint/parser";
import { rules } from "../../../server/rules/index";
import { edited } from "./editing";

const REPO = join(__dirname, "..", "..", "..");
const OPTS: LintOptions = { fileName: "fuzz.cu", targets: [75, 90], rules };

function cudaFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? cudaFiles(p) : /\.cuh?$/.test(e) ? [p] : [];
  });
}

const CORPUS = [...cudaFiles(join(REPO, "examples")), ...cudaFiles(join(REPO, "test", "fixtures", "rules"))];

/** A small deterministic PRNG so a failure can be replayed from its seed. */
function prng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

const TOKENS = [
  "__syncthreads();",
  "__shfl_xor(v, 16)",
  "<<<",
  ">>>",
  "<<<grid, 33>>>(x);",
  "{",
  "}",
  "(",
  ")",
  ";",
  "\n",
  "#if __CUDA_ARCH__ >= 800\n",
  "#endif\n",
  "__half",
  "__nv_bfloat16",
  "threadIdx.x",
  "if (threadIdx.x < 16) ",
  "for (int s = blockDim.x / 2; s > 0; s >>= 1) ",
  "__shared__ float smem[65536];",
  "__launch_bounds__(1025)",
  "dim3 block(1000);",
  "a + b",
  "+=",
  "template <int N>",
  "/*",
  "*/",
  "//",
  '"',
  "'",
  "\\",
  "😀",
  "\u0000",
  "\uFFFF",
  "\uD800",
  "::",
  "->",
  "[]",
  "0x",
  "1e+",
  "cudaGetLastError();",
  "// cuda-kernel-dev-disable-next-line ",
];

interface Mutated {
  text: string;
  change: TextChange;
}

function mutate(text: string, rand: (n: number) => number): Mutated {
  const start = rand(text.length + 1);
  const kind = rand(5);
  let end = start;
  let insert = "";
  if (kind === 0)
    end = Math.min(text.length, start + 1 + rand(40)); // delete
  else if (kind === 1)
    insert = TOKENS[rand(TOKENS.length)]!; // insert a CUDA-ish token
  else if (kind === 2) {
    // duplicate a slice from elsewhere
    const from = rand(text.length + 1);
    insert = text.slice(from, from + rand(200));
  } else if (kind === 3) {
    end = Math.min(text.length, start + rand(10));
    insert = String.fromCharCode(...Array.from({ length: 1 + rand(8) }, () => rand(0x10000)));
  } else {
    end = Math.min(text.length, start + rand(5));
    insert = TOKENS[rand(TOKENS.length)]! + TOKENS[rand(TOKENS.length)]!;
  }
  return edited(text, start, end, insert);
}

function assertClean(doc: LintDocument, what: string): void {
  const out = doc.lint(OPTS);
  if (out.kind === "linted") assert.deepEqual(out.failures, [], `a rule threw on ${what}`);
}

test("the corpus exists: examples and rule fixtures", () => {
  assert.ok(CORPUS.length >= 5, `only ${CORPUS.length} files to mutate`);
});

test(
  "thousands of random edits to the example kernels: no rule throws, the parser keeps up",
  { timeout: 300_000 },
  async () => {
    const parser = await cudaParser();
    const seed = Number(process.env.FUZZ_SEED ?? 20261122);
    const rand = prng(seed);
    let mutations = 0;
    for (const file of CORPUS) {
      const original = readFileSync(file, "utf8");
      const doc = new LintDocument(parser, original);
      let text = original;
      const steps = Math.max(40, Math.ceil(3000 / CORPUS.length));
      for (let i = 0; i < steps; i++) {
        const m = mutate(text, rand);
        doc.update(m.text, [m.change]);
        text = m.text;
        mutations++;
        // Lint after a few edits at a time, like a debounced editor.
        if (i % 3 === 2) assertClean(doc, `${file} after ${i + 1} edits (FUZZ_SEED=${seed})`);
      }
      doc.dispose();
    }
    assert.ok(mutations >= 3000);
  },
);

test(
  "random bytes and pathological shapes: linted or skipped with a reason, never thrown",
  { timeout: 120_000 },
  async () => {
    const parser = await cudaParser();
    const rand = prng(99);
    const inputs: string[] = [];
    for (let i = 0; i < 300; i++)
      inputs.push(
        Buffer.from(Array.from({ length: rand(4000) }, () => rand(256))).toString(i % 2 ? "utf8" : "latin1"),
      );
    inputs.push(
      "(".repeat(50_000),
      "{".repeat(50_000),
      "#if X\n".repeat(20_000),
      `__global__ void k() { ${"a = ".repeat(30_000)}1; }`,
      `int x = ${"1 + ".repeat(40_000)}1;`,
      "/*".repeat(10_000),
      `"${"\\".repeat(10_001)}`,
      "k<<<".repeat(5_000),
    );
    for (const [i, text] of inputs.entries()) {
      const doc = new LintDocument(parser, text);
      const out = doc.lint(OPTS);
      if (out.kind === "linted") assert.deepEqual(out.failures, [], `a rule threw on input ${i}`);
      else assert.match(out.reason, /not linted/);
      doc.dispose();
    }
  },
);

test(
  "a 2 MB file is skipped in the editor with a message, and linted (or cut off) by the CLI",
  { timeout: 120_000 },
  async () => {
    const parser = await cudaParser();
    const unit = CORPUS.map((f) => readFileSync(f, "utf8")).join("\n");
    const big = unit.repeat(Math.ceil((2 * 1024 * 1024) / unit.length)).slice(0, 2 * 1024 * 1024);
    const editor = new LintDocument(parser, big, EDITOR_LIMITS);
    const skipped = editor.lint(OPTS);
    assert.equal(skipped.kind, "skipped");
    editor.dispose();
    const cli = new LintDocument(parser, big, CLI_LIMITS);
    const out = cli.lint(OPTS);
    if (out.kind === "linted") {
      assert.deepEqual(out.failures, []);
      assert.ok(out.findings.length > 0);
    } else assert.match(out.reason, /parsing took longer/);
    cli.dispose();
  },
);
