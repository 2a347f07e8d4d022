// The types analysis on small snippets: alias scopes, template instantiations (explicit, launches,
// dispatch macros, templated launchers, deduced), project vector types, float-typed names; and the
// access shapes the scalar-access rule asks about.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseSource } from "../../../server/lint/lintDocument";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { codeOnly } from "../../../server/analysis/source/codeText";
import { aliasDefs } from "../../../server/analysis/types/aliasScopes";
import { declEnv } from "../../../server/analysis/types/declEnv";
import { functionTypeNames } from "../../../server/analysis/types/functionTypes";
import { alignedTypeNames } from "../../../server/analysis/types/vectorTypes";
import { floatNames } from "../../../server/analysis/types/floatNames";
import { FunctionLocals } from "../../../server/analysis/access/accessShape";

async function index(text: string): Promise<FileIndex> {
  return FileIndex.of({ tree: await parseSource(text), text });
}

/** What each template type parameter of the function named `fn` is instantiated with: "T=__half@7". */
async function instantiated(text: string, fn: string): Promise<string[]> {
  const idx = await index(text);
  const env = declEnv({
    tree: idx.root.tree,
    text,
    fileName: "/nowhere/x.cu",
    options: { launchCheckMacros: [] },
  });
  const f = idx.deviceFunctions().find((d) => d.node.text.includes(` ${fn}(`))!;
  const { names } = functionTypeNames(idx, env, f);
  return [...names].flatMap(([name, list]) =>
    list.map((t) => {
      const i = t.instantiation;
      const line = i ? text.slice(0, i.at).split("\n").length : 0;
      return `${name}=${i?.type ?? t.kind}${i?.via ? ` via ${i.via}` : ""}@${line}`;
    }),
  );
}

const KERNEL = "template <typename T>\n__global__ void k(T* x, int n) { x[threadIdx.x] = x[0]; }\n";

describe("alias scopes", () => {
  it("file and namespace aliases are file-level; function, struct and block ones are not", () => {
    const code = codeOnly(
      'typedef __half A;\nnamespace ns { using B = __half; }\nextern "C" { typedef __half C; }\n' +
        "void f() { using D = __half; }\nstruct S { using E = __half; };\n",
    );
    assert.deepEqual(
      aliasDefs(code).map((d) => `${d.name}:${d.fileLevel}`),
      ["A:true", "B:true", "C:true", "D:false", "E:false"],
    );
  });
});

describe("template instantiations", () => {
  it("an explicit instantiation and a launch give the type; a launcher's alias does not", async () => {
    assert.deepEqual(
      await instantiated(`${KERNEL}template __global__ void k<__half>(__half*, int);\n`, "k"),
      ["T=__half@3"],
    );
    assert.deepEqual(
      await instantiated(
        `${KERNEL}void go(float* p) { using T = __nv_bfloat16; k<float><<<1, 32>>>(p, 1); }\n`,
        "k",
      ),
      [],
    );
  });
  it("a template parameter hides a file-level alias of its name", async () => {
    const idx = await index(`typedef __half T;\n${KERNEL}`);
    const env = declEnv({
      tree: idx.root.tree,
      text: idx.text,
      fileName: "/nowhere/x.cu",
      options: { launchCheckMacros: [] },
    });
    const t = functionTypeNames(idx, env, idx.deviceFunctions()[0]!);
    assert.deepEqual([...t.hidden], ["T"]);
    assert.equal(t.names.size, 0);
  });
  it("AT_DISPATCH binds scalar_t to its types and the _AND2 arguments", async () => {
    const text =
      KERNEL.replaceAll("T", "scalar_t").replace("typename scalar_t", "typename scalar_t") +
      'void go(at::Tensor t) {\n  AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, t.scalar_type(), "k", [&] {\n    k<scalar_t><<<1, 32>>>(t.data_ptr<scalar_t>(), 1);\n  });\n}\n';
    assert.deepEqual(await instantiated(text, "k"), [
      "scalar_t=at::Half via AT_DISPATCH_FLOATING_TYPES_AND2@5",
    ]);
    const floats = text.replace("_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, ", "(");
    assert.deepEqual(await instantiated(floats.replace("FLOATING_TYPES_AND2", "FLOATING_TYPES"), "k"), []);
  });
  it("a project dispatch macro binds what its body's `using` says", async () => {
    const text =
      "#define DISPATCH_BF16(...) { using scalar_t = __nv_bfloat16; __VA_ARGS__(); }\n" +
      KERNEL +
      "void go(void* p) { DISPATCH_BF16([&] { k<scalar_t><<<1, 32>>>((scalar_t*)p, 1); }); }\n";
    assert.deepEqual(await instantiated(text, "k"), ["T=__nv_bfloat16 via DISPATCH_BF16@4"]);
  });
  it("a templated launcher passes on what it is instantiated with, also when deduced", async () => {
    const launcher = "template <typename U>\nvoid launch(U* p) { k<U><<<1, 32>>>(p, 1); }\n";
    assert.deepEqual(await instantiated(`${KERNEL}${launcher}void go(half* p) { launch<half>(p); }\n`, "k"), [
      "T=half@5",
    ]);
    assert.deepEqual(await instantiated(`${KERNEL}${launcher}template void launch(half* p);\n`, "k"), [
      "T=half@5",
    ]);
  });
});

describe("vector types and float names", () => {
  it("aligned structs are the project's vector types", () => {
    const code =
      "template <typename T, int N> struct alignas(sizeof(T) * N) AlignedArray { T data[N]; };\n" +
      "struct __align__(16) Vec8 { half v[8]; };\nstruct Plain { half v[8]; };\n";
    assert.deepEqual(alignedTypeNames(code), ["AlignedArray", "Vec8"]);
  });
  it("float and double locals and parameters, not pointers or names declared twice", async () => {
    const idx = await index(
      "__global__ void f(float a, float* p, double d) { float x1 = a, c; const float s = 1.0f; int c2; { int s2; } float s2; }\n",
    );
    const fn = idx.functionSpanAt(20)!;
    assert.deepEqual([...floatNames(idx, fn)].sort(), ["a", "c", "d", "s", "x1"]);
  });
});

describe("access shapes", () => {
  async function shapes(body: string): Promise<string[]> {
    const idx = await index(
      `__global__ void f(half* x, half* y, const int* perm, const half* s, int n, int g) {\n${body}\n}\n`,
    );
    const f = idx.deviceFunctions()[0]!;
    const locals = new FunctionLocals(idx.root, codeOnly(idx.text).slice(f.start, f.end), f.start);
    return f.body.descendantsOfType("subscript_expression").map((n) => {
      const shape = locals.shape(n);
      return `${n.text}:${shape === "other" && locals.contiguousAt(n) ? "contiguous" : shape}`;
    });
  }
  it("gathers, broadcasts and the thread's own element", async () => {
    assert.deepEqual(
      await shapes(
        "int i = blockIdx.x * blockDim.x + threadIdx.x;\nconst int t = perm[0];\ny[i] = x[perm[i]];\ny[i] = x[t * n + i];\ny[i] = s[i / g];\ny[i] = s[blockIdx.y];\ny[i * 4] = x[i];",
      ),
      [
        "perm[0]:fixed",
        "y[i]:contiguous",
        "x[perm[i]]:gather",
        "perm[i]:contiguous",
        "y[i]:contiguous",
        "x[t * n + i]:gather",
        "y[i]:contiguous",
        "s[i / g]:broadcast",
        "y[i]:contiguous",
        "s[blockIdx.y]:broadcast",
        "y[i * 4]:other",
        "x[i]:contiguous",
      ],
    );
  });
});
