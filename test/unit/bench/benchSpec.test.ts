import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSpec } from "../../../server/bench/benchSpec";
import { evaluate } from "../../../server/bench/expressions";
import { scanKernels } from "../../../server/bench/kernelScan";
import { planPoints } from "../../../server/bench/plan";
import { benchSpecFindings } from "../../../server/bench/specDiagnostics";
import type { Finding } from "../../../server/rules/rule";

const fixture = readFileSync(join(__dirname, "../../fixtures/bench/scale.cu"), "utf8");

const KERNEL = `__global__ void rmsnorm_vec(__nv_bfloat16* out, const __nv_bfloat16* in, const __nv_bfloat16* w, float eps, int hidden) {}
__global__ void rmsnorm_scalar(__nv_bfloat16* out, const __nv_bfloat16* in, const __nv_bfloat16* w, float eps, int hidden) {}
template <typename T, int VEC>
__global__ void copy_vec(T* out, const T* in, long n) {}
`;

const GOOD = [
  "// RMSNorm, vectorised.",
  "// @bench rows=[1024, 8192] hidden=[2048, 4096]",
  "// @bench grid=(rows) block=(256) smem=0",
  "// @bench arg out: bf16[rows*hidden] output(atol=1e-2, rtol=2e-2)",
  "// @bench arg in: bf16[rows*hidden] randn(seed=3)",
  "// @bench arg w: bf16[hidden] ones",
  "// @bench arg eps: f32 = 1e-6",
  "// @bench arg hidden: i32 = hidden",
  "// @bench bytes = 2*rows*hidden*2 + hidden*2",
  "// @bench flops = 4*rows*hidden",
  "// @bench baseline rmsnorm_scalar",
  "// @bench timing rsd=1 budget_ms=500 flush_l2=false",
];

/** The document: spec lines, then the kernels (the first kernel gets the spec). */
const doc = (spec: string[]) => [...spec, KERNEL].join("\n");

test("a full spec parses into sweeps, launch shape, arguments and options", () => {
  const k = scanKernels(doc(GOOD))[0]!;
  assert.equal(k.name, "rmsnorm_vec");
  const parsed = parseSpec(k)!;
  assert.deepEqual(parsed.errors, []);
  const s = parsed.spec;
  assert.deepEqual(
    s.vars.map((v) => [v.name, v.values?.length]),
    [
      ["rows", 2],
      ["hidden", 2],
    ],
  );
  assert.deepEqual(
    s.args.map((a) => [a.name, a.kind, a.dtype]),
    [
      ["out", "buffer", "bf16"],
      ["in", "buffer", "bf16"],
      ["w", "buffer", "bf16"],
      ["eps", "scalar", "f32"],
      ["hidden", "scalar", "i32"],
    ],
  );
  assert.deepEqual(s.args[0]!.output && { atol: s.args[0]!.output.atol, rtol: s.args[0]!.output.rtol }, {
    atol: 1e-2,
    rtol: 2e-2,
  });
  assert.deepEqual(s.args[1]!.init?.init, { kind: "randn", seed: 3 });
  assert.deepEqual(s.args[2]!.init?.init, { kind: "ones" });
  assert.equal(s.baseline?.name, "rmsnorm_scalar");
  assert.deepEqual(s.timing, { targetRsdPct: 1, budgetMs: 500, flushL2: false });
  assert.deepEqual(benchSpecFindings(doc(GOOD)), []);

  const points = planPoints(s, k);
  assert.deepEqual(
    points.map((p) => p.label),
    ["rows=1024 hidden=2048", "rows=1024 hidden=4096", "rows=8192 hidden=2048", "rows=8192 hidden=4096"],
  );
  const last = points[3]!;
  assert.deepEqual(last.grid, [8192, 1, 1]);
  assert.deepEqual(last.block, [256, 1, 1]);
  assert.equal(last.bytes, 2 * 8192 * 4096 * 2 + 4096 * 2);
  assert.equal(last.flops, 4 * 8192 * 4096);
  assert.deepEqual(last.args[0], {
    kind: "buffer",
    name: "out",
    dtype: "bf16",
    count: 8192 * 4096,
    init: { kind: "zeros" },
    output: { atol: 1e-2, rtol: 2e-2 },
  });
  assert.deepEqual(last.args[4], { kind: "scalar", name: "hidden", dtype: "i32", value: 4096 });
});

test("template values, derived variables, 3-d shapes, positional baseline templates", () => {
  const text = [
    "// @bench n=[1 << 20] half_n = n / 2",
    "// @bench grid=(cdiv(n, 256*VEC), 2, 1) block=(32, 8)",
    "// @bench VEC = 4",
    "// @bench arg out: f16[n] output",
    "// @bench arg in: half[n] uniform(low=-2, high=2, seed=1)",
    "// @bench arg n: i64 = half_n * 2",
    "// @bench template T=__half VEC=4",
    "// @bench baseline copy_vec<__half, 1>",
    "template <typename T, int VEC>",
    "__global__ void copy_fast(T* out, const T* in, long n) {}",
    KERNEL,
  ].join("\n");
  const kernels = scanKernels(text);
  const k = kernels.find((x) => x.name === "copy_fast")!;
  const { spec, errors } = parseSpec(k)!;
  assert.deepEqual(errors, []);
  assert.deepEqual(
    spec.template.map((t) => [t.name, t.value]),
    [
      ["T", "__half"],
      ["VEC", "4"],
    ],
  );
  assert.deepEqual(spec.baseline?.templateArgs, ["__half", "1"]);
  assert.deepEqual(benchSpecFindings(text), []);
  const [p] = planPoints(spec, k);
  assert.deepEqual(p!.grid, [1024, 2, 1]);
  assert.deepEqual(p!.block, [32, 8, 1]);
  assert.deepEqual(p!.args[1], {
    kind: "buffer",
    name: "in",
    dtype: "f16",
    count: 1 << 20,
    init: { kind: "uniform", low: -2, high: 2, seed: 1 },
  });
  assert.equal(evaluate(spec.args[2]!.value!, new Map([["half_n", { value: 7, float: false }]])).value, 14);
});

/** The one finding whose message matches; checks its place: the `needle` on spec line `line`. */
function expectFinding(
  findings: Finding[],
  message: RegExp,
  line: number,
  needle: string,
  spec: string[],
  severity = "error",
) {
  const f = findings.find((x) => message.test(x.message));
  assert.ok(f, `no finding matching ${message}; got ${JSON.stringify(findings.map((x) => x.message))}`);
  const col = spec[line]!.indexOf(needle);
  assert.ok(col >= 0, `'${needle}' is not on line ${line}`);
  assert.deepEqual(
    [f.span.startLine, f.span.startColumn, f.span.endLine, f.span.endColumn],
    [line, col, line, col + needle.length],
    `place of "${f.message}"`,
  );
  assert.equal(f.severity, severity);
  assert.equal(f.rule, "bench-spec");
}

/** GOOD with line `i` replaced. */
const withLine = (i: number, text: string) => GOOD.map((l, j) => (j === i ? text : l));

const PARSE_ERRORS: [number, string, RegExp, string][] = [
  [
    1,
    "// @bench rows=[1024, 8192 hidden=[2048]",
    /expected '\]' to close the list of 'rows', found 'hidden'/,
    "hidden",
  ],
  [1, "// @bench rows=[] hidden=[2048]", /the sweep 'rows' is empty/, "[]"],
  [2, "// @bench grid=(rows) block=(256) smem=0 grid=(1)", /'grid' is given twice/, "grid=(1)".slice(0, 4)],
  [2, "// @bench grid=(rows, 1, 1, 1) block=(256)", /at most 3 dimensions/, "(rows, 1, 1, 1)"],
  [3, "// @bench arg out: bf17[rows*hidden] output", /unknown dtype 'bf17'/, "bf17"],
  [
    3,
    "// @bench arg out bf16[rows*hidden] output",
    /expected ':' after the argument name, found 'bf16'/,
    "bf16",
  ],
  [
    3,
    "// @bench arg out: bf16[rows*hidden output",
    /expected '\]' after the element count, found 'output'/,
    "output",
  ],
  [
    3,
    "// @bench arg out: bf16[rows*hidden] output(atol=1e-2, tolerance=1)",
    /unknown parameter 'tolerance' \(expected atol, rtol\)/,
    "tolerance",
  ],
  [4, "// @bench arg in: bf16[rows*hidden] gaussian", /unknown init 'gaussian'/, "gaussian"],
  [4, "// @bench arg in: bf16[rows*hidden] uniform(1, -1)", /uniform needs low < high/, "uniform(1, -1)"],
  [4, "// @bench arg in: bf16[rows*hidden] randn zeros", /a second init 'zeros' \(already randn\)/, "zeros"],
  [5, "// @bench arg w: bf16[hidden] constant(rows)", /'rows': a constant is needed here/, "rows"],
  [5, "// @bench arg w bf16", /expected ':' after the argument name, found 'bf16'/, "bf16"],
  [6, "// @bench arg eps: f32 1e-6", /expected '\[count\]' for a buffer or '= value' for a scalar/, "1e-6"],
  [8, "// @bench bytes = 2*rows*hidden*2 +", /expected an expression/, ""],
  [8, "// @bench bytes = 2*rows*hidden*2 ] 4", /expected NAME=VALUE, found '\]'/, "]"],
  [9, "// @bench flop = 4*rows*hidden", /unknown variable 'rows'|flop/, "flop"],
  [10, "// @bench baseline", /expected the baseline kernel's name/, ""],
  [
    10,
    "// @bench baseline rmsnorm_scalar rows=4",
    /a baseline takes grid=, block= and smem=, not 'rows'/,
    "rows",
  ],
  [
    10,
    "// @bench baseline rmsnorm_scalar grid=(1) grid=(2)",
    /'grid' is given twice/,
    "grid=(2)".slice(0, 4),
  ],
  [10, "// @bench baseline rmsnorm_scalar block=(rowz)", /unknown variable 'rowz'/, "rowz"],
  [11, "// @bench timing rsd=1 budget=500", /unknown timing key 'budget'/, "budget"],
  [11, "// @bench timing flush_l2=maybe", /expected true or false/, "maybe"],
  [11, "// @bench timing min_samples=2.5", /min_samples must be a non-negative integer/, "2.5"],
  [1, "// @bench benchmark rows=[1]", /unknown @bench item 'benchmark'/, "benchmark"],
  [1, "// @bench grid=(rows) cdiv=3", /'cdiv' is a function name/, "cdiv"],
  [1, "// @bench rows=[1024] rows=[2]", /variable 'rows' is defined twice/, "rows=[2]".slice(0, 4)],
  [1, "// @bench rows=[1024, 8192] hidden=[2048, 4096] #", /unexpected character '#'/, "#"],
];

test("every kind of spec error is reported at its exact place", () => {
  for (const [line, text, message, needle] of PARSE_ERRORS) {
    const spec = withLine(line, text);
    const findings = benchSpecFindings(doc(spec));
    // An empty needle means "the end of the line".
    const n = needle === "" ? "" : needle;
    if (needle === "") {
      const f = findings.find((x) => message.test(x.message));
      assert.ok(f, `${text}: ${JSON.stringify(findings)}`);
      assert.deepEqual([f.span.startLine, f.span.startColumn], [line, text.length], text);
    } else if (text.includes("grid=(1)") || text.includes("rows=[2]") || text.includes("grid=(2)")) {
      // The duplicate is the second occurrence of the key.
      const f = findings.find((x) => message.test(x.message))!;
      assert.ok(f, text);
      assert.equal(f.span.startColumn, text.lastIndexOf(n), text);
      assert.equal(f.span.startLine, line, text);
    } else if (/flop =/.test(text)) {
      // `flop` is a new variable; the next line that reads `rows` is fine, but nothing named flops exists.
      assert.deepEqual(findings, [], "a variable called 'flop' is legal");
    } else {
      expectFinding(findings, message, line, n, spec);
    }
  }
});

test("an error on one line does not hide errors on the others", () => {
  const spec = withLine(3, "// @bench arg out: bf17[rows*hidden] output");
  spec[11] = "// @bench timing rsd=1 budget=500";
  const findings = benchSpecFindings(doc(spec));
  assert.equal(findings.length, 2, JSON.stringify(findings));
});

test("mismatches with the kernel's signature", () => {
  let spec = withLine(5, "// @bench arg weight: bf16[hidden] ones");
  let f = benchSpecFindings(doc(spec));
  expectFinding(
    f,
    /'weight' is not a parameter of rmsnorm_vec \(parameters: out, in, w, eps, hidden\)/,
    5,
    "weight",
    spec,
  );
  expectFinding(f, /no '@bench arg w: ...' for parameter 3 of rmsnorm_vec/, 1, "@bench", spec);

  spec = withLine(6, "// @bench arg eps: f32[rows] zeros");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /'eps' is a float, not a pointer/, 6, "eps", spec);

  spec = withLine(5, "// @bench arg w: bf16 = 1");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /'w' is a pointer \(const __nv_bfloat16\*\)/, 5, "w", spec);

  spec = withLine(4, "// @bench arg in: f32[rows*hidden] randn");
  f = benchSpecFindings(doc(spec));
  expectFinding(
    f,
    /'in' is declared __nv_bfloat16 \(bf16\) but the spec says f32/,
    4,
    "f32",
    spec,
    "warning",
  );

  spec = withLine(4, "// @bench arg in: bf16[rows*hidden] randn output");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /'in' is const in rmsnorm_vec/, 4, "output", spec, "warning");

  spec = withLine(10, "// @bench baseline rmsnorm_fast");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /no __global__ kernel 'rmsnorm_fast' in this file/, 10, "rmsnorm_fast", spec);

  spec = withLine(10, "// @bench baseline copy_vec");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /copy_vec takes 3 arguments, rmsnorm_vec 5/, 10, "copy_vec", spec);

  spec = withLine(2, "// @bench block=(256)");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /missing grid=/, 1, "@bench", spec);

  spec = withLine(7, "// @bench template T=float");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /rmsnorm_vec is not a template/, 7, "T=float", spec);
});

test("template parameters need values of the right kind", () => {
  const text = (t: string) =>
    [
      `// @bench n=[64] grid=(1) block=(64)`,
      "// @bench arg out: f32[n] output",
      "// @bench arg in: f32[n]",
      "// @bench arg n: i64 = n",
      t,
      KERNEL.split("\n").slice(2).join("\n"),
    ].join("\n");
  let f = benchSpecFindings(text("// @bench template T=float"));
  assert.match(f[0]!.message, /template parameter 'VEC' of copy_vec needs a value/);
  f = benchSpecFindings(text("// @bench template T=float VEC=four"));
  assert.match(f[0]!.message, /'VEC' is a int: give an integer or true\/false, got 'four'/);
  assert.deepEqual([f[0]!.span.startLine, f[0]!.span.startColumn], [4, "// @bench template T=float ".length]);
  f = benchSpecFindings(text("// @bench template T=float VEC=4 W=2"));
  assert.match(f[0]!.message, /'W' is not a template parameter of copy_vec \(T, VEC\)/);
  assert.deepEqual(benchSpecFindings(text("// @bench template T=float VEC=-4")), []);
  // Multi-word types are kept whole; u32 data for `unsigned int` T is then expected.
  f = benchSpecFindings(text("// @bench template T=unsigned int VEC=4"));
  assert.match(f[0]!.message, /'out' is declared T \(u32\) but the spec says f32/);
});

test("values that cannot launch are caught for every size, at the expression", () => {
  let spec = withLine(2, "// @bench grid=(rows) block=(hidden / 2)");
  let f = benchSpecFindings(doc(spec));
  expectFinding(
    f,
    /block.x is 1024|block has 2048 threads; the limit is 1024|block.x is 2048, above the maximum 1024/,
    2,
    "hidden / 2",
    spec,
  );

  spec = withLine(2, "// @bench grid=(rows - 1024) block=(256)");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /grid.x is 0, below the minimum 1/, 2, "rows - 1024", spec);

  spec = withLine(2, "// @bench grid=(rows / 3.0) block=(256)");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /grid.x must be an integer, got 341.33/, 2, "rows / 3.0", spec);

  spec = withLine(7, "// @bench arg hidden: i32 = hidden * 1e6");
  f = benchSpecFindings(doc(spec));
  expectFinding(
    f,
    /'hidden' is i32 but the value is 2048000000|'hidden' is i32 but the value is 4096000000/,
    7,
    "hidden * 1e6",
    spec,
  );

  spec = withLine(8, "// @bench bytes = 2*rows*hiden");
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /unknown variable 'hiden'/, 8, "hiden", spec);

  spec = withLine(
    1,
    "// @bench rows=[1024, 8192] hidden=[2048, 4096] big=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65]",
  );
  f = benchSpecFindings(doc(spec));
  expectFinding(f, /more than 256 sizes/, 1, "big", spec);
});

test("@bench lines away from a kernel are flagged; other comments in the block are fine", () => {
  const text = [
    "// @bench n=[1]",
    "",
    "int x;",
    "// Scales a vector.",
    "// @bench n=[1024] grid=(n/256) block=(256)",
    "// (any comment may sit in between)",
    "// @bench arg x: f32[n] arange",
    "__global__ void k(float* x) {}",
  ].join("\n");
  const f = benchSpecFindings(text);
  assert.equal(f.length, 1, JSON.stringify(f));
  assert.match(f[0]!.message, /not in the comment block directly above a __global__ kernel/);
  assert.deepEqual([f[0]!.span.startLine, f[0]!.span.startColumn, f[0]!.severity], [0, 3, "warning"]);
});

test("the fixture's specs are all valid", () => {
  assert.deepEqual(benchSpecFindings(fixture), []);
});
