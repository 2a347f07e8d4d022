// The host generator (hostData.ts, the runner's fallback where the GPU's cannot load) against
// native/GENERATOR.md written out independently (test/support/generatorFormula.ts); the GPU's
// ckd_generate is held to the same reference in test/gpu/gpuData.test.ts.
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
  it("hashes as the reference does, including the golden-ratio step's wrap-around", () => {
    // Spot values of the reference itself, so a change to it shows too.
    assert.equal(hashRef(0, 0), 0);
    assert.equal(hashRef(1, 0), hashRef(0, 0x9e3779b9));
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
