// The file's own launch checks (server/analysis/launches/ownChecks.ts), judged from where the check names
// are written, and the `uses:` dependency a relint marks stale (server/lint/dependencies.ts).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseSource } from "../../../server/lint/lintDocument";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { BUILTIN_CHECKS } from "../../../server/analysis/launches/launchChecks";
import { ownLaunchChecks } from "../../../server/analysis/launches/ownChecks";
import { MAX_BODY } from "../../../server/analysis/source/functionBodies";
import { staleUses, usesOf } from "../../../server/lint/dependencies";

async function own(text: string): Promise<string[]> {
  const idx = FileIndex.of({ tree: await parseSource(text), text });
  return [...ownLaunchChecks(idx, new Set(BUILTIN_CHECKS))].filter((c) => !BUILTIN_CHECKS.includes(c));
}

describe("the file's own launch checks", () => {
  it("a function or macro whose body reads the last error, through others too", async () => {
    const text = `static void ok(int line) { if (cudaPeekAtLastError() != cudaSuccess) abort(); }
namespace util { struct S { void check() const { ok(__LINE__); } }; }
#define CHECK_LAUNCH() util::S().check()
void after_all() { CHECK_LAUNCH(); }
`;
    assert.deepEqual((await own(text)).sort(), ["CHECK_LAUNCH", "after_all", "check", "ok"]);
  });
  it("not a launcher, a mention in a comment or string, nor a body over MAX_BODY characters", async () => {
    const text = `void launcher(float* y) { k<<<1, 32>>>(y); cudaGetLastError(); }
void talks() { // cudaGetLastError()
  puts("cudaGetLastError"); }
#define NOTE(x) x // cudaGetLastError
void big() { cudaGetLastError(); /*${" ".repeat(MAX_BODY)}*/ }
void names_launch() { /* k<<<1, 1>>>() */ report(cudaGetLastError()); }
`;
    assert.deepEqual(await own(text), ["names_launch"]);
  });
  it("not a function that launches through the file's functions or macros it calls", async () => {
    const text = `template <bool V> void square(float* y) { k<V><<<1, 32>>>(y); }
void dispatch(float* y, bool v) { if (v) square<true>(y); else square<false>(y); }
#define RUN(y) dispatch(y, true)
cudaError_t Norm(float* y) { dispatch(y, false); return cudaGetLastError(); }
cudaError_t NormMacro(float* y) { RUN(y); return cudaGetLastError(); }
void report(cudaError_t e) { if (e) abort(); }
void check() { report(cudaGetLastError()); }
`;
    assert.deepEqual(await own(text), ["check"]);
  });
  it("not a body whose only last-error calls discard the result (a reset), nor a constructor or destructor", async () => {
    const text = `void clear() { cudaGetLastError(); }
void clear_all() { if (bad) { (void)cudaPeekAtLastError(); } else ::cudaGetLastError(); }
#define RESET() do { cudaGetLastError(); } while (0)
void reads() { cudaGetLastError(); if (cudaGetLastError() != cudaSuccess) abort(); }
struct Guard {
  Guard() { if (cudaGetLastError() != cudaSuccess) abort(); }
  ~Guard() { report(cudaGetLastError()); }
  void check() const { report(cudaPeekAtLastError()); }
};
namespace gl { struct Tex { struct Map { Map(int); ~Map(); }; }; }
gl::Tex::Map::Map(int id) { if (cudaGetLastError() != cudaSuccess) abort(); }
gl::Tex::Map::~Map() { report(cudaGetLastError()); }
template <typename T> Buf<T>::Buf(int n) { if (cudaGetLastError() != cudaSuccess) abort(); }
`;
    assert.deepEqual((await own(text)).sort(), ["check", "reads"]);
  });
  it("a body followed through its calls depends on where each name called on the way is written", async () => {
    const text = `void square(float* y) { k<<<1, 32>>>(y); }
void dispatch(float* y) { square(y); }
cudaError_t Norm(float* y) { dispatch(y); return cudaGetLastError(); }
`;
    const idx = FileIndex.of({ tree: await parseSource(text), text });
    const deps = idx.deps.record(() => ownLaunchChecks(idx, new Set(BUILTIN_CHECKS)));
    for (const n of ["Norm", "dispatch", "square", "cudaGetLastError"]) assert.ok(deps.has(usesOf(n)), n);
  });
});

describe("uses: dependencies", () => {
  it("stale where the name is written as a whole word in an edited text", () => {
    const deps = [usesOf("launch"), usesOf("check"), "context:decls"];
    assert.deepEqual(staleUses(deps, ["void f() { launch_all(); }", "g(); check(x);"]), [usesOf("check")]);
  });
});
