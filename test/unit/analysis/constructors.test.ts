// Which parameters a class's constructors read (server/analysis/types/constructors.ts), and the
// uniformity analysis' use of it: an object built from the thread index varies only when a constructor
// that takes that many arguments reads it (server/analysis/uniformity/uniformityCalls.ts).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { argumentsRead, constructors } from "../../../server/analysis/types/constructors";
import { parseSource } from "../../../server/lint/lintDocument";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { Uniformity } from "../../../server/analysis/uniformity/uniformity";

describe("constructors: which parameters a class's constructors read", () => {
  it("reads in-class and out-of-class constructors, initializers and bodies", () => {
    const got = constructors(`
template <int V> struct Info {};
template <> struct Info<1> {
  template <typename P> inline __device__ Info(P const& params, int bidb, int tidx) : bidb(bidb) { s = params.s; }
  int s, bidb;
};
class __align__(16) Row : public Base<float> {
 public:
  explicit Row(const float* __restrict__ p, int tidx, int = 0) noexcept : Base<float>(p), col{tidx % 4} {}
  int col;
};
struct Out { Out(int n, int lane); int n; };
Out::Out(int n, int lane) { this->n = n; }
struct Pack { template <typename... Ts> Pack(Ts... xs) {} };
`);
    assert.deepEqual(got.get("Info"), [{ params: 3, required: 3, reads: [true, true, false] }]);
    assert.deepEqual(got.get("Row"), [{ params: 3, required: 2, reads: [true, true, false] }]);
    assert.deepEqual(got.get("Out"), [{ params: 2, required: 2, reads: [true, false] }]);
    assert.deepEqual(got.get("Pack"), [{ params: Infinity, required: 0, reads: [] }]);
  });

  it("takes no call, ternary arm or destructor for a constructor", () => {
    const got = constructors(`
struct S { S(int a) : a(a) {} ~S() {} int a; };
__device__ int f(int x) { S s = S(x); return x ? S(x).a : 0; }
__device__ void g(int y) { if (S(y).a) { } }
`);
    assert.deepEqual(got.get("S"), [{ params: 1, required: 1, reads: [true] }]);
  });

  it("drops an argument only when every constructor of that arity leaves it unread", () => {
    const unread = { params: 2, required: 2, reads: [true, false] };
    const read = { params: 3, required: 2, reads: [true, true, true] };
    assert.deepEqual(argumentsRead([unread], 2), [true, false]);
    assert.deepEqual(argumentsRead([unread, read], 2), [true, true]);
    assert.deepEqual(argumentsRead([unread], 3), undefined);
    assert.deepEqual(argumentsRead(undefined, 2), undefined);
  });
});

describe("uniformity: objects built by constructors", () => {
  /** Per barrier of the file's last function: does its condition vary? */
  async function varies(src: string): Promise<boolean[]> {
    const idx = FileIndex.begin(await parseSource(src), src);
    const fn = idx.deviceFunctions().at(-1)!;
    const known = constructors(src);
    const u = Uniformity.of(idx, fn, undefined, (name) => known.get(name));
    return u.barriers.map((b) => u.varies(b.controls[0]!.deps));
  }

  it("an unread thread index leaves the object uniform; a read one, or an unknown class, does not", async () => {
    const got = await varies(
      `
struct Info { __device__ Info(int n, int tidx) : n(n) {} int n; };
struct Tile { __device__ Tile(int n, int tidx) : row(tidx / 4) {} int row; };
__device__ void f(int n) {
  const Info a(n, threadIdx.x);
  const Tile b(n, threadIdx.x);
  const Unknown c(n, threadIdx.x);
  Info d{n, threadIdx.x};
  if (a.n > 0) __syncthreads();
  if (b.row > 0) __syncthreads();
  if (c.row > 0) __syncthreads();
  if (d.n > 0) __syncthreads();
}`,
    );
    assert.deepEqual(got, [false, true, true, false]);
  });
});
