import { test } from "node:test";
import assert from "node:assert/strict";
import { maskSource, scanKernels } from "../../../server/bench/kernelScan";

test("masking keeps offsets and newlines, blanks comments, strings and directives", () => {
  const src = [
    "#define K __global__ void fake(int x) {}",
    "/* __global__ void in_block(\n   comment) {} */ int a;",
    'const char* s = "__global__ void in_string() {}"; // __global__ void in_line_comment() {}',
    "#if 0 \\",
    "  __global__ void continued() {}",
    'extern "C" __global__ void real(float* x) {}',
    "/* unterminated __global__ void tail() {}",
  ].join("\n");
  const m = maskSource(src);
  assert.equal(m.length, src.length);
  assert.deepEqual([...m].map((c, i) => (c === "\n") === (src[i] === "\n")).every(Boolean), true);
  assert.deepEqual(
    scanKernels(src).map((k) => [k.name, k.externC]),
    [["real", true]],
  );
  assert.equal(m.split("\n")[1]!.trim(), "");
});

test("kernels: templates, defaults, namespaces, launch bounds, declarations, params", () => {
  const src = [
    "namespace outer { namespace inner {",
    "// @bench n=[1]",
    "template <typename T, int VEC = 4, bool B>",
    "__global__ void __launch_bounds__(256, 2)",
    "    k1(T* __restrict__ out, const T* __restrict__ in, std::array<int, 2> pair, int n) {",
    "  if (a < b && c > d) {}",
    "}",
    "}  // namespace inner",
    "__global__ void k2(float* x);",
    "__global__ void k3(void) {}",
    "}",
  ].join("\n");
  const ks = scanKernels(src);
  assert.deepEqual(
    ks.map((k) => [k.name, k.namespaces.join("::"), k.hasBody, k.declLine]),
    [
      ["k1", "outer::inner", true, 2],
      ["k2", "outer", false, 8],
      ["k3", "outer", true, 9],
    ],
  );
  const k1 = ks[0]!;
  assert.deepEqual(k1.template, [
    { kind: "type", valueType: "", name: "T" },
    { kind: "value", valueType: "int", name: "VEC", defaultValue: "4" },
    { kind: "value", valueType: "bool", name: "B" },
  ]);
  assert.deepEqual(
    k1.params.map((p) => [p.name, p.baseType, p.pointer, p.isConst]),
    [
      ["out", "T", true, false],
      ["in", "T", true, true],
      ["pair", "std::array<int, 2>", false, false],
      ["n", "int", false, false],
    ],
  );
  assert.deepEqual(k1.nameSpan, { startLine: 4, startColumn: 4, endLine: 4, endColumn: 6 });
  assert.equal(k1.specLines.length, 1);
  assert.equal(k1.specLines[0]!.text, " n=[1]");
  assert.deepEqual(ks[2]!.params, []);
});
