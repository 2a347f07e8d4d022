// The uniformity analysis (server/analysis/uniformity/): references bound to memory, exits inside a block
// that ends in a return, strided loops with a common base and their last-tile tests.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseSource } from "../../../server/lint/lintDocument";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { Uniformity } from "../../../server/analysis/uniformity/uniformity";
import { conditions, kernel } from "./uniformityHelpers";
import {
  endsKernel,
  endsThread,
  sharedArrays,
  sharedWrite,
} from "../../../server/analysis/uniformity/barrierReach";

describe("uniformity: references to memory and blocks that end in a return", () => {
  it("a reference bound to memory is stored through; one bound to a local holds its values", async () => {
    const got = await conditions(
      kernel(`
  extern __shared__ char raw[];
  auto& plan = *reinterpret_cast<Plan*>(raw);
  Plan& slot = reinterpret_cast<Plan*>(raw)[threadIdx.x];
  Plan& arrow = p->plan;
  int local = 0;
  int& alias = local;
  if (threadIdx.x == 0) plan = make_plan(n);
  if (threadIdx.x == 0) arrow = make_plan(n);
  alias = threadIdx.x;
  __syncthreads();
  if (plan.rounds > 0) __syncthreads();
  if (slot.rounds > 0) __syncthreads();
  if (arrow.rounds > 0) __syncthreads();
  if (alias > 0) __syncthreads();`),
    );
    assert.deepEqual(got, [
      "plan.rounds > 0: uniform",
      "slot.rounds > 0: varying",
      "arrow.rounds > 0: uniform",
      "alias > 0: varying",
    ]);
  });

  it("an exit in a block that ends in a return skips no barrier after that block", async () => {
    const src = kernel(`
  if (n > 8) {
    if (threadIdx.x >= n) return;
    for (int k = 0; k < n; ++k) if (in[k] > 0) break;
    return;
  }
  __syncthreads();
  if (n > 4) {
    if (threadIdx.x >= n) return;
    for (int k = 0; k < n; ++k) if (in[k] > 0) return;
  }
  __syncthreads();
  if (n > 2) {
    if (threadIdx.x >= n) return;
    __syncthreads();
    return;
  }`);
    const idx = FileIndex.begin(await parseSource(src), src);
    const u = Uniformity.of(idx, idx.deviceFunctions()[0]!);
    const [b0, b1, b2] = u.barriers;
    const [ret0, , , ret1, , ret2] = u.exits;
    assert.deepEqual(
      [u.skips(ret0!, b0!), u.skips(ret0!, b1!), u.skips(ret1!, b1!), u.skips(ret2!, b2!)],
      [false, false, true, true],
    );
  });
});

describe("uniformity: strided loops with a base and their last-tile tests", () => {
  it("a start `base + t` and a bound `base + multiple` run as many iterations; a local redeclared elsewhere is another", async () => {
    const got = await conditions(
      `template <int BS> __global__ void k(const float* in, int n) {
  const int base = blockIdx.x * n;
  const int end = base + round_up(n, BS);
  for (int v = base + threadIdx.x; v < end; v += BS) __syncthreads();
  for (int v = base + threadIdx.x; v < blockIdx.y + round_up(n, BS); v += BS) __syncthreads();
  int stop = (n + BS - 1) / BS * BS;
  for (int i = threadIdx.x; i < stop; i += BS) __syncthreads();
  if (n > 3) { int stop = n; in += stop; }
  for (int i = threadIdx.x; i < stop; i += BS) { __syncthreads(); if (in[i] > 0) i += BS; }
  for (int i = threadIdx.x; i < stop; i += BS) { __syncthreads(); if (in[i] > 0) { ++i; break; } }
}`,
    );
    assert.deepEqual(got, [
      "v < end: uniform",
      "v < blockIdx.y + round_up(n, BS): varying",
      "i < stop: uniform",
      "i < stop: varying",
      "i < stop: uniform",
    ]);
  });

  it("`i + S >= B` and `i < B - S` test the last tile for every thread alike; `i + S > B` and `i >= n` do not", async () => {
    const got = await conditions(
      `template <int BS> __global__ void k(const float* in, int n) {
  int stop = (n + BS - 1) / BS * BS;
  for (int i = threadIdx.x; i < stop; i += BS) {
    if (i + BS >= stop) __syncthreads();
    if (i < stop - BS) __syncthreads();
    if (stop <= BS + i) __syncthreads();
    if (i + BS > stop) __syncthreads();
    if (i >= n) __syncthreads();
    int stop = 4;
    if (i + BS >= stop) __syncthreads();
  }
}`,
    );
    assert.deepEqual(got, [
      "i + BS >= stop: uniform",
      "i < stop: uniform",
      "i < stop - BS: uniform",
      "stop <= BS + i: uniform",
      "i + BS > stop: varying",
      "i >= n: varying",
      "i + BS >= stop: varying",
    ]);
  });
});

describe("barrierReach: which exits end the thread", () => {
  it("a return of the kernel itself, a break out of a loop that ends it; not a return of a __device__ function or a lambda", async () => {
    const src = `
__global__ void k(int n) {
  auto f = [&]() { if (threadIdx.x >= n) return; };
  for (int i = 0; i < n; ++i) { if (threadIdx.x == i) break; }
  if (threadIdx.x >= n) return;
  __syncthreads();
}
__device__ void d(int n) {
  if (threadIdx.x >= n) return;
  __syncthreads();
}
__global__ void last(int n) {
  for (int i = threadIdx.x; i < n; i += 32) { if (i == 3) break; __syncthreads(); }
}`;
    const idx = FileIndex.begin(await parseSource(src), src);
    const got = idx.deviceFunctions().map((fn) => {
      const u = Uniformity.of(idx, fn);
      return u.exits.map((e) => `${e.kind}:${endsThread(e, fn, src)}`);
    });
    assert.deepEqual(got, [["return:false", "break:false", "return:true"], ["return:false"], ["break:true"]]);
  });
});

describe("barrierReach: branches and loops that end the kernel", () => {
  it("nothing after them, or only a return or an if that requires the branch's condition", async () => {
    const src = `
__global__ void k(float* out, int n, int m) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { __syncthreads(); }
  if (i < m) { __syncthreads(); }
  for (int j = i; j < n; j += 64) { if (j < m) { __syncthreads(); } }
  if (m > 0) {
    for (int j = i; j < n; j += 64) { __syncthreads(); }
    if (i == 0 && (j < m)) out[0] = 1.f;
    return;
  }
  if (i < n) { __syncthreads(); } else { out[i] = 0.f; }
  if (i < m) { __syncthreads(); }
  // the same condition
  if (out[0] > 0.f && i < m) out[i] = 2.f;
}
__global__ void e(int n) {
  if (threadIdx.x < n) {
    if (threadIdx.x < 4) { __syncthreads(); } else { }
  }
  return;
}
__device__ void d(int n) {
  if (threadIdx.x < n) { __syncthreads(); }
}`;
    const idx = FileIndex.begin(await parseSource(src), src);
    const got = idx
      .deviceFunctions()
      .map((fn) =>
        Uniformity.of(idx, fn).barriers.map((b) => endsKernel(b.controls[0]!.guarded, fn, src, b.call)),
      );
    // a later barrier; a later branch with work; a loop around the if; a loop whose leavers go on to an
    // if (the branch's condition is an if's, not a loop's); an else that works; an if followed by one
    // requiring its condition; an empty else in an if that ends the kernel; a __device__ function's branch
    assert.deepEqual(got, [[false, false, false, false, false, true], [true], [false]]);
  });
});

describe("barrierReach: the shared-memory writes exiting threads skip", () => {
  it("reads __shared__ arrays, assignments to their elements and asynchronous copies", () => {
    const shared = sharedArrays(
      "__shared__ half s_a[BM][BK], s_b[16][BN]; extern __shared__ float smem[]; float r[4];",
    );
    assert.deepEqual([...shared], ["s_a", "s_b", "smem"]);
    const first = (text: string): string | undefined => sharedWrite(text, shared);
    assert.equal(first("float v = x[i]; r[0] = v; out[i] = s_a[0][i];"), undefined);
    assert.equal(
      first("if (s_a[0][0] == v) {} LDST64BITS(s_a[m][k]) = LDST64BITS(A[i]);"),
      "LDST64BITS(s_a[m][k]) = LDST64BITS(A[i])",
    );
    assert.equal(first("smem[t] += v;"), "smem[t] += v");
    assert.equal(
      first("CP_ASYNC_COMMIT_GROUP(); CP_ASYNC_WAIT_GROUP(0); CP_ASYNC_CG(dst, &Q[i], 16);"),
      "CP_ASYNC_CG(dst, &Q[i], 16)",
    );
    assert.equal(
      first('asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(p));')?.startsWith(
        "asm",
      ),
      true,
    );
    assert.equal(first("// CP_ASYNC_CG(dst, src, 16);\n out[i] = v;"), undefined);
  });
});
