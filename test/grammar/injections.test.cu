// SYNTAX TEST "source.cuda-cpp" "benchmark spec comments and CUDA built-ins, injected into VS Code's CUDA C++ grammar"
// @bench rows=[1024, 8192] cols=[2048, 4096]
// <-- comment.line.double-slash.cuda-cpp meta.bench-spec.cuda-cpp punctuation.definition.comment.cuda-cpp
// ^^^^^^ keyword.control.bench.cuda-cpp
//        ^^^^ variable.parameter.bench-key.cuda-cpp
//            ^ keyword.operator.assignment.cuda-cpp
//              ^^^^ constant.numeric.bench.cuda-cpp
//                          ^^^^ variable.parameter.bench-key.cuda-cpp
// @bench arg out: bf16[rows*cols] output(atol=1e-2, rtol=1e-2)
//        ^^^ keyword.other.bench-item.cuda-cpp
//                                        ^^^^ variable.parameter.bench-key.cuda-cpp
//                                             ^^^^ constant.numeric.bench.cuda-cpp
//            ^^^ comment.line.double-slash.cuda-cpp meta.bench-spec.cuda-cpp - keyword
// @bench timing rsd=0.5 min_samples=10 flush_l2=true
//        ^^^^^^ keyword.other.bench-item.cuda-cpp
//                       ^^^^^^^^^^^ variable.parameter.bench-key.cuda-cpp
//                   ^^^ constant.numeric.bench.cuda-cpp
//                                               ^^^^ constant.language.bench.cuda-cpp
// @bench n = rows*cols
//        ^ variable.parameter.bench-key.cuda-cpp
//          ^ keyword.operator.assignment.cuda-cpp
// a plain comment with key=value is no spec
//                      ^^^ comment.line.double-slash.cuda-cpp - variable.parameter.bench-key.cuda-cpp
__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
//        ^^^^^^^^ variable.language.cuda-builtin.cuda-cpp
//                     ^^^^^^^^ variable.language.cuda-builtin.cuda-cpp
//                                  ^^^^^^^^^ variable.language.cuda-builtin.cuda-cpp
//                              ^ variable.other.property.cuda-builtin.cuda-cpp
  __syncthreads();
// <~~------------- support.function.cuda-builtin.cuda-cpp
  float v = __shfl_xor_sync(0xffffffff, x[i], 16);
//          ^^^^^^^^^^^^^^^ support.function.cuda-builtin.cuda-cpp
  atomicAdd(&x[0], v);
// <~~--------- support.function.cuda-builtin.cuda-cpp
  printf("threadIdx %d __syncthreads", i);
//        ^^^^^^^^^ string.quoted.double.cuda-cpp - variable.language.cuda-builtin.cuda-cpp
//                     ^^^^^^^^^^^^^ string.quoted.double.cuda-cpp - support.function.cuda-builtin.cuda-cpp
  // threadIdx in a comment stays a comment
//   ^^^^^^^^^ comment.line.double-slash.cuda-cpp - variable.language.cuda-builtin.cuda-cpp
}
