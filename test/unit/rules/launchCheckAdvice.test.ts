// What missing-launch-check suggests, by the PyTorch API the file uses (source/pytorchExtension.ts) and
// by its build: c10's macro, the stable ABI's, both when only the build says it is an extension, and
// neither outside PyTorch.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { STANDALONE_BUILD } from "../../../server/lint/engine";
import { lintSource } from "../../../server/lint/lintDocument";
import { rules } from "../../../server/rules/index";
import type { BuildFacts, Finding } from "../../../server/rules/rule";

const LAUNCH = `__global__ void k(float* y);
void run(float* y, cudaStream_t s) {
  k<<<1, 32, 0, s>>>(y);
}
int main() { return 0; }
`;

async function advice(head: string, build: BuildFacts = STANDALONE_BUILD): Promise<Finding> {
  const found = await lintSource(head + LAUNCH, { rules, targets: [90], build });
  const mlc = found.filter((f) => f.rule === "missing-launch-check");
  assert.equal(mlc.length, 1);
  return mlc[0]!;
}

describe("missing-launch-check's advice", () => {
  it("c10's macro, with its quick fix, where the file includes c10's headers", async () => {
    const f = await advice("#include <c10/cuda/CUDAException.h>\n");
    assert.match(f.message, /Add C10_CUDA_KERNEL_LAUNCH_CHECK\(\) or check cudaGetLastError\(\)/);
    assert.equal(f.fixes.length, 1);
  });
  it("the stable ABI's macro where the file is on the stable ABI, with no quick fix", async () => {
    for (const head of [
      "#include <torch/csrc/stable/tensor.h>\n",
      "#include <torch/headeronly/core/ScalarType.h>\n",
      "void f(const torch::stable::Tensor& t) { STD_TORCH_CHECK(t.is_cuda()); }\n",
    ]) {
      const f = await advice(head);
      assert.match(f.message, /Add STD_CUDA_KERNEL_LAUNCH_CHECK\(\) \(PyTorch's stable ABI\)/, head);
      assert.doesNotMatch(f.message, /C10_/, head);
      assert.deepEqual(f.fixes, [], head);
    }
  });
  it("both where only the build makes it an extension (its text does not say which API)", async () => {
    const f = await advice("", { ...STANDALONE_BUILD, pytorch: true });
    assert.match(f.message, /C10_CUDA_KERNEL_LAUNCH_CHECK\(\) \(STD_CUDA_KERNEL_LAUNCH_CHECK\(\) on/);
    assert.deepEqual(f.fixes, []);
  });
  it("neither outside PyTorch", async () => {
    const plain = await advice("#include <cuda_runtime.h>\n");
    assert.equal(plain.message.endsWith("Check cudaGetLastError() after it."), true);
    assert.doesNotMatch(plain.message, /C10_|STD_/);
  });
  it("the project's check that reads the last error, never a class whose constructor only resets it", async () => {
    const head = `struct Pinned {
  float* host = nullptr;
  explicit Pinned(size_t n) { if (cudaMallocHost(&host, n) != cudaSuccess) { cudaGetLastError(); } }
};
namespace gl { struct Texture { struct Mapping { Mapping(int id); }; }; }
gl::Texture::Mapping::Mapping(int id) { if (id < 0) (void)cudaGetLastError(); }
static void clear_errors() { cudaGetLastError(); }
static void check_launch() { if (cudaGetLastError() != cudaSuccess) abort(); }
void other(float* y) { k<<<1, 32>>>(y); check_launch(); }
`;
    const f = await advice(head);
    assert.match(f.message, /the project's `check_launch`/);
    // Without a check that reads the result, the plain advice.
    const resets = head.replace(/static void check_launch.*\n.*\n/, "");
    const plain = await advice(resets);
    assert.equal(plain.message.endsWith("Check cudaGetLastError() after it."), true, plain.message);
  });
});
