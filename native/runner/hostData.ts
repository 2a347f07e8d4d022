// Host-side data for kernel arguments: seeded generation (native/GENERATOR.md, as the GPU's gpuData.cu
// does it; used where that cannot load, and as the tests' reference), dtype encoding (f16/bf16 converted
// here, Node 20 has no Float16Array), decoding device bytes back to numbers, packing launch parameters.
import type { DType, Init, KernelArg } from "./protocol";

export const DTYPE_BYTES: Record<DType, number> = {
  f64: 8,
  f32: 4,
  f16: 2,
  bf16: 2,
  i64: 8,
  u64: 8,
  i32: 4,
  u32: 4,
  i8: 1,
  u8: 1,
};

export const DTYPES = Object.keys(DTYPE_BYTES) as DType[];

export function isDType(s: unknown): s is DType {
  return typeof s === "string" && Object.hasOwn(DTYPE_BYTES, s);
}

const isFloat = (d: DType): boolean => d === "f64" || d === "f32" || d === "f16" || d === "bf16";

/** The byte every element of an output is set to before the check launch: all-ones is NaN for floats. */
export const POISON_BYTE = 0xff;

/** hash(seed, i) of GENERATOR.md (lowbias32 after a golden-ratio step), on uint32. */
function hash(seed: number, i: number): number {
  let x = (i + Math.imul(seed, 0x9e3779b9)) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  x ^= x >>> 16;
  return x >>> 0;
}

/** u(seed, i) in [0, 1): 24 bits of the hash, exact in float32. */
const unit = (seed: number, i: number): number => (hash(seed, i) >>> 8) * 2 ** -24;

const f32 = Math.fround;
const RANDN_SCALE = f32(1.7320508);

/** The uint32 seed of a buffer: the init's, else the argument's 1-based position (as the runner passes it). */
export function seedOf(init: Init, position: number): number {
  const seed = "seed" in init && init.seed !== undefined ? init.seed : position;
  return ((seed % 2 ** 32) + 2 ** 32) % 2 ** 32;
}

/**
 * Values for a buffer before encoding, as native/GENERATOR.md defines them (float32 arithmetic, round
 * to nearest, no FMA), so they equal the GPU's ckd_generate bit for bit: the host fallback and the
 * unit tests' oracle. The default seed is the argument's position, so a kernel and a baseline with the
 * same parameter order see the same inputs.
 */
export function generateValues(init: Init, count: number, position: number): Float64Array {
  if (count > 2 ** 32) throw new Error(`${count} elements: generated buffers hold at most 2^32`);
  const out = new Float64Array(count);
  const seed = seedOf(init, position);
  switch (init.kind) {
    case "zeros":
      break;
    case "ones":
      out.fill(1);
      break;
    case "constant":
      out.fill(f32(init.value));
      break;
    case "arange":
      for (let i = 0; i < count; i++) out[i] = f32(i);
      break;
    case "uniform": {
      const low = f32(init.low);
      const span = f32(f32(init.high) - low);
      for (let i = 0; i < count; i++) out[i] = f32(low + f32(span * unit(seed, i)));
      break;
    }
    case "randn":
      for (let i = 0; i < count; i++) {
        const j = (4 * i) >>> 0;
        const s = f32(
          f32(unit(seed, j) + unit(seed, (j + 1) >>> 0)) +
            f32(unit(seed, (j + 2) >>> 0) + unit(seed, (j + 3) >>> 0)),
        );
        out[i] = f32(f32(s - 2) * RANDN_SCALE);
      }
      break;
  }
  return out;
}

/** Wraps x into [lo, lo + 2^bits) as two's complement does. */
const wrap = (x: number, bits: number, lo: number): number => {
  const m = 2 ** bits;
  return ((((x - lo) % m) + m) % m) + lo;
};

/**
 * GENERATOR.md's integer conversion: truncate toward zero; i8/u8/u32 wrap (u64 wraps only where a
 * double can hold it: negatives saturate to 0 here); i32 and i64 saturate (encode does that).
 */
function toIntegers(dtype: DType, values: Float64Array): Float64Array {
  const bits: Partial<Record<DType, [number, number]>> = { i8: [8, -128], u8: [8, 0], u32: [32, 0] };
  const w = bits[dtype];
  return values.map((v) => (w ? wrap(Math.trunc(v), w[0], w[1]) : Math.trunc(v)));
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** IEEE binary16 bits of v, round to nearest even (as __float2half_rn). */
export function toHalfBits(v: number): number {
  f32Scratch[0] = v;
  const x = u32Scratch[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && (half & 1) === 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1) === 1)) half++;
  return sign | half;
}

export function fromHalfBits(h: number): number {
  const sign = (h & 0x8000) !== 0 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m !== 0 ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/** bfloat16 bits of v, round to nearest even (as __float2bfloat16_rn). */
export function toBf16Bits(v: number): number {
  f32Scratch[0] = v;
  const x = u32Scratch[0]!;
  if ((x & 0x7f800000) === 0x7f800000 && (x & 0x7fffff) !== 0) return 0x7fc0;
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}

export function fromBf16Bits(h: number): number {
  u32Scratch[0] = (h << 16) >>> 0;
  return f32Scratch[0]!;
}

function clampInt(v: number, lo: number, hi: number): number {
  if (Number.isNaN(v)) return 0;
  return Math.min(hi, Math.max(lo, Math.round(v)));
}

/** A dtype's elements in memory: written from numbers and read back as numbers. */
interface Codec {
  encode(values: Float64Array, buf: ArrayBuffer): void;
  decode(buf: ArrayBuffer, out: Float64Array): void;
}

type NumberArray =
  Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Int8Array | Uint8Array;

/** Elements that are JS numbers; without conversions the typed array's own (bulk) set() converts. */
function numbers(
  view: (buf: ArrayBuffer) => NumberArray,
  store?: (v: number) => number,
  load?: (e: number) => number,
): Codec {
  return {
    encode(values, buf) {
      const a = view(buf);
      if (!store) return a.set(values);
      for (let i = 0; i < values.length; i++) a[i] = store(values[i]!);
    },
    decode(buf, out) {
      const a = view(buf);
      if (!load) return out.set(a);
      for (let i = 0; i < out.length; i++) out[i] = load(a[i]!);
    },
  };
}

/** 64-bit integer elements (BigInt in JS), saturated to the integers a double holds exactly. */
function bigints(view: (buf: ArrayBuffer) => BigInt64Array | BigUint64Array, lo: number): Codec {
  return {
    encode(values, buf) {
      const a = view(buf);
      for (let i = 0; i < values.length; i++)
        a[i] = BigInt(clampInt(values[i]!, lo, Number.MAX_SAFE_INTEGER));
    },
    decode(buf, out) {
      const a = view(buf);
      for (let i = 0; i < out.length; i++) out[i] = Number(a[i]!);
    },
  };
}

const clampTo = (lo: number, hi: number) => (v: number) => clampInt(v, lo, hi);

const CODECS: Record<DType, Codec> = {
  f64: numbers((b) => new Float64Array(b)),
  f32: numbers((b) => new Float32Array(b)),
  f16: numbers((b) => new Uint16Array(b), toHalfBits, fromHalfBits),
  bf16: numbers((b) => new Uint16Array(b), toBf16Bits, fromBf16Bits),
  i32: numbers((b) => new Int32Array(b), clampTo(-2147483648, 2147483647)),
  u32: numbers((b) => new Uint32Array(b), clampTo(0, 4294967295)),
  i8: numbers((b) => new Int8Array(b), clampTo(-128, 127)),
  u8: numbers((b) => new Uint8Array(b), clampTo(0, 255)),
  i64: bigints((b) => new BigInt64Array(b), Number.MIN_SAFE_INTEGER),
  u64: bigints((b) => new BigUint64Array(b), 0),
};

/** Encodes values as the dtype's little-endian bytes (integers are rounded and saturated). */
export function encode(dtype: DType, values: Float64Array): Uint8Array {
  const bytes = new Uint8Array(values.length * DTYPE_BYTES[dtype]);
  CODECS[dtype].encode(values, bytes.buffer);
  return bytes;
}

/** Decodes device bytes to numbers (64-bit integers beyond 2^53 lose precision, as compared values may). */
export function decode(dtype: DType, bytes: Uint8Array): Float64Array {
  const size = DTYPE_BYTES[dtype];
  if (bytes.byteLength % size !== 0)
    throw new Error(`${bytes.byteLength} bytes is not a whole number of ${dtype}`);
  const out = new Float64Array(bytes.byteLength / size);
  // Copy into a fresh, aligned buffer: Node Buffers may sit at any offset of a shared pool.
  CODECS[dtype].decode(new Uint8Array(bytes).buffer, out);
  return out;
}

/** Elements whose every byte is still POISON_BYTE, i.e. the kernel never wrote them. */
export function countPoisoned(dtype: DType, bytes: Uint8Array): number {
  const size = DTYPE_BYTES[dtype];
  let count = 0;
  for (let i = 0; i + size <= bytes.length; i += size) {
    let all = true;
    for (let j = 0; j < size; j++) {
      if (bytes[i + j] !== POISON_BYTE) {
        all = false;
        break;
      }
    }
    if (all) count++;
  }
  return count;
}

/** A scalar launch parameter's bytes. */
export function packScalar(dtype: DType, value: number): Uint8Array {
  if (!isFloat(dtype) && !Number.isInteger(value))
    throw new Error(`${value} is not an integer, as ${dtype} needs`);
  return encode(dtype, Float64Array.of(value));
}

/** A pointer launch parameter's bytes: the 8 little-endian bytes of the device address. */
export function packPointer(ptr: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(ptr);
  return new Uint8Array(b.buffer, b.byteOffset, 8);
}

/** The bytes a buffer argument starts with on the device (before outputs are poisoned). */
export function initialBytes(arg: Extract<KernelArg, { kind: "buffer" }>, position: number): Uint8Array {
  const values = generateValues(arg.init, arg.count, position);
  return encode(arg.dtype, isFloat(arg.dtype) ? values : toIntegers(arg.dtype, values));
}
