// The shared analyses behind the rules, on small snippets: preprocessor arch guards, lint-time
// constants, and declarator parsing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseSource } from "../../../server/lint/lintDocument";
import { archOffRanges, hasBf16Guard, inRanges } from "../../../server/analysis/preprocessor/archGuard";
import { Constants } from "../../../server/analysis/constants/constEval";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { parseDeclarators } from "../../../server/analysis/types/halfTypes";
import { sitesIn, sitesOfNames } from "../../../server/analysis/constants/constSites";
import { findLaunches } from "../../../server/analysis/launches/launches";
import { envLines } from "../../../server/analysis/types/declEnv";

async function index(text: string): Promise<FileIndex> {
  return FileIndex.of({ tree: await parseSource(text), text });
}

/** Is the first `MARK` compiled for none of the given targets? */
async function guarded(text: string, targets: number[]): Promise<boolean> {
  const idx = await index(text);
  return inRanges(text.indexOf("MARK"), archOffRanges(idx, targets));
}

describe("arch guards", () => {
  it("an #if __CUDA_ARCH__ >= 800 body is off for sm_75 but not for sm_80", async () => {
    const src = "void f() {\n#if __CUDA_ARCH__ >= 800\n  MARK();\n#endif\n}\n";
    assert.equal(await guarded(src, [75]), true);
    assert.equal(await guarded(src, [75, 80]), false);
  });
  it("the host-or-Ampere form guards; the inverted test and #ifdef __CUDA_ARCH__ do not", async () => {
    assert.equal(
      await guarded("#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800\nint MARK;\n#endif\n", [75]),
      true,
    );
    assert.equal(await guarded("#if __CUDA_ARCH__ < 800\nint MARK;\n#endif\n", [75]), false);
    assert.equal(await guarded("#ifdef __CUDA_ARCH__\nint MARK;\n#endif\n", [75]), false);
  });
  it("the #else of a low-arch test guards; an unknown macro does not", async () => {
    assert.equal(
      await guarded(
        "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\nint x;\n#else\nint MARK;\n#endif\n",
        [75],
      ),
      true,
    );
    assert.equal(await guarded("#if HAS_BF16\nint MARK;\n#endif\n", [75]), false);
    assert.equal(
      await guarded("#if __CUDA_ARCH__ >= 800 || defined(FORCE)\nint MARK;\n#endif\n", [75]),
      false,
    );
  });
  it("an #elif after a taken low-arch arm is off", async () => {
    const src = "#if __CUDA_ARCH__ < 800\nint x;\n#elif __CUDA_ARCH__ >= 900\nint MARK;\n#endif\n";
    assert.equal(await guarded(src, [75]), true);
  });
  it("hasBf16Guard sees only conditions that split sm_75 from sm_80", async () => {
    assert.equal(hasBf16Guard(await index("#if __CUDA_ARCH__ >= 800\n#endif\n")), true);
    assert.equal(hasBf16Guard(await index("#if __CUDA_ARCH__ >= 700\n#endif\n")), false);
  });
});

describe("lint-time constants", () => {
  async function valueOf(text: string, name: string): Promise<number | undefined> {
    return Constants.of(await index(text)).valueOfName(name);
  }
  it("follows #define, constexpr and arithmetic through names", async () => {
    assert.equal(await valueOf("#define WARPS 8\nconstexpr int kBlock = WARPS * 32;\n", "kBlock"), 256);
    assert.equal(await valueOf("#define SMEM (48 << 10)\n", "SMEM"), 49152);
    assert.equal(await valueOf("constexpr size_t kBytes = 1024 * sizeof(float);\n", "kBytes"), 4096);
  });
  it("a dim3 counts all its threads, also in the `dim3 b(k)` form that parses as a declaration", async () => {
    assert.equal(await valueOf("void f() { dim3 block(16, 8, 2); }\n", "block"), 256);
    assert.equal(await valueOf("constexpr int k = 64;\nvoid f() { dim3 block(k); }\n", "block"), 64);
  });
  it("a local that is assigned again, or two different definitions, is unknown", async () => {
    assert.equal(await valueOf("void f(int n) { int t = 256; t = n; }\n", "t"), undefined);
    assert.equal(await valueOf("void f(int n) { int t = 256; ++t; }\n", "t"), undefined);
    assert.equal(
      await valueOf("void f() { const int t = 128; }\nvoid g() { const int t = 256; }\n", "t"),
      undefined,
    );
    assert.equal(
      await valueOf("void f() { const int t = 128; }\nvoid g() { const int t = 128; }\n", "t"),
      128,
    );
  });
  it("a definition in a comment binds nothing; one after a block comment's end does", async () => {
    assert.equal(await valueOf("// kB = 512\nconstexpr int kB = 256; // kB = 128\n", "kB"), 256);
    assert.equal(await valueOf("/*\n // */ constexpr int kB = 64;\n", "kB"), 64);
    assert.equal(await valueOf("/* // */ constexpr int kB = 32;\n", "kB"), 32);
    assert.equal(await valueOf('const char* s = "//"; constexpr int kB = 96;\n', "kB"), 96);
  });
  it("does not loop on self-reference", async () => {
    assert.equal(await valueOf("#define A (B + 1)\n#define B (A + 1)\n", "A"), undefined);
  });
});

describe("launch arguments from the text", () => {
  async function texts(launch: string): Promise<readonly (string | undefined)[] | undefined> {
    const [l] = findLaunches(await index(`void f() { k${launch}(x); }\n`));
    return l!.texts;
  }
  it("each argument that is a plain name or integer, also beside ones that are not", async () => {
    assert.deepEqual(await texts("<<<rows, kBlock, 0, stream>>>"), ["rows", "kBlock", "0", "stream"]);
    assert.deepEqual(await texts("<<<(n + 255) / 256, 256>>>"), [undefined, "256"]);
    assert.deepEqual(await texts("<<<dim3(a, b), 128>>>"), [undefined, "128"]);
    assert.deepEqual(await texts("<<<n, dim3(a, b)>>>"), ["n", undefined]);
  });
  it("none where the commas cannot be told for sure: a comment, a template, no plain argument", async () => {
    assert.equal(await texts("<<<n /* rows */, 256>>>"), undefined);
    assert.equal(await texts("<<<cdiv<int, 4>(n), 256>>>"), undefined);
    assert.equal(await texts("<<<n * 2, m + 1>>>"), undefined);
  });
  it("a call's function name where an argument is one call and nothing else, and not a keyword", async () => {
    const [l] = findLaunches(
      await index("void f() { k<<<grid, threads_for(n), sizeof(T), g(a) + h(b), 0>>>(x); }\n"),
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => l!.callee(i)),
      [undefined, "threads_for", undefined, undefined, undefined],
    );
    assert.equal(l!.argText(3), "g(a) + h(b)");
  });
});

describe("constant sites", () => {
  it("one scan for several names finds what one scan per name finds", () => {
    const text = "#define BLOCK 256\nint block = BLOCK; block += 1; blockIdx.x; kBlock(block); f(BLOCK);\n";
    const names = ["block", "BLOCK", "kBlock", "missing"];
    const all = sitesOfNames(text, names);
    for (const n of names) assert.deepEqual(all.get(n), sitesIn(text, n), n);
    assert.deepEqual(all.get("block"), [text.indexOf("block ="), text.indexOf("block +=")]);
  });
});

describe("whole words in the file index", () => {
  it("are the offsets a \\bword\\b scan finds, in the window or any range", async () => {
    const text = "__shared__ int a; x__shared__ __shared___ (__shared__)\n__shared__";
    const idx = await index(text);
    const scan = (from: number, to: number) =>
      [...text.matchAll(/\b__shared__\b/g)].map((m) => m.index).filter((i) => i >= from && i < to);
    assert.deepEqual(idx.words("__shared__"), scan(0, text.length));
    assert.deepEqual(idx.words("__shared__").length, 3);
    for (let from = 0; from <= text.length; from += 7)
      for (let to = from; to <= text.length; to += 5)
        assert.deepEqual(idx.wordsIn("__shared__", from, to), scan(from, to), `${from}-${to}`);
  });
});

describe("environment lines", () => {
  it("are the matches of the one regex over macro, include and alias lines, overlaps included", () => {
    const one = /#[ \t]*(?:define|include)\b(?:[^\n]*\\\r?\n)*[^\n]*|\b(?:typedef|using)\b[^;{}]*;/g;
    for (const text of [
      "#include <a.h>\n# define X(a) \\\r\n  a + typedef\ntypedef int T; using U = T;\n",
      // an alias spanning a macro line, a macro line holding an alias, an alias cut short by `{`
      "typedef int\n#define X 1\nfoo;\n#define Y typedef int z;\nusing V { typedef W w; x#include q",
      "xtypedef a; typedef_ b; using; #defines #define",
    ])
      assert.deepEqual(
        envLines(text),
        [...text.matchAll(one)].map((m) => m[0]),
        text,
      );
  });
});

describe("declarator parsing", () => {
  it("reads names, pointer depth and arrays after the type", () => {
    assert.deepEqual(parseDeclarators("* __restrict__ x"), [{ name: "x", indirection: 1, array: false }]);
    assert.deepEqual(parseDeclarators(" *y = in + f(a, b), z[8], w"), [
      { name: "y", indirection: 1, array: false },
      { name: "z", indirection: 1, array: true },
      { name: "w", indirection: 0, array: false },
    ]);
    assert.deepEqual(parseDeclarators(" const* const p"), [{ name: "p", indirection: 1, array: false }]);
  });
});
