// The host generator (hostData.ts, the runner's fallback where the GPU's cannot load) against
// native/GENERATOR.md written out independently (test/support/generatorFormula.ts), and both against
// values a python3 computation of GENERATOR.md gave; the GPU's ckd_generate is held to the same
// reference in test/gpu/gpuData.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decode, generateValues, initialBytes, seedOf, toBf16Bits } from "../../../native/runner/hostData";
import type { Init } from "../../../native/runner/protocol";
import { bf16BitsRef, hashRef, valueRef } from "../../support/generatorFormula";

const inits: Init[] = [
  { kind: "randn" },
  { kind: "randn", seed: 123456789 },
  { kind: "uniform", low: -2, high: 3 },
  { kind: "uniform", low: 0.5, high: 1.5, seed: 2 },
  { kind: "arange" },
  { kind: "constant", value: 0.1 },
  { kind: "ones" },
  { kind: "zeros" },
];

describe("seeded generation (native/GENERATOR.md)", () => {
  it("hashes, and gives randn and uniform values, as an independent python3 computation does", () => {
    // Computed once with Python's integers and struct's float32 rounding, from GENERATOR.md alone:
    //   h(s, i): x = (i + s * 0x9E3779B9) % 2**32; x ^= x >> 16; x = x * 0x7FEB352D % 2**32;
    //            x ^= x >> 15; x = x * 0x846CA68B % 2**32; x ^= x >> 16
    //   f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]; u(s, i) = (h(s, i) >> 8) * 2.0**-24
    //   randn(s, i) = f32(f32(f32(f32(u(s,4i) + u(s,4i+1)) + f32(u(s,4i+2) + u(s,4i+3))) - 2) * f32(1.7320508))
    //   uniform(lo, hi, s, i) = f32(f32(lo) + f32(f32(f32(hi) - f32(lo)) * u(s, i)))
    const indices = [0, 1, 2, 1000, 2 ** 32 - 1];
    const hashes: [seed: number, hashes: number[]][] = [
      [0, [0, 1753845952, 3507691905, 1407151442, 1734902346]],
      [1, [33350994, 2672842292, 127880910, 937878766, 2767685996]],
      [3, [260840893, 4073064065, 2661089526, 833651530, 1885302839]],
      [123456789, [3014803849, 29045994, 3136274843, 1615420532, 2253716682]],
      [2 ** 32 - 1, [2127853905, 3847821709, 705888103, 332216086, 903996321]],
    ];
    for (const [seed, want] of hashes)
      assert.deepEqual(
        indices.map((i) => hashRef(seed, i)),
        want,
        `hash(${seed}, i)`,
      );
    const bits = (init: Init): string[] =>
      [...new Uint32Array(new Float32Array(generateValues(init, 4, 3)).buffer)].map(
        (b) => `0x${b.toString(16).padStart(8, "0")}`,
      );
    assert.deepEqual(bits({ kind: "randn" }), ["0x3e28884d", "0xbfc056cb", "0xbf3be289", "0x3ec11474"]);
    assert.deepEqual(bits({ kind: "randn", seed: 123456789 }), [
      "0x3ddab298",
      "0x3dd32531",
      "0x3f2048a2",
      "0x3f8c6fc2",
    ]);
    assert.deepEqual(bits({ kind: "uniform", low: -2, high: 3 }), [
      "0xbfd921b8",
      "0x402f7788",
      "0x3f8c8880",
      "0x3ea9ea08",
    ]);
  });

  it("gives every init the reference's float32 values bit for bit", () => {
    for (const init of inits) {
      const seed = seedOf(init, 3);
      const got = generateValues(init, 2051, 3);
      for (let i = 0; i < got.length; i++) {
        assert.equal(got[i], valueRef(init, seed, i), `${JSON.stringify(init)} element ${i}`);
      }
    }
  });

  it("defaults the seed to the position and reduces seeds to uint32", () => {
    assert.equal(seedOf({ kind: "randn" }, 4), 4);
    assert.equal(seedOf({ kind: "randn", seed: 9 }, 4), 9);
    assert.equal(seedOf({ kind: "randn", seed: -1 }, 4), 2 ** 32 - 1);
    assert.equal(seedOf({ kind: "randn", seed: 2 ** 32 + 5 }, 4), 5);
  });

  it("randn has mean 0 and variance 1 and stays within Irwin-Hall's bound", () => {
    const a = generateValues({ kind: "randn" }, 100000, 1);
    const mean = a.reduce((s, x) => s + x, 0) / a.length;
    const sd = Math.sqrt(a.reduce((s, x) => s + (x - mean) ** 2, 0) / a.length);
    assert.ok(Math.abs(mean) < 0.02 && Math.abs(sd - 1) < 0.02, `mean ${mean}, sd ${sd}`);
    assert.ok(a.every((x) => Math.abs(x) < 3.47));
  });

  it("converts to the dtype as the GPU does: bf16 to nearest even, integers truncated and wrapped", () => {
    const init: Init = { kind: "uniform", low: -300, high: 300, seed: 11 };
    const f = generateValues(init, 512, 1);
    const bf = new Uint16Array(
      initialBytes({ kind: "buffer", name: "x", dtype: "bf16", count: 512, init }, 1).buffer,
    );
    for (let i = 0; i < 512; i++) assert.equal(bf[i], bf16BitsRef(f[i]!), `bf16 element ${i}`);
    assert.deepEqual([...bf], [...f].map(toBf16Bits));
    const arg = (dtype: "u8" | "i8" | "i32") => ({
      kind: "buffer" as const,
      name: "x",
      dtype,
      count: 512,
      init,
    });
    const u8 = decode("u8", initialBytes(arg("u8"), 1));
    const i8 = decode("i8", initialBytes(arg("i8"), 1));
    const i32 = decode("i32", initialBytes(arg("i32"), 1));
    for (let i = 0; i < 512; i++) {
      const t = Math.trunc(f[i]!) || 0; // -0 reads back as 0
      assert.equal(i32[i], t);
      assert.equal(u8[i], ((t % 256) + 256) % 256);
      assert.equal(i8[i], ((((t + 128) % 256) + 256) % 256) - 128);
    }
  });

  it("refuses buffers whose indices do not fit uint32", () => {
    assert.throws(() => generateValues({ kind: "zeros" }, 2 ** 32 + 1, 1), /at most 2\^32/);
  });
});
