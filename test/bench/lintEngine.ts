// The engine's figures for `npm run bench:lint` (lint.ts): whole-file lints, where their time goes (per
// rule, and the shared readers the rules use), edits that change a whole-file fact, and typing.
import type { Tree } from "web-tree-sitter";
import { lintTree, STANDALONE_BUILD, type LintOptions } from "../../server/lint/engine";
import { LintDocument } from "../../server/lint/lintDocument";
import { cudaParser, type CudaParser } from "../../server/lint/parser";
import { rules } from "../../server/rules/index";
import type { Rule } from "../../server/rules/rule";
import { knownBlockSizes } from "../../server/analysis/launches/blockSize";
import { fileContextKey } from "../../server/lint/fileContext";
import { FileIndex, kernelLaunches } from "../../server/analysis/source/fileIndex";
import { halfDecls } from "../../server/analysis/types/halfDecls";
import { change } from "../unit/lint/textEdits";

export const OPTS: LintOptions = { fileName: "bench.cu", targets: [75, 90], rules };

export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
export const ms = (x: number): string => `${x.toFixed(2)} ms`;

/**
 * Wall and CPU milliseconds of `fn`. On a shared, loaded machine the wall time includes waiting for a
 * core; CPU time (this process, user + system) is closer to what an idle machine would show.
 */
export function timed<T>(fn: () => T): { value: T; wall: number; cpu: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  const value = fn();
  const wall = performance.now() - t;
  const d = process.cpuUsage(c);
  return { value, wall, cpu: (d.user + d.system) / 1000 };
}
const both = (wall: number[], cpu: number[], p: number): string =>
  `${ms(pct(wall, p))} wall / ${ms(pct(cpu, p))} cpu`;
/** The fastest run: what the pass costs when nothing else wants the core (this machine is shared). */
const best = (wall: number[], cpu: number[]): string =>
  `${ms(Math.min(...wall))} wall / ${ms(Math.min(...cpu))} cpu`;

/** Full lints: from scratch (parse + rules), and the rules alone over a parsed tree (nothing reused). */
function wholeFileFigures(parser: CudaParser, text: string): void {
  const full = { wall: [] as number[], cpu: [] as number[] };
  const parse = { wall: [] as number[], cpu: [] as number[] };
  const warm = { wall: [] as number[], cpu: [] as number[] };
  for (let i = 0; i < 40; i++) {
    const doc = new LintDocument(parser, text);
    const f = timed(() => doc.lint(OPTS));
    if (f.value.kind !== "linted")
      throw new Error(`not linted: ${f.value.kind === "skipped" ? f.value.reason : ""}`);
    full.wall.push(f.wall);
    full.cpu.push(f.cpu);
    doc.dispose();
    const parsed = timed(() => parser.parse(text)!);
    parse.wall.push(parsed.wall);
    parse.cpu.push(parsed.cpu);
    const r = timed(() => lintTree(parsed.value, text, OPTS));
    warm.wall.push(r.wall);
    warm.cpu.push(r.cpu);
    parsed.value.delete();
  }
  const bytes = Buffer.byteLength(text);
  console.log(
    `full lint from scratch (parse + all rules): median ${both(full.wall, full.cpu, 50)}, p95 ${both(full.wall, full.cpu, 95)}`,
  );
  console.log(`  of which parse: median ${both(parse.wall, parse.cpu, 50)}`);
  console.log(
    `warm full lint (all rules over the whole file, tree already parsed, nothing reused): median ${both(warm.wall, warm.cpu, 50)}, p95 ${both(warm.wall, warm.cpu, 95)}, best of 40 ${best(warm.wall, warm.cpu)}   goal <= 10 ms`,
  );
  console.log(
    `throughput (cpu time): ${(bytes / 1e6 / (pct(full.cpu, 50) / 1000)).toFixed(1)} MB/s full lint, ${(bytes / 1e6 / (pct(parse.cpu, 50) / 1000)).toFixed(1)} MB/s parse only`,
  );
}

/**
 * CPU per rule over whole-file passes. A reader several rules share (the launches, the constants, the half
 * declarations) is charged to the first rule that asks, so the shared readers are also timed alone.
 */
function breakdown(parser: CudaParser, text: string): void {
  const perRule = new Map<string, number[]>();
  const wrapped: Rule[] = rules.map((r) => ({
    ...r,
    check(ctx) {
      const t = timed(() => r.check(ctx));
      perRule.set(r.id, [...(perRule.get(r.id) ?? []), t.cpu]);
    },
  }));
  const tree = parser.parse(text)!;
  for (let i = 0; i < 30; i++) lintTree(tree, text, { ...OPTS, rules: wrapped });
  const byCost = [...perRule].map(([id, xs]) => [id, pct(xs, 50)] as const).sort((a, b) => b[1] - a[1]);
  console.log(
    `rules, median cpu ms per whole-file pass: ${byCost.map(([id, x]) => `${id} ${x.toFixed(2)}`).join(", ")}`,
  );
  const readers: [string, (idx: FileIndex, t: Tree) => unknown][] = [
    ["half declarations", (idx) => halfDecls(idx)],
    ["device functions", (idx) => idx.deviceFunctions()],
    ["kernel launches", (idx) => kernelLaunches(idx)],
    ["launches + block sizes (constants)", (_, t) => knownBlockSizes({ ...ctxOf(t, text) })],
    ["whole-file context key", (idx) => fileContextKey(idx)],
  ];
  const shared = readers.map(([name, read]) => {
    const cpu: number[] = [];
    for (let i = 0; i < 30; i++) {
      const idx = FileIndex.begin(tree, text);
      cpu.push(timed(() => read(idx, tree)).cpu);
    }
    return `${name} ${pct(cpu, 50).toFixed(2)}`;
  });
  console.log(`  shared readers alone, median cpu ms: ${shared.join(", ")}`);
  tree.delete();
}

function ctxOf(tree: Tree, text: string): Parameters<Rule["check"]>[0] {
  return {
    tree,
    text,
    fileName: "bench.cu",
    targets: [75, 90],
    options: { launchCheckMacros: [] },
    build: STANDALONE_BUILD,
    report() {},
  };
}

/**
 * Edits that change a fact findings in other definitions depend on, each made and then undone with a lint
 * after both: the opt-in attribute named at the end of the file (whole-file context), a constant's value,
 * a file-scope __half declaration (of a new name, and of a name other definitions write). Before
 * per-rule relints each of these linted the whole file.
 */
function wholeFileChangeFigures(parser: CudaParser, text: string): void {
  const constant = /constexpr int kRmsBlock = 256;/.exec(text);
  const edits: { name: string; at: number; remove: number; insert: string }[] = [
    {
      name: "opt-in attribute",
      at: text.length,
      remove: 0,
      insert: "\n// cudaFuncAttributeMaxDynamicSharedMemorySize\n",
    },
    { name: "file-scope __half", at: text.length, remove: 0, insert: "\n__device__ __half g_bench_scale;\n" },
    // A name written elsewhere (every RMSNorm's `eps` parameter): the half rules read the file again.
    { name: "file-scope __half named eps", at: text.length, remove: 0, insert: "\n__device__ __half eps;\n" },
  ];
  if (constant)
    edits.push({ name: "constant value", at: text.indexOf("256", constant.index), remove: 3, insert: "255" });
  for (const edit of edits) {
    const doc = new LintDocument(parser, text);
    doc.lint(OPTS);
    const wall: number[] = [];
    const cpu: number[] = [];
    const again = new Map<string, number>();
    let current = text;
    for (let i = 0; i < 40; i++) {
      const forward = i % 2 === 0;
      const removed = forward ? edit.remove : edit.insert.length;
      const inserted = forward ? edit.insert : text.slice(edit.at, edit.at + edit.remove);
      const next = current.slice(0, edit.at) + inserted + current.slice(edit.at + removed);
      const made = change(current, edit.at, edit.at + removed, inserted);
      doc.update(next, [made]);
      current = next;
      doc.syntaxTree(); // the reparse is timed with typing; here the lint
      const r = timed(() => doc.lint(OPTS));
      wall.push(r.wall);
      cpu.push(r.cpu);
      const ran =
        r.value.kind !== "linted"
          ? "not linted"
          : r.value.scope === "file"
            ? "every rule"
            : (r.value.wholeFileRules ?? []).join(" + ") || "none";
      again.set(ran, (again.get(ran) ?? 0) + 1);
    }
    doc.dispose();
    const ran = [...again].map(([what, n]) => `${what} (${n}x)`).join(", ");
    console.log(
      `whole-file change: ${edit.name}, lint after the edit (reparse not counted): p50 ${both(wall, cpu, 50)}, p95 ${both(wall, cpu, 95)}; over the whole file again: ${ran}`,
    );
  }
}

/**
 * Pairs of one-character edits at the start of a line inside a function body, each followed by a lint:
 * "typing" inserts a space and deletes it again; "breaking" deletes the character there (a brace, a
 * letter of a keyword...) and types it back. Either way the file is the workload again after each pair.
 */
function editFigures(parser: CudaParser, text: string, kind: "typing" | "breaking", count: number) {
  const doc = new LintDocument(parser, text);
  doc.lint(OPTS);
  const wall: number[] = [];
  const cpu: number[] = [];
  const reparse: number[] = [];
  const scopes = { file: 0, window: 0, unchanged: 0 };
  const bodies = [...text.matchAll(/\{\n/g)].map((m) => m.index + 2);
  let seed = kind === "typing" ? 1 : 7;
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) seed = (seed * 48271) % 2147483647;
    let at = bodies[seed % bodies.length]!;
    if (kind === "breaking") while (/\s/.test(text[at] ?? "x")) at++;
    const removeFirst = kind === "breaking";
    const first = i % 2 === 0;
    const current = first
      ? text
      : removeFirst
        ? text.slice(0, at) + text.slice(at + 1)
        : text.slice(0, at) + " " + text.slice(at);
    const removing = first === removeFirst;
    const inserted = removeFirst ? text[at]! : " ";
    const edit = removing ? change(current, at, at + 1, "") : change(current, at, at, inserted);
    const next = removing
      ? current.slice(0, at) + current.slice(at + 1)
      : current.slice(0, at) + inserted + current.slice(at);
    const e = timed(() => {
      doc.update(next, [edit]);
      const r = timed(() => doc.syntaxTree());
      reparse.push(r.cpu);
      return doc.lint(OPTS);
    });
    if (e.value.kind === "linted") scopes[e.value.scope]++;
    wall.push(e.wall);
    cpu.push(e.cpu);
  }
  doc.dispose();
  return { wall, cpu, reparse, scopes };
}

function typingFigures(parser: CudaParser, text: string): void {
  const typing = editFigures(parser, text, "typing", 300);
  console.log(
    `one-character edit -> new findings (engine): p50 ${both(typing.wall, typing.cpu, 50)}, p95 ${both(typing.wall, typing.cpu, 95)}   goal p95 <= 10 ms`,
  );
  console.log(
    `  of which incremental reparse: p50 ${ms(pct(typing.reparse, 50))} cpu, p95 ${ms(pct(typing.reparse, 95))} cpu (the rest is the rules)`,
  );
  console.log(
    `  rules ran over the edited definitions only after ${typing.scopes.window} of ${typing.wall.length} edits (the whole file after ${typing.scopes.file})`,
  );
  const breaking = editFigures(parser, text, "breaking", 200);
  console.log(
    `one-character edit that breaks the syntax (a random character deleted, then put back): p50 ${both(breaking.wall, breaking.cpu, 50)}, p95 ${both(breaking.wall, breaking.cpu, 95)}`,
  );
  console.log(
    `  of which incremental reparse: p50 ${ms(pct(breaking.reparse, 50))} cpu, p95 ${ms(pct(breaking.reparse, 95))} cpu; edited definitions only after ${breaking.scopes.window} of ${breaking.wall.length} edits`,
  );
}

export async function engineFigures(text: string): Promise<void> {
  const parser = await cudaParser();
  // Warm-up: JIT, wasm tiers.
  for (let i = 0; i < 5; i++) {
    const doc = new LintDocument(parser, text);
    doc.lint(OPTS);
    doc.dispose();
  }
  const probe = parser.parse(text)!;
  const clean = !probe.rootNode.hasError;
  probe.delete();
  console.log(
    `workload: ${text.split("\n").length} lines, ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB, ${rules.length} rules, ${clean ? "no syntax errors" : "HAS SYNTAX ERRORS"}`,
  );
  wholeFileFigures(parser, text);
  breakdown(parser, text);
  wholeFileChangeFigures(parser, text);
  typingFigures(parser, text);
}
