// The uniformity analysis (server/analysis/uniformity/uniformity.ts): which conditions differ between the threads
// of a block, which barriers wait for the whole block, and the exits that leave before a barrier.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lintSource, parseSource } from "../../../server/lint/lintDocument";
import { syncthreadsInDivergentBranch } from "../../../server/rules/syncthreads-in-divergent-branch";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { Uniformity } from "../../../server/analysis/uniformity/uniformity";
import { surelyRuntime } from "../../../server/analysis/uniformity/uniformityConst";

import { conditions, kernel } from "./uniformityHelpers";

describe("uniformity: values", () => {
  it("threadIdx, lane and warp ids, shuffles, votes and atomics vary; what flows from them varies", async () => {
    const got = await conditions(
      kernel(`
  int tid = threadIdx.x; int lane = tid % 32; int warp = tid / 32;
  float v = in[tid];
  float w = __shfl_sync(0xffffffff, v, 0);
  unsigned b = __ballot_sync(0xffffffff, v > 0);
  int slot = atomicAdd((int*)in, 1);
  if (lane == 0) __syncthreads();
  if (warp < 2) __syncthreads();
  if (v > 0) __syncthreads();
  if (w > 0) __syncthreads();
  if (b) __syncthreads();
  if (slot == 0) __syncthreads();
  if (cg::this_thread_block().thread_rank() == 0) __syncthreads();`),
    );
    assert.deepEqual(
      got.map((g) => g.split(": ")[1]),
      Array(7).fill("varying"),
      got.join("\n"),
    );
  });

  it("parameters, template parameters, constants, blockIdx and uniform loop counters are uniform", async () => {
    const got = await conditions(
      kernel(`
  const int row = blockIdx.x * 4 + blockIdx.y;
  constexpr int K = sizeof(float) * N;
  for (int i = 0; i < p.count; ++i) __syncthreads();
  for (int i = N; i > 1; i /= 2) __syncthreads();
  if (row < n && K > 2 && gridDim.y > 1) __syncthreads();
  int total = 0;
  for (int j = 0; j < n; j++) total += j;
  if (total > 3) __syncthreads();
  if (__syncthreads_or(in[threadIdx.x] > 0)) __syncthreads();`),
    );
    assert.ok(
      got.every((g) => g.endsWith("uniform")),
      got.join("\n"),
    );
    assert.equal(got.length, 5);
  });

  it("names are resolved through scopes: another loop's `i` does not leak", async () => {
    const got = await conditions(
      kernel(`
  for (int i = threadIdx.x; i < n; i += blockDim.x) {}
  for (int i = 0; i < n; ++i) __syncthreads();`),
    );
    assert.deepEqual(got, ["i < n: uniform"]);
  });

  it("assignments under a thread-dependent condition vary; shared memory read after a barrier does not", async () => {
    const got = await conditions(
      kernel(`
  __shared__ int flag;
  int mine = 0;
  if (threadIdx.x == 0) { flag = 1; mine = 1; }
  __syncthreads();
  if (flag) __syncthreads();
  if (mine) __syncthreads();
  float acc[4];
  acc[threadIdx.x % 4] = 1.0f;
  if (acc[0] > 0) __syncthreads();
  float* out = (float*)in;
  out[threadIdx.x] = 2.0f;
  if (out[0] > 0) __syncthreads();`),
    );
    assert.deepEqual(got, ["flag: uniform", "mine: varying", "acc[0] > 0: varying", "out[0] > 0: uniform"]);
  });
});

describe("uniformity: functions, parse quirks and barriers", () => {
  it("a __device__ function's parameters are uniform unless named like a thread id", async () => {
    const got = await conditions(
      `__device__ void f(int n, int lane) {\n  if (n > 0) __syncthreads();\n  if (lane == 0) __syncthreads();\n}`,
    );
    assert.deepEqual(got, ["n > 0: uniform", "lane == 0: varying"]);
  });

  it("`i < size<3>(t)` (parsed as a template call) compares i with the call", async () => {
    const got = await conditions(
      kernel(`
  auto t = partition(in, threadIdx.x);
  for (int k = 0; k < size<3>(t); ++k) __syncthreads();`),
    );
    assert.deepEqual(got, ["k < size<3>(t): uniform"]);
  });

  it("classifies barriers: __syncthreads and block groups wait for the block, tiles and __syncwarp for a warp", async () => {
    const src = kernel(`
  cg::thread_block cta = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(cta);
  cg::sync(cta); cta.sync(); cg::this_thread_block().sync(); tile.sync(); __syncwarp(); __syncthreads_count(1);
  if (threadIdx.x >= n) return;
  __syncthreads();`);
    const idx = FileIndex.begin(await parseSource(src), src);
    const u = Uniformity.of(idx, idx.deviceFunctions()[0]!);
    assert.deepEqual(
      u.barriers.map((b) => b.level),
      ["block", "block", "block", "warp", "warp", "block", "block"],
    );
    assert.deepEqual(
      u.exits.map((e) => `${e.kind}: ${u.firstVarying(e.controls)?.cond.text}`),
      ["return: (threadIdx.x >= n)"],
    );
  });
});

describe("uniformity: trip counts", () => {
  it("a thread-offset loop with a compile-time bound and stride is uniform; a run-time bound or stride varies", async () => {
    const got = await conditions(
      `#define step_size 64
enum { rows = 8 };
template <typename Traits, int BS, int block> __global__ void k(P params, int n) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned c = blockIdx.x * 32 + lane;
  constexpr unsigned COL_STRIDE = Traits::CTAS * 32;
  const int wide = 2 * BS;
  for (unsigned col = c, out = c / 2; col < Traits::COLS; col += COL_STRIDE, out += COL_STRIDE / 2) __syncthreads();
  for (int r = threadIdx.x; r < rows * sizeof(float); r += static_cast<int>(wide)) __syncthreads();
  for (int s = lane; s < block; s += step_size) __syncthreads();
  for (int a = c; a < n; a += COL_STRIDE) __syncthreads();
  for (int b = c; b < Traits::COLS; b += blockDim.x) __syncthreads();
  for (int d = params.start[lane]; d < BS; d += 32) __syncthreads();
  const int runtime = n * 2;
  for (int e = lane; e < runtime; e++) __syncthreads();
}`,
    );
    assert.deepEqual(got, [
      "col < Traits::COLS: uniform",
      "r < rows * sizeof(float): uniform",
      "s < block: uniform",
      "a < n: varying",
      "b < Traits::COLS: varying",
      "d < BS: varying",
      "e < runtime: varying",
    ]);
  });
});

// The analysis reads only what it is asked about: a loop's trip count when asked (with the names of the
// loop's place), a function for its barriers only until each barrier's finding is settled.
describe("uniformity: read only as far as needed", () => {
  it("a trip count worked out after the walk reads the names of the loop's place, not those declared later", async () => {
    const got = await conditions(
      kernel(`
  int m = n;
  for (int i = threadIdx.x; i < m + threadIdx.x; i += 32) __syncthreads();
#if N > 2
  int m = threadIdx.x;
#endif`),
    );
    assert.deepEqual(got, ["i < m + threadIdx.x: uniform"]);
  });

  it("a const value starting with a call, an element or a member read is no compile-time constant", () => {
    for (const v of ["rsqrtf(x) + 1", "a[0] * 2", "threadIdx.x % 32", "p->n", " f (x)"])
      assert.equal(surelyRuntime(v), true, v);
    for (const v of [
      "sizeof(float) * 4",
      "N * 2",
      "(f(x))",
      "Traits::N + f(x)",
      "static_cast<int>(N)",
      "-f(x)",
    ])
      assert.equal(surelyRuntime(v), false, v);
  });

  /** The rule's findings, `line: message up to its first parenthesis`. */
  /** The rule's findings on `body` in a kernel, or (`device`) in a __device__ function, whose returns go on. */
  async function divergent(body: string, device = false): Promise<string[]> {
    const src = kernel(body, "float* out, int n");
    const findings = await lintSource(device ? src.replace("__global__", "__device__") : src, {
      rules: [syncthreadsInDivergentBranch],
    });
    return findings.map((f) => `${f.span.startLine}: ${f.message.split(" (")[0]}`);
  }

  it("stops at a barrier settled by a varying condition: later code cannot change its finding", async () => {
    assert.deepEqual(
      await divergent(`
  int x = n;
  if (x > 0) { if (threadIdx.x % 32 == 0) __syncthreads(); }
  x = threadIdx.x;
  for (int i = 0; i < x; ++i) out[i] = 0;`),
      ["3: __syncthreads() is reached only by the threads for which `threadIdx.x % 32 == 0`"],
    );
  });

  it("reads on past the last barrier while a condition may still come to vary (a later iteration's assignment)", async () => {
    assert.deepEqual(
      await divergent(`
  int r = 0;
  for (int it = 0; it < 4; ++it) {
    if (r == 0) __syncthreads();
    r = threadIdx.x;
  }`),
      ["4: __syncthreads() is reached only by the threads for which `r == 0`"],
    );
  });
  it("settles a barrier as clean only between the body's statements, with its conditions uniform for good", async () => {
    // `lim` is the function's: assigned later (the analysis keeps one value for what `+=` adds to); a
    // return after the loop around the barrier skips it later
    assert.deepEqual(
      await divergent(`
  int lim = n;
  for (int s = 0; s < lim; ++s) __syncthreads();
  lim += threadIdx.x;`),
      ["3: __syncthreads() runs once per iteration of a loop whose condition `s < lim`"],
    );
    assert.deepEqual(
      await divergent(
        `
  for (;;) {
    { for (int s = 0; s < 2; ++s) __syncthreads(); }
    if (threadIdx.x == 0) return;
  }`,
        true,
      ),
      ["3: __syncthreads() is skipped by the threads that take the `return` 1 line below"],
    );
  });
});

// Most statements are read from their text (uniformitySimple.ts); these are the shapes it reads and the
// near misses it must leave to the tree.
describe("uniformity: statements read from text", () => {
  it("stores to an element of local storage carry their value; stores through pointers and to shared memory do not", async () => {
    const got = await conditions(
      kernel(`
  float acc[4]; acc[1] = 0; acc[0] += in[threadIdx.x];
  float* out = (float*)in; out[0] = threadIdx.x;
  __shared__ float s[32]; s[threadIdx.x % 32] = in[threadIdx.x];
  const float* __restrict__ q = in + threadIdx.x;
  const float* r = in + static_cast<size_t>(blockIdx.x) * n;
  if (acc[0] > 0) __syncthreads();
  if (out[0] > 0) __syncthreads();
  if (s[0] > 0) __syncthreads();
  if (q[0] > 0) __syncthreads();
  if (r[0] > 0) __syncthreads();`),
    );
    assert.deepEqual(got, [
      "acc[0] > 0: varying",
      "out[0] > 0: uniform",
      "s[0] > 0: uniform",
      "q[0] > 0: varying",
      "r[0] > 0: uniform",
    ]);
  });

  it("casts pass their argument's deps on; a loop's update is an assignment", async () => {
    const got = await conditions(
      kernel(`
  int t = static_cast<int>(threadIdx.x);
  int b = static_cast<int>(blockIdx.x) * reinterpret_cast<const int&>(n);
  for (int i = b; i < n; i += static_cast<int>(t)) __syncthreads();
  if (b < n) __syncthreads();`),
    );
    assert.deepEqual(got, ["i < n: varying", "b < n: uniform"]);
  });

  it("a parameter list read from text: `const lane` is a type without a name, not a thread-id parameter", async () => {
    assert.deepEqual(
      await conditions(`__device__ void f(const lane, int n) {\n  if (lane) __syncthreads();\n}`),
      ["lane: uniform"],
    );
    assert.deepEqual(
      await conditions(`__device__ void f(const int lane, int n) {\n  if (lane) __syncthreads();\n}`),
      ["lane: varying"],
    );
  });
});

describe("uniformity: rounded-up bounds, overwrites and exits' paths", () => {
  it("a thread-strided loop up to a multiple of its stride runs as many iterations on every thread", async () => {
    const got = await conditions(
      `template <int BS> __global__ void k(const float* in, int n) {
  const int tid = threadIdx.x;
  const int padded = BS * ((n + BS - 1) / BS);
  int later = padded;
  for (int i = tid; i < padded; i += BS) __syncthreads();
  for (int i = threadIdx.x; i < ((n + BS - 1) & ~(BS - 1)); i += BS) __syncthreads();
  for (int i = threadIdx.x % BS; i < round_up(n, BS); i += BS) __syncthreads();
  for (unsigned j = threadIdx.y; j < (n + blockDim.y - 1) / blockDim.y * blockDim.y; j += blockDim.y) __syncthreads();
  for (int i = threadIdx.x; i < padded; i += blockDim.x) __syncthreads();
  for (int i = threadIdx.y; i < padded; i += BS) __syncthreads();
  for (int i = tid; i <= padded; i += BS) __syncthreads();
  for (int i = tid; i < later; i += BS) __syncthreads();
  later = n;
}`,
    );
    assert.deepEqual(got, [
      "i < padded: uniform",
      "i < ((n + BS - 1) & ~(BS - 1)): uniform",
      "i < round_up(n, BS): uniform",
      "j < (n + blockDim.y - 1) / blockDim.y * blockDim.y: uniform",
      "i < padded: varying",
      "i < padded: varying",
      "i <= padded: varying",
      "i < later: varying",
    ]);
  });

  it("a plain assignment every thread of the variable's scope runs starts a new value; others add to it", async () => {
    const got = await conditions(
      kernel(`
  __shared__ int s_x;
  int x = threadIdx.x;
  int y = threadIdx.x;
  int z = threadIdx.x;
  if (threadIdx.x == 0) s_x = x;
  __syncthreads();
  if (x > 0) __syncthreads();
  x = s_x;
  if (x > 1) __syncthreads();
  if (n) y = s_x;
  if (y > 1) __syncthreads();
  z = s_x;
  z += threadIdx.x;
  if (z > 1) __syncthreads();`),
    );
    assert.deepEqual(got, ["x > 0: varying", "x > 1: uniform", "y > 1: varying", "z > 1: varying"]);
  });

  it("an exit skips a barrier it can come back to, not one in the other arm of its `if`", async () => {
    const src = kernel(`
  if (n == 1) { if (threadIdx.x > 4) return; } else { __syncthreads(); }
  for (int r = 0; r < n; ++r) {
    if (r == 2) { if (threadIdx.x > 4) continue; } else { __syncthreads(); }
    if (r == 3) { if (threadIdx.x > 4) return; } else { __syncthreads(); }
  }`);
    const idx = FileIndex.begin(await parseSource(src), src);
    const u = Uniformity.of(idx, idx.deviceFunctions()[0]!);
    const [b0, b1, b2] = u.barriers;
    const [ret0, cont, ret1] = u.exits;
    assert.deepEqual(
      [u.skips(ret0!, b0!), u.skips(cont!, b1!), u.skips(ret1!, b2!), u.skips(ret1!, b1!)],
      [false, false, true, true],
    );
  });
});
