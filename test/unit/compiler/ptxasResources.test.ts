import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatResources, parsePtxasResources } from "../../../server/compiler/ptxasResources";

const fixtures = join(__dirname, "../../fixtures/compiler");
const read = (name: string): string => readFileSync(join(fixtures, name), "utf8");
const ARCHS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"];

for (const arch of ARCHS) {
  void test(`kernels.cu -maxrregcount=40 for ${arch}: every kernel, its arch, registers and shared memory`, () => {
    const ks = parsePtxasResources(read(`ptxas-v-kernels-${arch}.txt`));
    assert.deepEqual(ks.map((k) => k.name).sort(), [
      "c_linkage_scale",
      "many_live_values",
      "sgemm_tiled<16>",
      "sgemm_tiled<32>",
      "uses_stack",
    ]);
    for (const k of ks) assert.equal(k.arch, arch);
    const byName = new Map(ks.map((k) => [k.name, k]));
    assert.equal(byName.get("sgemm_tiled<32>")!.sharedBytes, 2 * 32 * 32 * 4);
    assert.equal(byName.get("sgemm_tiled<16>")!.sharedBytes, 2 * 16 * 16 * 4);
    assert.equal(byName.get("sgemm_tiled<16>")!.barriers, 1);
    assert.equal(byName.get("c_linkage_scale")!.barriers, 0);
    // The cap is 40 registers (launch-bounded kernels may go over it); many_live_values spills under it.
    const many = byName.get("many_live_values")!;
    assert.ok(many.registers <= 40 && many.registers > 0);
    assert.ok(many.spillStoreBytes > 0 && many.spillLoadBytes > 0);
    assert.ok(many.cumulativeStackBytes >= many.stackFrameBytes && many.stackFrameBytes > 0);
    // uses_stack calls a noinline device function with a 128 B local array: a stack frame, no spill.
    const stack = byName.get("uses_stack")!;
    assert.equal(stack.stackFrameBytes, 128);
    assert.equal(stack.spillStoreBytes, 0);
    assert.ok(!ks.some((k) => k.symbol === "_Z6lookupPKfi"), "a device function is not a kernel");
    for (const k of ks) assert.ok(k.compileTimeMs !== undefined && k.compileTimeMs > 0);
  });

  void test(`rmsnorm for ${arch}: two kernels with 128 B of shared memory`, () => {
    const ks = parsePtxasResources(read(`ptxas-v-rmsnorm-${arch}.txt`));
    assert.deepEqual(ks.map((k) => k.name).sort(), ["rmsnorm_scalar", "rmsnorm_vec"]);
    for (const k of ks) {
      assert.equal(k.sharedBytes, 128);
      assert.equal(k.barriers, 1);
      assert.equal(k.spillStoreBytes, 0);
      assert.ok(k.registers >= 8 && k.registers <= 64);
    }
  });
}

void test("kernel parameters live in cmem[0] before sm_90 and are not reported as such from sm_90 on", () => {
  const old = parsePtxasResources(read("ptxas-v-kernels-sm_75.txt"));
  const hopper = parsePtxasResources(read("ptxas-v-kernels-sm_90.txt"));
  for (const k of old) assert.ok((k.constantBytes[0] ?? 0) > 0, k.name);
  for (const k of hopper) assert.equal(k.constantBytes[0], undefined, k.name);
});

void test("two gencode targets in one run give each kernel once per architecture", () => {
  const ks = parsePtxasResources(read("ptxas-v-kernels-multi.txt"));
  assert.equal(ks.length, 10);
  assert.deepEqual([...new Set(ks.map((k) => k.arch))].sort(), ["sm_75", "sm_90"]);
  const sm75 = ks.find((k) => k.arch === "sm_75" && k.name === "many_live_values")!;
  const sm90 = ks.find((k) => k.arch === "sm_90" && k.name === "many_live_values")!;
  assert.notEqual(sm75, sm90);
});

void test("the H200 fixture from the shared folder parses the same way", () => {
  const ks = parsePtxasResources(
    "ptxas info    : Compiling entry function '_Z11rmsnorm_vecP13__nv_bfloat16PKS_S2_fi' for 'sm_90'\n" +
      "ptxas info    : Function properties for _Z11rmsnorm_vecP13__nv_bfloat16PKS_S2_fi\n" +
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" +
      "ptxas info    : Used 20 registers, used 1 barriers, 128 bytes smem\n",
  );
  assert.equal(ks.length, 1);
  assert.equal(formatResources(ks[0]!), "sm_90: 20 regs · 0 B spill · 128 B smem");
});

void test("text that is not ptxas output gives no kernels rather than zeros", () => {
  assert.deepEqual(parsePtxasResources("hello\nUsed 12 registers\n"), []);
  assert.deepEqual(parsePtxasResources(""), []);
});
