// Real nvcc (no GPU needed for -cubin): the harness compiles for a plain and a template kernel, the
// symbols are found among ptxas's entry names, and the cache skips nvcc until an input changes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSpec } from "../../../server/bench/benchSpec";
import { compileCubin, parseDepFile } from "../../../server/bench/compile";
import { cppName, generateHarness, resolveInstance } from "../../../server/bench/harness";
import { scanKernels } from "../../../server/bench/kernelScan";
import { findSymbol } from "../../../server/bench/symbols";
import { resolveNvcc } from "../../../server/compiler/nvcc";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const fixture = join(__dirname, "../../fixtures/bench/scale.cu");

test("harness for a plain and a template kernel compiles with the real nvcc; symbols are found", async () => {
  const nvcc = await resolveNvcc(undefined);
  const kernels = scanKernels(readFileSync(fixture, "utf8"));
  const byName = (n: string) => kernels.find((k) => k.name === n)!;
  const plain = resolveInstance(byName("scale_f32"), []);
  const templ = resolveInstance(byName("copy_vec"), parseSpec(byName("copy_vec"))!.spec.template);
  const namespaced = resolveInstance(byName("square_inplace"), []);
  const externC = resolveInstance(byName("fill_ones"), []);
  assert.equal(cppName(templ), "copy_vec<__nv_bfloat16, 8, true>");
  assert.equal(cppName(namespaced), "kernels::square_inplace");
  const harness = generateHarness(fixture, [plain, templ, namespaced, externC]);
  const cacheDir = tempDir("ckd-cubin-");
  const r = await compileCubin({ harness, nvcc, arch: "sm_90", flags: [], cwd: tmpdir(), cacheDir });
  assert.equal(r.cached, false);
  assert.ok(
    readFileSync(r.cubinPath)
      .subarray(0, 4)
      .equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])),
    "an ELF cubin",
  );
  const symbols = r.kernels.map((k) => k.symbol);
  // ptxas -v names every entry; the host code's own copy_vec<float, ...> instances are there too.
  assert.ok(symbols.includes("_Z8copy_vecIfLi4ELb0EEvPT_PKS0_l"), symbols.join(" "));
  assert.equal(findSymbol(plain, symbols), "_Z9scale_f32PfPKffi");
  assert.equal(findSymbol(templ, symbols), "_Z8copy_vecI13__nv_bfloat16Li8ELb1EEvPT_PKS1_l");
  assert.equal(findSymbol(namespaced, symbols), "_ZN7kernels14square_inplaceEPf");
  assert.equal(findSymbol(externC, symbols), "fill_ones");
  // The symbol really is in the cubin's string table (what the driver's cuModuleGetFunction reads).
  const cubin = readFileSync(r.cubinPath).toString("latin1");
  for (const s of [findSymbol(plain, symbols), findSymbol(templ, symbols)])
    assert.ok(cubin.includes(`${s}\0`), s);
  assert.equal(r.kernels.find((k) => k.symbol === "_Z9scale_f32PfPKffi")!.arch, "sm_90");

  // A default template argument and an alias spelling (`half` for __half) still match.
  const viaAlias = resolveInstance(byName("copy_vec"), [], ["float", "0x8", "true"]);
  assert.equal(findSymbol(viaAlias, symbols), "_Z8copy_vecIfLi8ELb1EEvPT_PKS0_l");
  const missing = resolveInstance(byName("copy_vec"), [], ["double", "8"]);
  assert.throws(
    () => findSymbol(missing, symbols),
    /copy_vec<double, 8, false> is not among the compiled instances of copy_vec: copy_vec<__nv_bfloat16, 8, true>, copy_vec<float, 8, true>, copy_vec<float, 4, false>/,
  );
});

test("the cache: a hit for an unchanged kernel, a recompile after an included header changes", async () => {
  const nvcc = await resolveNvcc(undefined);
  const dir = tempDir("ckd-src-");
  const cacheDir = tempDir("ckd-cubin-");
  writeFileSync(join(dir, "factor.cuh"), "#pragma once\nconstexpr float kFactor = 2.0f;\n");
  writeFileSync(
    join(dir, "k.cu"),
    '#include "factor.cuh"\n__global__ void twice(float* x) { x[threadIdx.x] *= kFactor; }\n',
  );
  const harness = generateHarness(join(dir, "k.cu"), [
    resolveInstance(scanKernels(readFileSync(join(dir, "k.cu"), "utf8"))[0]!, []),
  ]);
  const req = { harness, nvcc, arch: "sm_90", flags: [], cwd: dir, cacheDir };

  const first = await compileCubin(req);
  const second = await compileCubin(req);
  assert.equal(first.cached, false);
  assert.equal(second.cached, true, "unchanged: no nvcc run");
  assert.equal(second.cubinPath, first.cubinPath);
  assert.deepEqual(second.kernels, first.kernels, "ptxas figures come back from the cache");

  writeFileSync(join(dir, "factor.cuh"), "#pragma once\nconstexpr float kFactor = 3.0f;\n");
  const third = await compileCubin(req);
  assert.equal(third.cached, false, "the header changed");
  assert.equal((await compileCubin(req)).cached, true);

  const flagged = await compileCubin({ ...req, flags: ["-DEXTRA=1"] });
  assert.equal(flagged.cached, false, "other flags, other key");
  const otherArch = await compileCubin({ ...req, arch: "sm_80" });
  assert.equal(otherArch.cached, false, "other architecture, other key");
  assert.notEqual(otherArch.cubinPath, first.cubinPath);
});

test("a compile error comes back as one clear CompileError with nvcc's log", async () => {
  const nvcc = await resolveNvcc(undefined);
  const dir = tempDir("ckd-src-");
  writeFileSync(join(dir, "bad.cu"), "__global__ void broken(float* x) { x[0] = undefined_name; }\n");
  const harness = generateHarness(join(dir, "bad.cu"), [
    resolveInstance(scanKernels(readFileSync(join(dir, "bad.cu"), "utf8"))[0]!, []),
  ]);
  await assert.rejects(
    compileCubin({
      harness,
      nvcc,
      arch: "sm_90",
      flags: [],
      cwd: dir,
      cacheDir: tempDir("ckd-cubin-"),
    }),
    (e: Error & { code?: string; log?: string }) => {
      assert.equal(e.code, "NVCC_FAILED");
      assert.match(e.message, /nvcc failed \(exit \d+\): .*identifier "undefined_name" is undefined/);
      assert.match(e.log ?? "", /bad\.cu\(1\)/);
      return true;
    },
  );
});

test("dependency files: continuations, escaped spaces", () => {
  assert.deepEqual(parseDepFile("out.cubin : a.cu \\\n  /x/my\\ dir/b.h \\\n  c.h\n"), [
    "a.cu",
    "/x/my dir/b.h",
    "c.h",
  ]);
});
