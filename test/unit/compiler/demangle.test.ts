import { test } from "node:test";
import assert from "node:assert/strict";
import { demangle, kernelDisplayName } from "../../../server/compiler/demangle";

// Expected strings are what c++filt prints for these symbols.
const CASES: [string, string][] = [
  [
    "_Z11rmsnorm_vecP13__nv_bfloat16PKS_S2_fi",
    "rmsnorm_vec(__nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, float, int)",
  ],
  ["_Z11sgemm_tiledILi16EEvPKfS1_Pfi", "sgemm_tiled<16>(float const*, float const*, float*, int)"],
  [
    "_ZN4vllm15rms_norm_kernelIN3c104HalfELi8EEEvPT_PKS3_S6_fii",
    "vllm::rms_norm_kernel<c10::Half, 8>(c10::Half*, c10::Half const*, c10::Half const*, float, int, int)",
  ],
  [
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
    "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
  ],
  ["_Z3fooPN12_GLOBAL__N_13BarE", "foo((anonymous namespace)::Bar*)"],
  ["_ZN3cub17CUB_200200_800_NS11EmptyKernelIvEEvv", "cub::CUB_200200_800_NS::EmptyKernel<void>()"],
  ["_Z6kernelIbLb1EEvPT_", "kernel<bool, true>(bool*)"],
  ["_Z4fillPDhjRA4_Ki", "fill(half*, unsigned int, int const (&) [4])"],
];

for (const [symbol, expected] of CASES) {
  void test(`demangles ${symbol}`, () => {
    assert.equal(demangle(symbol)?.signature, expected);
  });
}

void test("C-linkage names and unsupported manglings come back unchanged for display", () => {
  assert.equal(demangle("c_linkage_scale"), undefined);
  assert.equal(kernelDisplayName("c_linkage_scale"), "c_linkage_scale");
  // A parameter pack expansion (Dp) is outside the subset: raw name, not a wrong one.
  assert.equal(kernelDisplayName("_Z6kernelIJifEEvDpT_"), "_Z6kernelIJifEEvDpT_");
});

void test("the display name drops parameters and keeps template arguments", () => {
  assert.equal(kernelDisplayName("_Z11sgemm_tiledILi32EEvPKfS1_Pfi"), "sgemm_tiled<32>");
});
