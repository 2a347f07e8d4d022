// The BF16-arithmetic analysis (server/analysis/types/bf16Arithmetic.ts): which operations in device code
// compute on BF16 values (the sites bf16-emulated-arch reports on pre-Ampere targets).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lintSource } from "../../../server/lint/lintDocument";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { bf16Arithmetic } from "../../../server/analysis/types/bf16Arithmetic";
import { declEnv } from "../../../server/analysis/types/declEnv";
import { halfDecls } from "../../../server/analysis/types/halfDecls";
import type { Rule } from "../../../server/rules/rule";

/** The sites in `text` as `line: what (kind)`. */
async function sites(text: string): Promise<string[]> {
  let out: string[] = [];
  const probe: Rule = {
    id: "probe",
    defaultSeverity: "information",
    basis: "needs-context",
    summary: "",
    check(ctx) {
      const idx = FileIndex.of(ctx);
      out = bf16Arithmetic(idx, halfDecls(idx, declEnv(ctx))).map(
        (s) => `${s.node.startPosition.row + 1}: ${s.what} (${s.kind})`,
      );
    },
  };
  await lintSource(text, { rules: [probe], targets: [75] });
  return out;
}

describe("bf16Arithmetic", () => {
  it("finds operators and intrinsics on BF16 values, not conversions or float math", async () => {
    const text = [
      "__device__ float f(__nv_bfloat16 a, __nv_bfloat162 p, const __nv_bfloat16* x, float y) {",
      "  __nv_bfloat16 b = __hmul(a, x[0]);",
      "  p = p + p;",
      "  float c = __bfloat162float(a) * y;",
      "  b += a;",
      "  __half h = __float2half(y); h = __hadd(h, h);",
      "  return c + __bfloat162float(hexp(b));",
      "}",
    ].join("\n");
    assert.deepEqual(await sites(text), [
      "2: __hmul() (bf16)",
      "3: `+` (bf162)",
      "5: `+=` (bf16)",
      "7: hexp() (bf16)",
    ]);
  });

  it("reads device code only, and a BF16 alias counts", async () => {
    const text = [
      "typedef __nv_bfloat16 bf16_t;",
      "float host(bf16_t a) { return __bfloat162float(__hadd(a, a)); }",
      "__global__ void k(bf16_t* x) { x[0] = -x[1]; }",
    ].join("\n");
    assert.deepEqual(await sites(text), ["3: `-` (bf16)"]);
  });
});
