// Whether a function exchanges values across the warp (server/analysis/access/warpExchange.ts).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { exchangesAcrossWarp } from "../../../server/analysis/access/warpExchange";

describe("warpExchange: values that cross the threads of a warp", () => {
  it("shuffles, votes, reduce intrinsics, their PTX and CUB's warp collectives", () => {
    for (const code of [
      "v = __shfl_xor_sync(0xffffffff, v, 16);",
      "m = __ballot_sync(~0u, s > 0.f);",
      "r = __reduce_max_sync(0xffffffff, x);",
      'asm volatile("redux.sync.max.s32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(x));',
      "float s = WarpReduce(tmp).Sum(v);",
      "float s = cg::reduce(tile, v, cg::plus<float>());",
    ])
      assert.equal(
        exchangesAcrossWarp(code, () => undefined),
        true,
        code,
      );
  });

  it("through a function of the file it calls, one level, telling which bodies it read", () => {
    const functions = new Map([
      ["warp_max", "for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(~0u, v, o));"],
      ["gelu", "return 0.5f * x * (1.f + tanhf(x));"],
    ]);
    const read: string[] = [];
    assert.equal(
      exchangesAcrossWarp("s = warp_max(gelu(s));", (n) => (read.push(n), functions.get(n))),
      true,
    );
    assert.deepEqual(read, ["warp_max"]);
    read.length = 0;
    assert.equal(
      exchangesAcrossWarp("y[i] = gelu(x[i]); o.warp_max(v);", (n) => (read.push(n), functions.get(n))),
      false,
    );
    assert.deepEqual(read, ["gelu"]);
  });
});
