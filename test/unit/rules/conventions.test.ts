// The project-convention rules (candle-extern-c, flashrt-kernel-name): off unless .cuda-kernel-dev.toml
// opts in, the suffix table read from the data file and overridden from the TOML, and real candle
// kernels linted through the CLI's file path.
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { configFor } from "../../../server/lint/config";
import { lintSource } from "../../../server/lint/lintDocument";
import { collectCudaFiles, lintFiles } from "../../../server/lint/lintFiles";
import { rules } from "../../../server/rules/index";
import { DEFAULT_SUFFIXES } from "../../../server/rules/conventions";
import { project } from "../lint/project";

const FIXTURES = join(__dirname, "..", "..", "fixtures");
const CANDLE = join(FIXTURES, "corpus", "third_party", "candle", "candle-kernels");
const known = new Set(rules.map((r) => r.id));
const CONVENTION_RULES = new Set(["candle-extern-c", "flashrt-kernel-name"]);

const fixture = (rule: string, file: string): string =>
  readFileSync(join(FIXTURES, "rules", rule, "fires", file), "utf8");

/** Lints files in a throwaway project with `toml` as its .cuda-kernel-dev.toml; the convention findings. */
async function lintProject(toml: string | undefined, files: Record<string, string>): Promise<string[]> {
  const root = project(toml === undefined ? files : { ...files, ".cuda-kernel-dev.toml": toml }, "ckd-conv-");
  try {
    const reports = await lintFiles(collectCudaFiles([root]), { rules, archs: [90] });
    return reports.flatMap((r) =>
      r.findings.filter((f) => CONVENTION_RULES.has(f.rule)).map((f) => `${f.rule}:${f.span.startLine + 1}`),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe("project conventions", () => {
  it("are off by default", async () => {
    for (const [rule, file] of [
      ["candle-extern-c", "custom_op_kernel.cu"],
      ["flashrt-kernel-name", "inplace_two_buffers.cu"],
    ] as const) {
      const found = await lintSource(fixture(rule, file), { rules });
      assert.deepEqual(
        found.filter((f) => CONVENTION_RULES.has(f.rule)),
        [],
      );
    }
    assert.deepEqual(
      await lintProject(undefined, { "k.cu": fixture("candle-extern-c", "custom_op_kernel.cu") }),
      [],
    );
  });

  it("run where .cuda-kernel-dev.toml opts in, each on its own", async () => {
    const files = {
      "a.cu": fixture("candle-extern-c", "custom_op_kernel.cu"),
      "b.cu": fixture("flashrt-kernel-name", "inplace_two_buffers.cu"),
    };
    assert.deepEqual(await lintProject("[conventions]\ncandle = true\n", files), [
      "candle-extern-c:5",
      "candle-extern-c:5",
    ]);
    assert.deepEqual(await lintProject("[conventions]\nflashrt = true\n", files), ["flashrt-kernel-name:5"]);
    assert.deepEqual(await lintProject("[conventions]\ncandle = false\nflashrt = false\n", files), []);
  });

  it("read the suffix table from the data file, with the TOML's entries added, replaced or dropped", async () => {
    assert.deepEqual(Object.keys(DEFAULT_SUFFIXES).sort(), [
      "bf16",
      "bf16out",
      "f32out",
      "fp16",
      "fp8",
      "inplace",
      "noweight",
    ]);
    const kernels = {
      "k.cu": [
        "__global__ void rms_norm_noweight_fp16(const __half* x, const __half* weight, __half* y, int n) {}",
        "__global__ void gemv_fp4(const float* a, float* y, int n) {}",
        "",
      ].join("\n"),
    };
    assert.deepEqual(await lintProject("[conventions]\nflashrt = true\n", kernels), [
      "flashrt-kernel-name:1",
    ]);
    const toml = [
      "[conventions]",
      "flashrt = true",
      "[conventions.flashrt-suffixes]",
      "noweight = false",
      'fp4 = { meaning = "fp4 data", types = ["__nv_fp4_e2m1"] }',
      "",
    ].join("\n");
    assert.deepEqual(await lintProject(toml, kernels), ["flashrt-kernel-name:2"]);
  });
});

describe("project conventions: the [conventions] table", () => {
  it("reports what is wrong and keeps the valid parts", () => {
    const root = project(
      {
        ".cuda-kernel-dev.toml": [
          "[conventions]",
          'candle = "yes"',
          "flashrt = true",
          "pytorch = true",
          "[conventions.flashrt-suffixes]",
          "fp4 = { meaning = 'fp4' }",
          "nvfp4 = 3",
          "",
        ].join("\n"),
      },
      "ckd-conv-",
    );
    try {
      const c = configFor(join(root, "k.cu"), known, root);
      assert.equal(c.conventions?.candle, undefined);
      assert.deepEqual(
        Object.keys(c.conventions?.flashrt ?? {}).sort(),
        Object.keys(DEFAULT_SUFFIXES).sort(),
      );
      assert.equal(c.problems.length, 4, c.problems.join("\n"));
      assert.match(c.problems.join("\n"), /candle must be true or false/);
      assert.match(c.problems.join("\n"), /unknown convention "pytorch"/);
      assert.match(c.problems.join("\n"), /fp4: says nothing to check/);
      assert.match(c.problems.join("\n"), /nvfp4: expected a table/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("candle-extern-c on real candle kernels", () => {
  it('finds none in candle\'s own kernels, and each kernel once extern "C" is dropped', async () => {
    const reports = await lintFiles(collectCudaFiles([CANDLE]), { rules, archs: [80] });
    assert.ok(reports.length >= 5, `${reports.length} candle files`);
    assert.ok(
      reports.every((r) => r.findings.every((f) => f.rule !== "candle-extern-c")),
      "a real candle kernel was reported",
    );
    // candle-kernels/src/fill.cu with extern "C" dropped: the five kernels at the top are reported (the
    // ones after a semicolon-less macro call like `COPY2D_OP(__half, copy2d_f16)` may be swallowed by it).
    const fill = readFileSync(join(CANDLE, "src", "fill.cu"), "utf8");
    const stripped = fill.replace(/^extern "C" __global__/gm, "__global__");
    const found = await lintProject("[conventions]\ncandle = true\n", { "fill.cu": stripped });
    for (const line of [11, 12, 13, 14, 15])
      assert.ok(found.includes(`candle-extern-c:${line}`), found.join(", "));
  });
});
