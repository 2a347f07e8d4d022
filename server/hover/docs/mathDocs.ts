// Hover docs: integer and bit intrinsics, and the fast-math functions.
import type { CudaDoc } from "./cudaDoc";

export const MATH_DOCS: Readonly<Record<string, CudaDoc>> = {
  // Integer / bit intrinsics
  __popc: {
    kind: "intrinsic",
    signature: "int __popc(unsigned x)   /   int __popcll(unsigned long long x)",
    meaning: "Number of set bits.",
    availability: "All architectures.",
    pitfall:
      "Pass unsigned: a negative int converts, but `__popc(mask & ((1u << lane) - 1))` is the usual lane-rank idiom.",
  },
  __clz: {
    kind: "intrinsic",
    signature: "int __clz(int x)   /   int __clzll(long long x)",
    meaning: "Number of leading zero bits (32 for x == 0).",
    availability: "All architectures.",
    pitfall: "Returns 32 (not undefined) for zero, unlike some host builtins.",
  },
  __ffs: {
    kind: "intrinsic",
    signature: "int __ffs(int x)   /   int __ffsll(long long x)",
    meaning: "1-based position of the least significant set bit; 0 when x is 0.",
    availability: "All architectures.",
    pitfall: "1-based: subtract 1 to get the lane index from a ballot mask.",
  },
  __umulhi: {
    kind: "intrinsic",
    signature: "unsigned __umulhi(unsigned x, unsigned y)",
    meaning: "The high 32 bits of the 64-bit product (used in fast division by a constant).",
    availability: "All architectures.",
    pitfall: "Unsigned only; `__mulhi` is the signed form.",
  },
  __float_as_int: {
    kind: "intrinsic",
    signature: "int __float_as_int(float x)   /   float __int_as_float(int x)",
    meaning: "Reinterprets the bits (no conversion).",
    availability: "All architectures.",
    pitfall: "Not a numeric conversion: use `__float2int_rn` for that.",
  },
  __float2int_rn: {
    kind: "intrinsic",
    signature: "int __float2int_rn(float x)   (_rz, _ru, _rd)",
    meaning: "Converts float to int with an explicit rounding mode (round to nearest even here).",
    availability: "All architectures.",
    pitfall: "A plain `(int)x` truncates toward zero; out-of-range values saturate.",
  },
  // Fast math
  __expf: {
    kind: "math function",
    signature: "float __expf(float x)",
    meaning: "Fast approximate e^x on the special function unit.",
    availability: "All architectures. `-use_fast_math` turns `expf` into it.",
    pitfall: "Error grows with |x| (max 2 + floor(|1.173 x|) ulp); for softmax subtract the row max first.",
  },
  __logf: {
    kind: "math function",
    signature: "float __logf(float x)",
    meaning: "Fast approximate natural log.",
    availability: "All architectures.",
    pitfall: "Poor accuracy near 1.0 and for denormals; keep `logf` in loss computations.",
  },
  __fdividef: {
    kind: "math function",
    signature: "float __fdividef(float x, float y)",
    meaning: "Fast approximate division.",
    availability: "All architectures.",
    pitfall:
      "Returns 0 when 2^126 < |y| < 2^128 even if x is large; `x / y` is IEEE-exact without fast math.",
  },
  rsqrtf: {
    kind: "math function",
    signature: "float rsqrtf(float x)",
    meaning: "1 / sqrt(x), the normalisation factor in RMSNorm and LayerNorm.",
    availability: "All architectures (2 ulp).",
    pitfall: "Add the epsilon before the call: `rsqrtf(mean_sq + eps)`; `rsqrtf(0)` is +inf.",
  },
  __frcp_rn: {
    kind: "math function",
    signature: "float __frcp_rn(float x)",
    meaning: "Reciprocal 1/x rounded to nearest (IEEE compliant).",
    availability: "All architectures.",
    pitfall: "Correctly rounded, hence slower than the approximate `__fdividef(1.0f, x)`.",
  },
  __fmaf_rn: {
    kind: "math function",
    signature: "float __fmaf_rn(float x, float y, float z)",
    meaning: "x * y + z with one rounding, and never split by the compiler.",
    availability: "All architectures.",
    pitfall:
      "nvcc already contracts `a * b + c` into FMA by default (`--fmad=true`); results then differ from the CPU's.",
  },
  __saturatef: {
    kind: "math function",
    signature: "float __saturatef(float x)",
    meaning: "Clamps to [0, 1] (NaN becomes 0).",
    availability: "All architectures.",
    pitfall: "NaN maps to 0, hiding upstream NaNs.",
  },
  tanhf: {
    kind: "math function",
    signature: "float tanhf(float x)",
    meaning: "Hyperbolic tangent (GELU's tanh approximation uses it).",
    availability: "All architectures; a hardware `tanh.approx.f32` exists on sm_75+ (inline PTX).",
    pitfall:
      "Costly in fp32; GELU kernels often use `x * sigmoid(1.702x)` or the approx instruction deliberately.",
  },
};
