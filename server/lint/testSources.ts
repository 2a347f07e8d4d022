// Is a file a test's source? Rules whose findings are about speed or about sizes only a shipped kernel
// meets (`Rule.shippedCodeOnly`: vectorized access, warp-shuffle reductions, 64-bit indexes) do not run
// on it: a test's kernel is sized by the test and often scalar on purpose (it checks a per-element
// routine). Rules about correctness (launch checks, barriers, shuffles, conversions) still do.
// A test source is named so: `foo_test.cu`, `test_foo.cu`, `foo.test.cu`, `foo_tests.cu`, `foo_unittest.cu`
// (Google Test's and pytest's conventions, which CUDA projects follow).
// Cannot see: tests named otherwise, or told apart only by their folder (`tests/helpers.cu`): folder
// names depend on where the project starts, which a path alone does not say; benchmarks (their kernels
// are often the ones to make fast).
import { basename } from "node:path";

const TEST_NAME = /^(?:test_.+|.+[_.](?:test|tests|unittest))\.(?:cu|cuh)$/i;

export function isTestSource(fileName: string): boolean {
  return TEST_NAME.test(basename(fileName));
}
