// A relint runs over the whole file again only the rules that read a whole-file fact the edit changed
// (server/lint/incremental.ts, server/lint/dependencies.ts): the others keep their findings
// outside the edited definitions. Each case edits one definition that findings in another depend on;
// afterEdit asserts the findings equal a whole-file lint's.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { afterEdit } from "./editing";

const FIXTURES = join(__dirname, "..", "..", "fixtures", "rules");

const HOST = `
__global__ void k(float* x) { x[threadIdx.x] = 0.f; }

void launch(float* x) {
  k<<<1, 256, 60000>>>(x);
  cudaGetLastError();
}

void setup() {
  int unused = 0;
}
`;

test("an opt-in attribute added in another function clears a launch's shared-memory finding", async () => {
  const r = await afterEdit(
    HOST,
    "int unused = 0;",
    "cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 60000);",
    "shared-memory-limit",
  );
  assert.equal(r.was.length, 1);
  assert.equal(r.now.length, 0);
  // Only the rule that reads the opt-in runs over the whole file again.
  assert.equal(r.scope, "window");
  assert.deepEqual(r.wholeFileRules, ["shared-memory-limit"]);
});

const CONSTANT = `constexpr int kThreads = 256;

__global__ void k(float* x) { x[threadIdx.x] = 0.f; }

void launch(float* x) {
  k<<<1, kThreads>>>(x);
  cudaGetLastError();
}
`;

test("a constant's definition edited elsewhere changes a launch's block-size finding", async () => {
  const r = await afterEdit(CONSTANT, "= 256", "= 100", "block-size-not-warp-multiple");
  assert.equal(r.was.length, 0);
  assert.equal(r.now.length, 1);
  assert.equal(r.scope, "window");
  assert.deepEqual([...r.wholeFileRules].sort(), ["block-size-not-warp-multiple", "block-size-too-large"]);
});

test("a rule that reads a constant only through another rule's shared block sizes runs again too", async () => {
  // block-size-too-large never looks the constant up itself: the block sizes were computed (and the
  // constant read) while block-size-not-warp-multiple ran. The shared value passes the fact on.
  const r = await afterEdit(CONSTANT, "= 256", "= 2048", "block-size-too-large");
  assert.equal(r.was.length, 0);
  assert.equal(r.now.length, 1);
  assert.ok(r.wholeFileRules.includes("block-size-too-large"), r.wholeFileRules.join());
});

test("a file-scope __half turned into float clears operator findings in the kernels that use it", async () => {
  const text = `#include <cuda_fp16.h>
__device__ __half g;

__global__ void k(__half* y) { y[0] = g * g; }
`;
  const r = await afterEdit(text, "__device__ __half g;", "__device__ float g;", "half-operator");
  assert.equal(r.was.length, 1);
  assert.equal(r.now.length, 0);
  assert.ok(r.wholeFileRules.includes("half-operator"), r.wholeFileRules.join());
  assert.ok(!r.wholeFileRules.includes("deprecated-shuffle"));
});

const HALVES = `#include <cuda_fp16.h>
__global__ void k(__half* y, const __half* x) { y[0] = x[0] * x[1]; }

__global__ void m(__half* y, float v) { y[0] = v * 2.0f; }

int unused_slot;
`;

test("a file-scope __half added that nothing uses yet runs no half rule over the whole file again", async () => {
  for (const rule of ["half-operator", "half-implicit-conversion"]) {
    const r = await afterEdit(HALVES, "int unused_slot;", "__device__ __half g_scale;", rule);
    assert.equal(r.was.length, 1);
    assert.equal(r.now.length, 1);
    assert.equal(r.scope, "window");
    assert.deepEqual(r.wholeFileRules, []);
  }
});

test("a file-scope __half added whose name a kernel already writes runs the half rules again", async () => {
  const text = HALVES.replace("x[0] * x[1]", "x[0] * g_scale");
  const r = await afterEdit(text, "int unused_slot;", "__device__ __half g_scale;", "half-operator");
  // Before the declaration g_scale was unknown: x[0] * g_scale is an operator on a half either way.
  assert.equal(r.now.length, 1);
  assert.ok(r.wholeFileRules.includes("half-operator"), r.wholeFileRules.join());
  assert.ok(r.wholeFileRules.includes("half-implicit-conversion"), r.wholeFileRules.join());
});

test("a file-scope __half removed while a kernel still writes its name runs the half rules again", async () => {
  const text = HALVES.replace("x[0] * x[1]", "g_scale * g_scale").replace(
    "int unused_slot;",
    "__device__ __half g_scale;",
  );
  const r = await afterEdit(text, "__device__ __half g_scale;", "int unused_slot;", "half-operator");
  assert.equal(r.was.length, 1);
  assert.equal(r.now.length, 0);
  assert.ok(r.wholeFileRules.includes("half-operator"), r.wholeFileRules.join());
});

test("a launch outside any function is checked again when a check is added further down", async () => {
  // Its finding depends on the rest of the file (text past its own definition): any edit re-runs the rule.
  const text = `__global__ void k(int* p) { p[0] = 1; }
int launched = (k<<<1, 32>>>(nullptr), 0);

void later() {
  int unused = 0;
}
int main() { return 0; }
`;
  // A program (main): its launches are its own to check, so the rule reports the unchecked one.
  const r = await afterEdit(text, "int unused = 0;", "cudaGetLastError();", "missing-launch-check");
  assert.equal(r.was.length, 1);
  assert.equal(r.now.length, 0);
  assert.ok(r.wholeFileRules.includes("missing-launch-check"), r.wholeFileRules.join());
});

test("a file-scope extern __shared__ array changed to global memory (and back) relints the reductions", async () => {
  // The CUDA samples' clock kernel with its shared array moved to file scope.
  const fixture = readFileSync(
    join(FIXTURES, "shared-memory-reduction", "fires", "min_through_locals.cu"),
    "utf8",
  );
  const SHARED = "extern __shared__ float shared[];";
  const GLOBAL = "__device__ float shared[1024];";
  const text = `${SHARED}\n${fixture.replace(`  ${SHARED}\n`, "")}`;
  const cases = [
    [SHARED, GLOBAL, 1, 0],
    [GLOBAL, SHARED, 0, 1],
  ] as const;
  for (const [from, to, was, now] of cases) {
    const r = await afterEdit(text.replace(SHARED, from), from, to, "shared-memory-reduction");
    assert.deepEqual([r.was.length, r.now.length, r.scope], [was, now, "window"], `${from} -> ${to}`);
    assert.ok(r.wholeFileRules.includes("shared-memory-reduction"), r.wholeFileRules.join());
  }
});

test("an edit inside one kernel relints that kernel only and moves the findings below it", async () => {
  // Kernel a holds no maskless shuffle: the rule's one whole-file fact (does the file define a function
  // named __shfl_down? types/projectOverloads.ts) is read where that name is written, which is not there.
  const text = `__global__ void a(float* x) {
  x[threadIdx.x] = __shfl_down_sync(0xffffffffu, x[0], 1);
}

__global__ void b(float* x) {
  x[threadIdx.x] = __shfl_down(x[0], 1);
}
`;
  const r = await afterEdit(
    text,
    "x[threadIdx.x] = __shfl_down_sync",
    "\n\n  x[threadIdx.x] = __shfl_down_sync",
    "deprecated-shuffle",
  );
  assert.equal(r.scope, "window");
  assert.deepEqual(r.wholeFileRules, []);
  assert.deepEqual(
    r.was.map((f) => f.span.startLine),
    [5],
  );
  assert.deepEqual(
    r.now.map((f) => f.span.startLine),
    [7],
  );
});

test("an edit beside a maskless shuffle relints the rule over the whole file (the project may define the name)", async () => {
  const text = `__global__ void a(float* x) {
  x[threadIdx.x] = __shfl_down(x[0], 1);
}

__global__ void b(float* x) {
  x[threadIdx.x] = __shfl_down(x[0], 1);
}
`;
  const r = await afterEdit(
    text,
    "x[threadIdx.x] = __shfl",
    "\n\n  x[threadIdx.x] = __shfl",
    "deprecated-shuffle",
  );
  assert.equal(r.scope, "window");
  assert.deepEqual(r.wholeFileRules, ["deprecated-shuffle"]);
  assert.deepEqual(
    r.now.map((f) => f.span.startLine),
    [3, 7],
  );
});

const CALLERS = `
__global__ void k(float* x) { x[threadIdx.x] = 0.f; }

void launch(float* x) {
  k<<<1, 256>>>(x);
}

void run(float* x) {
  launch(x);
  after(x);
}

void after(float* x) {
  int unused = 0;
}

void other(float* y) {
  int unused2 = 0;
}

int main() { return 0; }
`;

test("a launch checked by its callers reads them through their names: an unrelated edit relints the window only", async () => {
  // launch's finding depends on where `launch` is called (run), and on where the check names are
  // written; `other` names neither.
  const r = await afterEdit(CALLERS, "int unused2 = 0;", "int unused2 = 1;", "missing-launch-check");
  assert.equal(r.was.length, 1);
  assert.equal(r.now.length, 1);
  assert.equal(r.scope, "window");
  assert.ok(!r.wholeFileRules.includes("missing-launch-check"), r.wholeFileRules.join());
});

test("a caller that adds a check after the call clears the launch's finding in another function", async () => {
  const r = await afterEdit(CALLERS, "after(x);", "after(x);\n  cudaGetLastError();", "missing-launch-check");
  assert.deepEqual([r.was.length, r.now.length], [1, 0]);
  assert.ok(r.wholeFileRules.includes("missing-launch-check"), r.wholeFileRules.join());
});

test("a function called after the launch's caller that starts checking clears the finding", async () => {
  // `after` becomes one of the file's own checks: its body now reads the last error (and acts on it: a
  // discarded `cudaGetLastError();` only resets it).
  const r = await afterEdit(
    CALLERS,
    "int unused = 0;",
    "if (cudaGetLastError() != cudaSuccess) abort();",
    "missing-launch-check",
  );
  assert.deepEqual([r.was.length, r.now.length], [1, 0]);
  assert.ok(r.wholeFileRules.includes("missing-launch-check"), r.wholeFileRules.join());
});
