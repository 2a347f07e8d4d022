// The preprocessor analysis: #if conditions evaluated in three-valued logic (condition.ts), what a CUDA
// build knows of HIP switches (macroEnv.ts), and the arms a pass compiles given the file's and its
// project headers' #defines (preprocess.ts, through the lint's dead-code filter).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { tempDir } from "../../support/tempDir";
import { join } from "node:path";
import {
  evaluate,
  holds,
  type MacroInfo,
  type MacroLookup,
} from "../../../server/analysis/preprocessor/condition";
import { toolkitFloor } from "../../../server/analysis/preprocessor/toolkitVersion";
import { isHipSwitchName, type MacroEnv, type Pass } from "../../../server/analysis/preprocessor/macroEnv";
import { deadArms } from "../../../server/analysis/preprocessor/preprocess";
import { directiveLines } from "../../../server/analysis/preprocessor/directiveLines";
import { clearHeaderCache } from "../../../server/analysis/preprocessor/projectHeaders";
import { rocmOnly } from "../../../server/analysis/preprocessor/rocmOnly";
import { codeOnly } from "../../../server/analysis/source/codeText";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { parseSource } from "../../../server/lint/lintDocument";
import { HIP_MACROS } from "../../../server/lint/buildContext";
import { lintSource } from "../../../server/lint/lintDocument";
import { rules } from "../../../server/rules/index";

/** A lookup from a table: a string is an object-like body, null undefined, "fn" function-like. */
function macros(table: Record<string, string | null>): (name: string) => MacroInfo {
  return (name) => {
    if (!(name in table)) return { defined: undefined };
    const v = table[name]!;
    if (v === null) return { defined: false };
    return v === "fn()" ? { defined: true, functionLike: true } : { defined: true, body: v };
  };
}

describe("condition: #if expressions in three-valued logic", () => {
  const none = macros({});
  it("integers, precedence, comparisons, arithmetic and ?:", () => {
    assert.equal(evaluate("1 + 2 * 3 == 7", none), 1);
    assert.equal(evaluate("(1 << 4) | 0x3", none), 19);
    assert.equal(evaluate("10 / 3 - 7 % 4 >= 0", none), 1);
    assert.equal(evaluate("-1 < 0 && ~0 == -1", none), 1);
    assert.equal(evaluate("1 ? 20 : 30", none), 20);
    assert.equal(evaluate("11080ULL >= 9000", none), 1);
  });
  it("defined with and without parentheses; an undefined name reads as 0", () => {
    const m = macros({ A: "", B: null });
    assert.equal(evaluate("defined(A) && !defined B", m), 1);
    assert.equal(evaluate("B == 0", m), 1);
  });
  it("unknown stays unknown unless && or || decide without it", () => {
    assert.equal(evaluate("X", none), undefined);
    assert.equal(evaluate("X == 1", none), undefined);
    assert.equal(evaluate("X || 1", none), 1);
    assert.equal(evaluate("0 && X", none), 0);
    assert.equal(evaluate("defined(X)", none), undefined);
    assert.equal(evaluate("X ? 1 : 1", none), 1);
    assert.equal(evaluate("1 / 0", none), undefined);
  });
  it("object-like macros expand token by token, nested and never into themselves", () => {
    const m = macros({ A: "B + 1", B: "2", TWO_A: "A * 2", SELF: "SELF + 1", P: "defined(Q)", Q: null });
    assert.equal(evaluate("A == 3", m), 1);
    // textual: B + 1 * 2
    assert.equal(evaluate("TWO_A", m), 4);
    assert.equal(evaluate("SELF", m), undefined);
    assert.equal(evaluate("P", m), 0);
  });
  it("a lower bound settles the comparisons it decides and no others", () => {
    const v: MacroLookup = (name) =>
      name === "V" ? { defined: true, atLeast: 11080 } : { defined: undefined };
    assert.equal(holds("V >= 9000", v), true);
    assert.equal(holds("V < 9000 || V == 8000", v), false);
    assert.equal(holds("V / 1000 >= 11 && V * 2 > 20000 && V + 0 != 1", v), true);
    assert.equal(holds("V", v), true);
    assert.equal(holds("!V", v), false);
    assert.equal(holds("9000 <= V", v), true);
    for (const unknown of [
      "V >= 12080",
      "V == 12000",
      "V < 13000",
      "20000 - V > 0",
      "V % 1000 == 80",
      "-V < 0",
    ])
      assert.equal(holds(unknown, v), undefined, unknown);
    assert.equal(evaluate("V", v), undefined);
  });
  it("function-like macro calls, unbalanced text and strings are unknown", () => {
    const m = macros({ F: "fn()" });
    assert.equal(evaluate("F(1)", m), undefined);
    assert.equal(evaluate("F(1) || 1", m), 1);
    assert.equal(evaluate("(1", none), undefined);
    assert.equal(evaluate('"a" == 1', none), undefined);
    assert.equal(evaluate("__has_include(<cuda_fp16.h>)", none), undefined);
  });
});

describe("macroEnv: HIP switches by name", () => {
  it("names that say HIP, ROCm or AMD", () => {
    for (const n of [
      "USE_ROCM",
      "MYLIB_WITH_HIP",
      "GGML_USE_HIPBLAS",
      "__HIP_PLATFORM_AMD__",
      "__HIPCC__",
      "IS_AMD",
    ])
      assert.equal(isHipSwitchName(n), true, n);
  });
  it("not HIP on NVIDIA, x86-64's AMD64, or a word that merely contains the letters", () => {
    for (const n of [
      "__HIP_PLATFORM_NVIDIA__",
      "CUDA_OR_HIP",
      "_M_AMD64",
      "__amd64__",
      "SHIP_IT",
      "CHIP_COUNT",
    ])
      assert.equal(isHipSwitchName(n), false, n);
  });
});

const CUDA_BUILD: MacroEnv = { defines: new Map(), undefines: new Set(HIP_MACROS) };
const ROCM_BUILD: MacroEnv = {
  defines: new Map([
    ["USE_ROCM", "1"],
    ["__HIP_PLATFORM_AMD__", "1"],
  ]),
  undefines: new Set(),
};

/** Is the line holding `MARK` in an arm no pass compiles? */
function markDead(text: string, opts: { passes?: Pass[]; env?: MacroEnv } = {}): boolean {
  const at = text.indexOf("MARK");
  const arms = deadArms(
    directiveLines(text, codeOnly(text)),
    opts.passes ?? ["host", 750, 900],
    opts.env ?? CUDA_BUILD,
    undefined,
    text.length,
  );
  return arms.some(([a, b]) => at >= a && at < b);
}

describe("preprocess: arms under the file's own #defines", () => {
  it("a switch defined to 0 before the #if; not one defined after it", () => {
    assert.equal(markDead("#define DEBUG_PRINT 0\n#if DEBUG_PRINT == 1\nMARK\n#endif\n"), true);
    assert.equal(markDead("#if DEBUG_PRINT == 1\nMARK\n#endif\n#define DEBUG_PRINT 0\n"), false);
    assert.equal(markDead("#define DEBUG_PRINT 1\n#if DEBUG_PRINT == 1\nMARK\n#endif\n"), false);
  });
  it("#else and #elif arms after a taken one; #undef", () => {
    assert.equal(markDead("#define V 2\n#if V >= 2\nx\n#elif V == 1\nMARK\n#endif\n"), true);
    assert.equal(markDead("#define V 2\n#if V == 1\nx\n#else\nMARK\n#endif\n"), false);
    assert.equal(markDead("#define FAST 1\n#undef FAST\n#ifdef FAST\nMARK\n#endif\n"), true);
  });
  it("a define under an unknown condition leaves its macro unknown", () => {
    assert.equal(markDead("#if SOMETHING\n#define V 0\n#endif\n#if V\nMARK\n#endif\n"), false);
  });
  it("a define the platform decides: HIP's arm off in a CUDA build, on in a ROCm build", () => {
    const src =
      "#if defined(__HIP_PLATFORM_AMD__)\n#define LANES 64\n#else\n#define LANES 32\n#endif\n#if LANES == 64\nMARK\n#endif\n";
    assert.equal(markDead(src), true);
    assert.equal(markDead(src, { env: ROCM_BUILD }), false);
  });
  it("a macro defined only under HIP's conditions is a HIP switch", () => {
    const src = "#ifdef __HIPCC__\n#define WIDE_WAVES 1\n#endif\n#ifdef WIDE_WAVES\nMARK\n#endif\n";
    assert.equal(markDead(src), true);
    // defined only under some other condition: unknown
    assert.equal(markDead(src.replace("__HIPCC__", "BIG_GPU")), false);
  });
  it("a compat define of HIP's macro, tested with #if", () => {
    assert.equal(markDead("#define ON_AMD defined(__HIP_PLATFORM_AMD__)\n#if ON_AMD\nMARK\n#endif\n"), true);
    assert.equal(
      markDead("#define ON_AMD defined(__HIP_PLATFORM_AMD__)\n#if !ON_AMD\nMARK\n#endif\n"),
      false,
    );
  });
  it("project HIP switches by name, in a CUDA build only", () => {
    assert.equal(markDead("#if defined(USE_HIP) || defined(MYLIB_ROCM)\nMARK\n#endif\n"), true);
    assert.equal(markDead("#ifndef MYLIB_WITH_HIP\nMARK\n#endif\n"), false);
    assert.equal(markDead("#ifdef MYLIB_WITH_HIP\nMARK\n#endif\n", { env: ROCM_BUILD }), false);
  });
  it("CUB_USE_COOPERATIVE_GROUPS is defined in a CUDA build, even when a header's unknown #if defines it", () => {
    assert.equal(markDead("#ifdef CUB_USE_COOPERATIVE_GROUPS\nx\n#else\nMARK\n#endif\n"), true);
    const vendored = "#if __CUDACC_VER_MAJOR__ >= 9\n#define CUB_USE_COOPERATIVE_GROUPS\n#endif\n";
    assert.equal(markDead(`${vendored}#ifdef CUB_USE_COOPERATIVE_GROUPS\nx\n#else\nMARK\n#endif\n`), true);
  });
  it("a define under an arch arm counts per pass", () => {
    const src =
      "#if __CUDA_ARCH__ >= 800\n#define HAS_BF16 1\n#else\n#define HAS_BF16 0\n#endif\n#if HAS_BF16\nMARK\n#endif\n";
    assert.equal(markDead(src, { passes: ["host", 750] }), true);
    assert.equal(markDead(src, { passes: ["host", 750, 900] }), false);
  });
  it("an include guard is read as the first inclusion; a default value stays unknown", () => {
    assert.equal(
      markDead("#ifndef K_CUH\n#define K_CUH\n#define DBG 0\n#if DBG\nMARK\n#endif\n#endif\n"),
      true,
    );
    assert.equal(markDead("#ifndef DBG\n#define DBG 0\n#endif\n#if DBG\nMARK\n#endif\n"), false);
  });
  it("the build's -D beats nothing but the file's own #define", () => {
    const env: MacroEnv = { defines: new Map([["DBG", "1"]]), undefines: new Set(HIP_MACROS) };
    assert.equal(markDead("#if DBG\nMARK\n#endif\n", { env }), false);
    assert.equal(markDead("#undef DBG\n#define DBG 0\n#if DBG\nMARK\n#endif\n", { env }), true);
  });
  it("the toolkit's version macros are at least the floor the targets need, never one value", () => {
    assert.deepEqual([[], [75], [75, 90], [80, 86], [100], [61]].map(toolkitFloor), [
      10000,
      10000,
      11080,
      11010,
      11080,
      undefined,
    ]);
    const at = (floor: number | undefined): MacroEnv => ({ ...CUDA_BUILD, toolkitFloor: floor });
    const old = "#if CUDA_VERSION >= 9000\nx\n#else\nMARK\n#endif\n";
    assert.equal(markDead(old, { env: at(10000) }), true);
    assert.equal(markDead("#if __CUDACC_VER_MAJOR__ < 9\nMARK\n#endif\n", { env: at(10000) }), true);
    assert.equal(markDead("#if CUDA_VERSION >= 12080\nx\n#else\nMARK\n#endif\n", { env: at(11080) }), false);
    assert.equal(markDead(old), false);
    assert.equal(markDead(old, { env: at(undefined) }), false);
    // the build's -D and the file's own #define come first
    const defined = { ...at(10000), defines: new Map([["CUDA_VERSION", "8000"]]) };
    assert.equal(markDead(old, { env: defined }), false);
    assert.equal(markDead("#define CUDA_VERSION 8000\n" + old, { env: at(10000) }), false);
  });
  it("a commented-out directive is not read", () => {
    assert.equal(markDead("/*\n#if 0\n*/\nMARK\n/* #endif */\n"), false);
  });
});

describe("preprocess: project headers' #defines through the lint", () => {
  const SHUFFLE = `#include "compat.h"
__global__ void k(float* x) {
  float v = x[threadIdx.x];
#if WIDE_WAVES
  v += __shfl_down(v, 32);
#endif
#if SHUFFLE_DEBUG
  v += __shfl_xor(v, 1);
#endif
  x[threadIdx.x] = v;
}
`;
  async function shuffleLines(header: string, fileName: string): Promise<number[]> {
    const found = await lintSource(SHUFFLE, { rules, fileName });
    return found.filter((f) => f.rule === "deprecated-shuffle").map((f) => f.span.startLine);
  }
  it("a header's HIP-only and zero switches turn the arms off; without the header both are linted", async () => {
    const root = tempDir("ckd-pre-");
    writeFileSync(
      join(root, "compat.h"),
      "#ifndef COMPAT_H\n#define COMPAT_H\n#if defined(__HIP_PLATFORM_AMD__)\n#define WIDE_WAVES 1\n#endif\n#define SHUFFLE_DEBUG 0\n#endif\n",
    );
    clearHeaderCache();
    assert.deepEqual(await shuffleLines("compat.h", join(root, "k.cu")), []);
    assert.deepEqual(await shuffleLines("compat.h", join(root, "missing", "k.cu")), [4, 7]);
  });
  it("a header's switch set to 1 keeps its arm", async () => {
    const root = tempDir("ckd-pre-");
    writeFileSync(join(root, "compat.h"), "#pragma once\n#define SHUFFLE_DEBUG 1\n");
    clearHeaderCache();
    assert.deepEqual(await shuffleLines("compat.h", join(root, "k.cu")), [4, 7]);
  });
});

describe("rocmOnly: a file that includes a header only ROCm ships", () => {
  async function rocm(text: string): Promise<boolean> {
    const tree = await parseSource(text);
    try {
      return rocmOnly(FileIndex.begin(tree, text));
    } finally {
      tree.delete();
    }
  }
  it("an include outside every arm, or inside the include guard, makes the file HIP code", async () => {
    assert.equal(await rocm("#pragma once\n#include <ck_tile/core.hpp>\n"), true);
    assert.equal(await rocm('#include "ck/ck.hpp"\n'), true);
    assert.equal(await rocm("#ifndef K_H\n#define K_H\n#include <rocprim/rocprim.hpp>\n#endif\n"), true);
    assert.equal(await rocm("#include <hip/hip_runtime.h>\n"), true);
  });
  it("an include under a condition, in a comment, or of a port HIP has for NVIDIA too does not", async () => {
    assert.equal(await rocm("#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#endif\n"), false);
    assert.equal(await rocm("#if 1\n#include <ck_tile/core.hpp>\n#else\n#endif\n"), false);
    assert.equal(
      await rocm(
        "#ifndef K_H\n#define K_H\n#ifdef USE_ROCM\n#include <rocwmma/rocwmma.hpp>\n#endif\n#endif\n",
      ),
      false,
    );
    assert.equal(await rocm("/*\n#include <ck_tile/core.hpp>\n*/\n"), false);
    assert.equal(await rocm("#include <hipcub/hipcub.hpp>\n#include <cuda_runtime.h>\n"), false);
    assert.equal(await rocm('#include "rocket/engine.h"\n'), false);
  });
});
