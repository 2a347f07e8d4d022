// native/GENERATOR.md written out a second time, as plainly as it reads (uint32 products through BigInt,
// float32 rounding through Float32Array), independent of hostData.ts and gpuData.cu: the reference the
// unit tests hold the host generator to and the GPU tests hold ckd_generate to. Small counts only.
const M = 2n ** 32n;
const f32 = (x: number): number => new Float32Array([x])[0]!;

export function hashRef(seed: number, i: number): number {
  let x = (BigInt(i) + BigInt(seed) * 0x9e3779b9n) % M;
  x ^= x >> 16n;
  x = (x * 0x7feb352dn) % M;
  x ^= x >> 15n;
  x = (x * 0x846ca68bn) % M;
  x ^= x >> 16n;
  return Number(x);
}

export const uRef = (seed: number, i: number): number => f32(Math.floor(hashRef(seed, i) / 256) * 2 ** -24);

export type RefInit =
  | { kind: "uniform"; low: number; high: number }
  | { kind: "randn" }
  | { kind: "zeros" }
  | { kind: "ones" }
  | { kind: "arange" }
  | { kind: "constant"; value: number };

/** The float32 value of element i (as a JS number, exact). */
export function valueRef(init: RefInit, seed: number, i: number): number {
  switch (init.kind) {
    case "uniform": {
      const t = f32(f32(init.high) - f32(init.low));
      return f32(f32(init.low) + f32(t * uRef(seed, i)));
    }
    case "randn": {
      const j = (k: number) => Number((4n * BigInt(i) + BigInt(k)) % M);
      const s = f32(f32(uRef(seed, j(0)) + uRef(seed, j(1))) + f32(uRef(seed, j(2)) + uRef(seed, j(3))));
      return f32(f32(s - 2) * f32(1.7320508));
    }
    case "zeros":
      return 0;
    case "ones":
      return 1;
    case "arange":
      return f32(i);
    case "constant":
      return f32(init.value);
  }
}

/** bfloat16 bits of a float32 value, round to nearest even (no NaN inputs here). */
export function bf16BitsRef(v: number): number {
  const bits = new Uint32Array(new Float32Array([v]).buffer)[0]!;
  const lower = bits & 0xffff;
  let upper = bits >>> 16;
  if (lower > 0x8000 || (lower === 0x8000 && (upper & 1) === 1)) upper++;
  return upper & 0xffff;
}
