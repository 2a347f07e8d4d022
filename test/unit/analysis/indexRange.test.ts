// The index-range analysis (server/analysis/indexes/indexRange.ts): whether a 32-bit thread index can pass
// 2^31, read from its bounds and uses, as the int-index-overflow rule reports it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lintSource } from "../../../server/lint/lintDocument";
import { intIndexOverflow } from "../../../server/rules/int-index-overflow";

/** `line: why` for each finding of a kernel with `params` and `body`. */
async function findings(params: string, body: string): Promise<string[]> {
  const src = `__global__ void k(${params}) {\n${body}\n}`;
  const out = await lintSource(src, { rules: [intIndexOverflow] });
  return out.map(
    (f) => `${f.span.startLine}: ${/used as an index: ([^.]*)/.exec(f.message)?.[1] ?? f.message}`,
  );
}

describe("index range", () => {
  it("a 64-bit element count lets an index pass 2^31; a 64-bit count of a small domain does not", async () => {
    const got = await findings(
      "float* y, size_t n, size_t num_rows, int64_t batch_size, size_t vocabSize",
      `  int a = blockIdx.x * blockDim.x + threadIdx.x; if (a < n) y[a] = 0;
  int b = blockIdx.x * blockDim.x + threadIdx.x; if (b < num_rows) y[b] = 0;
  int c = blockIdx.x * blockDim.x + threadIdx.x; if (c < batch_size) y[c] = 0;
  int d = blockIdx.x * blockDim.x + threadIdx.x; if (d < vocabSize) y[d] = 0;`,
    );
    assert.deepEqual(got, ["1: it wraps past 2^31 elements before reaching its 64-bit bound"]);
  });

  it("a signed index below an unsigned 32-bit product passes INT_MAX; an unsigned one or an int product does not", async () => {
    const got = await findings(
      "float* y, uint32_t h, uint32_t w, int p, int q",
      `  int a = blockIdx.x * blockDim.x + threadIdx.x; if (a < h * w) y[a] = 0;
  unsigned b = blockIdx.x * blockDim.x + threadIdx.x; if (b < h * w) y[b] = 0;
  int c = blockIdx.x * blockDim.x + threadIdx.x; if (c < p * q) y[c] = 0;`,
    );
    assert.equal(got.length, 1);
    assert.match(got[0]!, /^1: it is a signed int bounded by an unsigned 32-bit product/);
  });

  it("a column of a 32-bit or dimension-wide row is no flat index; a slice offset with a 64-bit stride is", async () => {
    const got = await findings(
      "float* y, const float* g, int width, size_t n, size_t hidden, long stride",
      `  int a = blockIdx.x * blockDim.x + threadIdx.x; y[threadIdx.y * width + a] = g[a];
  int b = blockIdx.x * blockDim.x + threadIdx.x; if (b < n) y[blockIdx.y * n + b] = g[b];
  int c = blockIdx.x * blockDim.x + threadIdx.x; if (c < hidden) y[blockIdx.y * hidden + c] = 0;
  int d = blockIdx.x * blockDim.x + threadIdx.x; if (d < n) y[d + stride * blockIdx.y] = 0;`,
    );
    assert.deepEqual(got, ["4: it wraps past 2^31 elements before reaching its 64-bit bound"]);
  });

  it("a quotient coordinate compared with a 32-bit size bounds the index; with a 64-bit count, or compared with nothing, it does not", async () => {
    const got = await findings(
      "float* y, int rows, int w, size_t n, int h",
      `  int a = blockIdx.x * blockDim.x + threadIdx.x; int ra = (a * 4) / w; if (ra < rows) y[a] = 0;
  int b = blockIdx.x * blockDim.x + threadIdx.x; int rb = b / (h * w); if (rb >= rows) return; y[b] = 0;
  int c = blockIdx.x * blockDim.x + threadIdx.x; int rc = c / w; if (rc < n) y[c] = 0;
  int d = blockIdx.x * blockDim.x + threadIdx.x; int rd = d / w; y[d] = y[rd];
  int e = blockIdx.x * blockDim.x + threadIdx.x; int re = (e / w) % h; if (re < rows) y[e] = 0;`,
    );
    assert.deepEqual(got, [
      "3: it wraps past 2^31 elements before reaching its 64-bit bound",
      "4: it wraps past 2^31 elements",
      "5: it wraps past 2^31 elements",
    ]);
  });

  it("a 64-bit local count is evidence by its value: a 64-bit value or three dimensions, not two int dims or a loop", async () => {
    const got = await findings(
      "float* y, const int* dims, int nd, int B, int T, int C, size_t total",
      `  size_t n1 = 1; for (int k = 0; k < nd; ++k) n1 *= dims[k];
  size_t n2 = B * T;
  size_t n3 = B; n3 *= T * C;
  size_t n4 = total;
  int a = blockIdx.x * blockDim.x + threadIdx.x; if (a < n1) y[a] = 0;
  int b = blockIdx.x * blockDim.x + threadIdx.x; if (b < n2) y[b] = 0;
  int c = blockIdx.x * blockDim.x + threadIdx.x; if (c < n3) y[c] = 0;
  int d = blockIdx.x * blockDim.x + threadIdx.x; if (d < n4) y[d] = 0;`,
    );
    assert.deepEqual(got, [
      "7: it wraps past 2^31 elements before reaching its 64-bit bound",
      "8: it wraps past 2^31 elements before reaching its 64-bit bound",
    ]);
  });

  it("y and z indexes cannot pass 2^31; the suggested rewrite keeps the index's own axis and terms", async () => {
    const src = `__global__ void k(float* y, size_t n) {
  int r = blockIdx.y * blockDim.y + threadIdx.y; if (r < n) y[r] = 0;
  y[blockIdx.z * blockDim.z + threadIdx.z] = 0;
  int i = blockDim.x * blockIdx.x + threadIdx.x + 1; if (i < n) y[i] = 0;
}`;
    const out = await lintSource(src, { rules: [intIndexOverflow] });
    assert.deepEqual(
      out.map((f) => f.span.startLine),
      [3],
    );
    // either operand widened makes the product 64-bit; the fix widens the left one, as written
    assert.ok(
      out[0]!.message.includes(
        "`int64_t i = static_cast<int64_t>(blockDim.x) * blockIdx.x + threadIdx.x + 1`",
      ),
      out[0]!.message,
    );
  });
});

describe("index range: 32-bit tensor accessors", () => {
  it("a 32-bit accessor's size is a 32-bit bound under any cast; a 64-bit accessor's size is not", async () => {
    const got = await findings(
      "float* y, PackedTensorAccessor32<float, 2> a, at::PackedTensorAccessor64<float, 1> b, TensorAccessor<int, 1, P, int32_t> c",
      `  const auto na = a.size(0); int64_t nc = c.size(0);
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < static_cast<uint64_t>(na)) y[i] = 0;
  int j = blockIdx.x * blockDim.x + threadIdx.x; if (j < (int64_t)a.size(1)) y[j] = 0;
  int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < nc) y[k] = 0;
  int l = blockIdx.x * blockDim.x + threadIdx.x; if (l < static_cast<uint64_t>(b.size(0))) y[l] = 0;`,
    );
    assert.deepEqual(got, ["5: it wraps past 2^31 elements before reaching its 64-bit bound"]);
  });

  it("an index only addressing 32-bit accessors (and compared) stays in range; one also addressing a pointer or a 64-bit accessor does not", async () => {
    const got = await findings(
      "float* y, int64_t n, int64_t off, pta::PackedTensorAccessor32<float, 2> a, PackedTensorAccessor64<float, 1> b",
      `  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; a[0][off + i] = a[1][i];
  int j = blockIdx.x * blockDim.x + threadIdx.x; if (j < n) y[j] = a[0][j];
  int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < n) b[k] = a[0][k];
  int l = blockIdx.x * blockDim.x + threadIdx.x; if (l < n) a[0][l] = 0; foo(l);`,
    );
    assert.deepEqual(got, [
      "2: it wraps past 2^31 elements before reaching its 64-bit bound",
      "3: it wraps past 2^31 elements before reaching its 64-bit bound",
      "4: it wraps past 2^31 elements before reaching its 64-bit bound",
    ]);
  });
});

describe("index range: bounds the file's launches pass", () => {
  it("a 64-bit parameter every launch in the file passes a 32-bit value bounds the index below 2^31", async () => {
    const kernel = (name: string): string =>
      `__global__ void ${name}(float* y, size_t n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 0;\n}\n`;
    const src = `${kernel("ka")}${kernel("kb")}${kernel("kc")}${kernel("kd")}${kernel("ke")}
void run(float* y, int r, int c, unsigned u, size_t total) {
  ka<<<8, 256>>>(y, (r + 1) * c / 2);
  kb<<<8, 256>>>(y, r * c); kb<<<8, 256>>>(y, total);
  kc<<<8, 256>>>(y, u * c);
  kd<<<8, 256>>>(y, (size_t)r * c);
  cudaLaunchKernel((void*)ke, 8, 256, nullptr, 0, 0); ke<<<8, 256>>>(y, r);
}`;
    const out = await lintSource(src, { rules: [intIndexOverflow] });
    // ka: int arithmetic; kb: one launch passes a size_t; kc: an unsigned operand; kd: a cast; ke: another use
    assert.deepEqual(
      out.map((f) => f.span.startLine),
      [4, 7, 10, 13],
    );
  });
});
