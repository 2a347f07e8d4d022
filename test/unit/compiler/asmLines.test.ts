import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { asmLinesFor, ptxLineMap, sassLineMap, toRuns } from "../../../server/compiler/asmLines";

const fixtures = join(__dirname, "../../fixtures/compiler");
const read = (p: string): string => readFileSync(join(fixtures, p), "utf8");
const SOURCE = "/work/main/test/fixtures/compiler/rmsnorm.cu"; // as nvcc wrote it into .file / //## File

void test("PTX: each kernel's .entry range, and the instructions of a source line", () => {
  const ptx = read("ptx/rmsnorm.sm_90.ptx");
  const text = ptx.split("\n");
  const map = ptxLineMap(ptx);
  assert.deepEqual([...map.functions.keys()].sort(), [
    "_Z11rmsnorm_vecP13__nv_bfloat16PKS_S2_fi",
    "_Z14rmsnorm_scalarP13__nv_bfloat16PKS_S2_fi",
  ]);
  const vec = map.functions.get("_Z11rmsnorm_vecP13__nv_bfloat16PKS_S2_fi")!;
  assert.match(text[vec.start]!, /\.entry _Z11rmsnorm_vec/);
  assert.equal(text[vec.end]!.trim(), "}");
  // rmsnorm.cu line 18: the scalar kernel's sum of squares loop (a load, a bf16 convert, an fma).
  const l18 = asmLinesFor(map, SOURCE, 18).map((i) => text[i]!.trim());
  assert.ok(
    l18.some((l) => l.startsWith("ld.global.u16")),
    l18.join("\n"),
  );
  assert.ok(l18.some((l) => l.startsWith("fma.rn.f32")));
  // The bf16 conversion was inlined from cuda_bf16.hpp at line 18: it belongs to line 18 as well.
  assert.ok(l18.some((l) => l.includes("cvt.f32.bf16")));
  // Matching works with the path as the editor has it, or relative.
  assert.deepEqual(asmLinesFor(map, "rmsnorm.cu", 18), asmLinesFor(map, SOURCE, 18));
  assert.deepEqual(asmLinesFor(map, "other.cu", 18), []);
  // Every mapped line is an instruction inside a kernel, never a directive or a label.
  for (const l of map.lines) {
    assert.doesNotMatch(text[l.asmLine]!, /^\s*(\.|\/\/|\$L__\w+:)/);
    assert.ok([...map.functions.values()].some((f) => l.asmLine > f.start && l.asmLine < f.end));
  }
});

void test("PTX with -src-in-ptx and a device function: the .func is a function too", () => {
  const map = ptxLineMap(read("ptx/kernels.sm_80.ptx"));
  assert.ok(map.functions.has("_Z6lookupPKfi"));
  assert.ok(map.functions.has("_Z11sgemm_tiledILi16EEvPKfS1_Pfi"));
  assert.ok(asmLinesFor(map, "kernels.cu", 14).length > 0, "the tile loads of sgemm_tiled");
});

void test("SASS from nvdisasm -g: functions and source lines; cuobjdump -sass: functions", () => {
  const nv = read("sass/rmsnorm.sm_90.nvdisasm.txt");
  const text = nv.split("\n");
  const map = sassLineMap(nv);
  assert.deepEqual([...map.functions.keys()].sort(), [
    "_Z11rmsnorm_vecP13__nv_bfloat16PKS_S2_fi",
    "_Z14rmsnorm_scalarP13__nv_bfloat16PKS_S2_fi",
  ]);
  const l38 = asmLinesFor(map, SOURCE, 38).map((i) => text[i]!);
  assert.ok(l38.length > 0);
  for (const l of l38) assert.match(l, /^\s*\/\*[0-9a-f]{4}\*\//);
  const cu = sassLineMap(read("sass/rmsnorm.sm_90.cuobjdump-sass.txt"));
  assert.equal(cu.functions.size, 2);
  assert.equal(cu.lines.length, 0, "cuobjdump has no line info");
});

void test("toRuns groups consecutive lines", () => {
  assert.deepEqual(toRuns([1, 2, 3, 7, 9, 10]), [
    [1, 3],
    [7, 7],
    [9, 10],
  ]);
  assert.deepEqual(toRuns([]), []);
});
