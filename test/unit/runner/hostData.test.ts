import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DTYPES,
  POISON_BYTE,
  countPoisoned,
  decode,
  encode,
  fromBf16Bits,
  fromHalfBits,
  generateValues,
  packPointer,
  packScalar,
  toBf16Bits,
  toHalfBits,
} from "../../../native/runner/hostData";

describe("f16 and bf16 conversion", () => {
  it("encodes IEEE half values exactly like __float2half_rn", () => {
    assert.equal(toHalfBits(1), 0x3c00);
    assert.equal(toHalfBits(-2), 0xc000);
    assert.equal(toHalfBits(65504), 0x7bff); // largest half
    assert.equal(toHalfBits(65520), 0x7c00); // rounds to infinity
    assert.equal(toHalfBits(0.1), 0x2e66);
    assert.equal(toHalfBits(2 ** -24), 0x0001); // smallest subnormal
    assert.equal(toHalfBits(2 ** -26), 0x0000); // underflows to zero
    assert.equal(toHalfBits(1 + 2 ** -11), 0x3c00); // tie rounds to even
    assert.equal(toHalfBits(1 + 3 * 2 ** -11), 0x3c02);
    assert.equal(toHalfBits(Infinity), 0x7c00);
    assert.ok(Number.isNaN(fromHalfBits(toHalfBits(NaN))));
  });

  it("decodes every finite half back to the value it encodes", () => {
    for (let h = 0; h < 0x10000; h++) {
      const v = fromHalfBits(h);
      if (!Number.isFinite(v)) continue;
      const back = toHalfBits(v);
      // -0 and +0 are distinct bit patterns of the same value.
      assert.equal(back, h, `0x${h.toString(16)} -> ${v} -> 0x${back.toString(16)}`);
    }
  });

  it("encodes bfloat16 with round to nearest even", () => {
    assert.equal(toBf16Bits(1), 0x3f80);
    assert.equal(toBf16Bits(-2), 0xc000);
    assert.equal(toBf16Bits(1 + 2 ** -8), 0x3f80); // tie, even stays
    assert.equal(toBf16Bits(1 + 3 * 2 ** -8), 0x3f82); // tie, odd rounds up
    assert.equal(fromBf16Bits(0x4049), 3.140625);
    assert.ok(Number.isNaN(fromBf16Bits(toBf16Bits(NaN))));
  });
});

describe("buffers", () => {
  it("round-trips values through every dtype", () => {
    const values = Float64Array.from([0, 1, -1, 2, 100, -7]);
    for (const dtype of DTYPES) {
      const want = dtype.startsWith("u") ? values.map((v) => Math.max(0, v)) : values;
      assert.deepEqual(decode(dtype, encode(dtype, want)), want, dtype);
    }
  });

  it("saturates integers instead of wrapping", () => {
    assert.deepEqual([...decode("i8", encode("i8", Float64Array.of(300, -300)))], [127, -128]);
    assert.deepEqual([...decode("u8", encode("u8", Float64Array.of(-1, 2.6)))], [0, 3]);
  });

  it("generates the same seeded data every time and different data for different seeds", () => {
    const a = generateValues({ kind: "randn" }, 1000, 1);
    assert.deepEqual(generateValues({ kind: "randn" }, 1000, 1), a);
    assert.notDeepEqual(generateValues({ kind: "randn" }, 1000, 2), a);
    assert.deepEqual(
      generateValues({ kind: "randn", seed: 5 }, 10, 1),
      generateValues({ kind: "randn", seed: 5 }, 10, 9),
    );
    const mean = a.reduce((s, x) => s + x, 0) / a.length;
    const sd = Math.sqrt(a.reduce((s, x) => s + (x - mean) ** 2, 0) / a.length);
    assert.ok(Math.abs(mean) < 0.15 && Math.abs(sd - 1) < 0.15, `randn mean ${mean}, sd ${sd}`);
    const u = generateValues({ kind: "uniform", low: -2, high: 3 }, 1000, 1);
    assert.ok(u.every((x) => x >= -2 && x < 3));
    assert.deepEqual([...generateValues({ kind: "arange" }, 4, 1)], [0, 1, 2, 3]);
    assert.deepEqual([...generateValues({ kind: "constant", value: 2.5 }, 2, 1)], [2.5, 2.5]);
  });

  it("counts elements still holding the poison pattern, which reads as NaN for floats", () => {
    const bytes = new Uint8Array(4 * 4).fill(POISON_BYTE);
    bytes.set(encode("f32", Float64Array.of(1.5)), 4);
    bytes[8] = 0; // partly written element is written
    assert.equal(countPoisoned("f32", bytes), 2);
    assert.ok(Number.isNaN(decode("f32", bytes)[0]!));
    assert.ok(Number.isNaN(decode("bf16", new Uint8Array(2).fill(POISON_BYTE))[0]!));
    assert.ok(Number.isNaN(decode("f16", new Uint8Array(2).fill(POISON_BYTE))[0]!));
  });

  it("packs launch parameters as little-endian bytes", () => {
    assert.deepEqual([...packPointer(0x0102030405060708n)], [8, 7, 6, 5, 4, 3, 2, 1]);
    assert.deepEqual([...packScalar("i32", -2)], [0xfe, 0xff, 0xff, 0xff]);
    assert.deepEqual([...packScalar("f32", 1)], [0, 0, 0x80, 0x3f]);
    assert.throws(() => packScalar("i32", 1.5), /not an integer/);
  });
});
