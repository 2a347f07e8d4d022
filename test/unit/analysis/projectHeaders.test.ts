// Launch-check macros and half-type aliases from the project's own headers: `#include "…"` resolved
// against the file's folder and its ancestors, never above the header root.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lintSource } from "../../../server/lint/lintDocument";
import { rules } from "../../../server/rules/index";
import { clearHeaderCache } from "../../../server/analysis/preprocessor/projectHeaders";
import { tempDir } from "../../support/tempDir";

/** A project: `include/` headers, sources in `src/kernels/`; returns the root and the source path. */
function project(headers: Record<string, string>): { root: string; file: string } {
  const root = tempDir("ckd-headers-");
  mkdirSync(join(root, "src", "kernels"), { recursive: true });
  for (const [name, text] of Object.entries(headers)) writeFileSync(join(root, name), text);
  clearHeaderCache();
  return { root, file: join(root, "src", "kernels", "k.cu") };
}

const LAUNCH = `#include "check.h"
__global__ void fill(float* y);
void run(float* y) {
  fill<<<4, 256>>>(y);
  CHECK_KERNEL_LAUNCH();
}
`;

/** The same launch in a program (main): only there is a launch with no check it can see its own to report. */
const LAUNCH_PROGRAM = `${LAUNCH}int main() { return 0; }
`;

async function findings(text: string, fileName: string, headerRoot?: string): Promise<string[]> {
  const found = await lintSource(text, {
    rules,
    fileName,
    ruleOptions: { launchCheckMacros: [], headerRoot },
  });
  return found.map((f) => `${f.rule}@${f.span.startLine}`);
}

describe("project headers", () => {
  it("a macro in an ancestor folder's header that expands to cudaGetLastError checks the launch", async () => {
    const { root, file } = project({
      "check.h":
        "#define CUDA_OK(x) do { if ((x) != cudaSuccess) abort(); } while (0)\n#define CHECK_KERNEL_LAUNCH() CUDA_OK(cudaGetLastError())\n",
    });
    assert.deepEqual(await findings(LAUNCH, file, root), []);
  });

  it("a header above the root is not read: the launch stays unchecked", async () => {
    const { root, file } = project({ "check.h": "#define CHECK_KERNEL_LAUNCH() cudaGetLastError()\n" });
    assert.deepEqual(await findings(LAUNCH_PROGRAM, file, join(root, "src")), ["missing-launch-check@3"]);
  });

  it("a commented-out definition is not read", async () => {
    const { root, file } = project({ "check.h": "// #define CHECK_KERNEL_LAUNCH() cudaGetLastError()\n" });
    assert.deepEqual(await findings(LAUNCH_PROGRAM, file, root), ["missing-launch-check@3"]);
  });

  it("a typedef of __nv_bfloat16 in an included header types a scalar loop's pointer", async () => {
    const { root, file } = project({ "common.h": "#include <cuda_bf16.h>\ntypedef __nv_bfloat16 floatX;\n" });
    const src = `#include "common.h"
__global__ void sum(float* out, const floatX* x, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += (float)x[i];
  out[0] = s;
}
`;
    assert.deepEqual(await findings(src, file, root), ["scalar-half-access@3"]);
  });
});
