// Hover docs: FP16 (cuda_fp16.h) and BF16 (cuda_bf16.h) types and intrinsics.
import type { CudaDoc } from "./cudaDoc";

export const HALF_DOCS: Readonly<Record<string, CudaDoc>> = {
  // Half precision (cuda_fp16.h)
  __half: {
    kind: "type",
    signature: "struct __half  (cuda_fp16.h; `half` is an alias)",
    meaning: "IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits; max 65504.",
    availability: "Storage on all architectures; native arithmetic sm_53+.",
    pitfall:
      "PyTorch extensions build with `-D__CUDA_NO_HALF_OPERATORS__`: `a + b` on `__half` then fails to compile; use `__hadd` or convert through float. Overflows above 65504; accumulate in float.",
  },
  __half2: {
    kind: "type",
    signature: "struct __half2  (cuda_fp16.h; `half2` is an alias)",
    meaning: "Two `__half` values in 32 bits, processed by one paired instruction.",
    availability: "sm_53+ for arithmetic.",
    pitfall:
      "Pointer casts to `__half2*` need 4-byte alignment and an even element count; handle the odd tail separately.",
  },
  __float2half: {
    kind: "intrinsic",
    signature: "__half __float2half(float a)   (also _rn, _rz, _rd, _ru)",
    meaning: "Converts float to half, rounding to nearest even.",
    availability: "cuda_fp16.h, all architectures.",
    pitfall: "Values above 65504 become inf: scale or clamp before converting.",
  },
  __half2float: {
    kind: "intrinsic",
    signature: "float __half2float(__half a)",
    meaning: "Converts half to float exactly.",
    availability: "cuda_fp16.h, all architectures.",
    pitfall:
      "Convert once per element and do the math in float; converting inside inner loops repeatedly costs instructions.",
  },
  __floats2half2_rn: {
    kind: "intrinsic",
    signature: "__half2 __floats2half2_rn(float a, float b)",
    meaning: "Packs two floats into a `__half2` (a in the low half).",
    availability: "cuda_fp16.h, all architectures.",
    pitfall: "`__float2half2_rn(a)` (singular) broadcasts one value to both halves: a different function.",
  },
  __half22float2: {
    kind: "intrinsic",
    signature: "float2 __half22float2(__half2 a)",
    meaning: "Unpacks a `__half2` into a `float2`.",
    availability: "cuda_fp16.h, all architectures.",
    pitfall: "`.x` is the low half (`__low2float`), `.y` the high half.",
  },
  __hadd: {
    kind: "intrinsic",
    signature: "__half __hadd(__half a, __half b)",
    meaning: "Half-precision addition (round to nearest).",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Accumulating many values in half loses precision fast; accumulate in float.",
  },
  __hmul: {
    kind: "intrinsic",
    signature: "__half __hmul(__half a, __half b)",
    meaning: "Half-precision multiplication.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Products overflow past 65504 to inf.",
  },
  __hfma: {
    kind: "intrinsic",
    signature: "__half __hfma(__half a, __half b, __half c)",
    meaning: "Fused a * b + c in half precision.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Still a half-precision accumulator; keep reductions in float.",
  },
  __hadd2: {
    kind: "intrinsic",
    signature: "__half2 __hadd2(__half2 a, __half2 b)",
    meaning: "Adds two pairs of halves in one instruction.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Needs the data as `__half2`: aligned, even-length access.",
  },
  __hmul2: {
    kind: "intrinsic",
    signature: "__half2 __hmul2(__half2 a, __half2 b)",
    meaning: "Multiplies two pairs of halves in one instruction.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "As `__hadd2`: alignment and odd tails.",
  },
  __hmax: {
    kind: "intrinsic",
    signature: "__half __hmax(__half a, __half b)",
    meaning: "Maximum of two halves; if one is NaN the other is returned, and +0.0 counts above -0.0.",
    availability:
      "cuda_fp16.h, host and device on all architectures in CUDA 13 (one `max.f16` instruction on sm_80+, emulated with comparisons before).",
    pitfall:
      "Older toolkits declared it only for sm_80+, so the same code built for T4 (sm_75) with them did not compile.",
  },
  __habs: {
    kind: "intrinsic",
    signature: "__half __habs(__half a)",
    meaning: "Absolute value of a half.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Keeps NaN as NaN.",
  },
  // BF16 (cuda_bf16.h)
  __nv_bfloat16: {
    kind: "type",
    signature: "struct __nv_bfloat16  (cuda_bf16.h)",
    meaning: "bfloat16: 1 sign, 8 exponent, 7 mantissa bits: float's range with ~3 significant digits.",
    availability:
      "Native arithmetic and conversions on sm_80+ (A100, H100); on sm_75 (T4) most bf16 intrinsics are missing or emulated.",
    pitfall:
      "Building for T4 (sm_75) breaks on bf16 intrinsics unless guarded by `#if __CUDA_ARCH__ >= 800`. Operators fail under `-D__CUDA_NO_BFLOAT16_OPERATORS__` (PyTorch sets it).",
  },
  __nv_bfloat162: {
    kind: "type",
    signature: "struct __nv_bfloat162  (cuda_bf16.h)",
    meaning: "Two bf16 values in 32 bits for paired instructions.",
    availability: "sm_80+ for arithmetic.",
    pitfall: "As `__half2`: 4-byte alignment and an even element count.",
  },
  __float2bfloat16: {
    kind: "intrinsic",
    signature: "__nv_bfloat16 __float2bfloat16(float a)   (also _rn, _rz)",
    meaning: "Converts float to bf16, rounding to nearest even.",
    availability: "cuda_bf16.h; hardware conversion on sm_80+, emulated before.",
    pitfall: "Truncating bit tricks (`>> 16`) round toward zero and bias results; use the intrinsic.",
  },
  __bfloat162float: {
    kind: "intrinsic",
    signature: "float __bfloat162float(__nv_bfloat16 a)",
    meaning: "Converts bf16 to float exactly.",
    availability: "cuda_bf16.h; all architectures the header supports.",
    pitfall: "Do the math in float and convert back once per element.",
  },
  __float22bfloat162_rn: {
    kind: "intrinsic",
    signature: "__nv_bfloat162 __float22bfloat162_rn(float2 a)",
    meaning: "Packs a float2 into a bf16 pair.",
    availability: "cuda_bf16.h; sm_80+ native.",
    pitfall: "Guard with `__CUDA_ARCH__ >= 800` when also building for sm_75.",
  },
  __bfloat1622float2: {
    kind: "intrinsic",
    signature: "float2 __bfloat1622float2(__nv_bfloat162 a)",
    meaning: "Unpacks a bf16 pair into a float2.",
    availability: "cuda_bf16.h.",
    pitfall: "`.x` is the low element.",
  },
};
