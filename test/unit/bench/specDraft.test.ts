import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scanKernels } from "../../../server/bench/kernelScan";
import { draftSpec } from "../../../server/bench/specDraft";
import { benchSpecFindings } from "../../../server/bench/specDiagnostics";

const root = join(__dirname, "../../..");
const sources = [
  ...readdirSync(join(root, "examples"))
    .filter((f) => f.endsWith(".cu"))
    .map((f) => join(root, "examples", f)),
  join(root, "test/fixtures/bench/scale.cu"),
  "/work/shared/fixtures/h200-rmsnorm/rms.cu",
].filter((f) => {
  try {
    readFileSync(f);
    return true;
  } catch {
    return false;
  }
});

test("a drafted spec for every kernel in the examples parses and checks without errors", () => {
  let drafted = 0;
  for (const file of sources) {
    const text = readFileSync(file, "utf8");
    for (const k of scanKernels(text).filter((x) => x.hasBody)) {
      // Insert the draft directly above the declaration, as the code action does, replacing any spec there.
      const lines = text.split("\n").filter((_, i) => !k.specLines.some((s) => s.line === i));
      const decl = k.declLine - k.specLines.filter((s) => s.line < k.declLine).length;
      lines.splice(decl, 0, ...draftSpec(k));
      const errors = benchSpecFindings(lines.join("\n")).filter(
        (f) =>
          f.severity === "error" && f.span.startLine >= decl && f.span.startLine < decl + draftSpec(k).length,
      );
      assert.deepEqual(errors, [], `${file}: ${k.name}\n${draftSpec(k).join("\n")}`);
      drafted++;
    }
  }
  assert.ok(drafted >= 10, `drafted ${drafted}`);
});

test("the draft follows the signature", () => {
  const [k] = scanKernels(
    "template <typename T, int BLOCK>\n__global__ void rms(T* out, const T* in, int rows, int cols, float eps) {}",
  );
  assert.deepEqual(draftSpec(k!), [
    "// @bench rows=[1024, 4096] cols=[4096]",
    "// @bench grid=(cdiv(rows*cols, 256)) block=(256)",
    "// @bench arg out: f32[rows*cols] zeros output",
    "// @bench arg in: f32[rows*cols] randn",
    "// @bench arg rows: i32 = rows",
    "// @bench arg cols: i32 = cols",
    "// @bench arg eps: f32 = 1e-6",
    "// @bench template T=float BLOCK=256",
    "// @bench bytes = 4*rows*cols + 4*rows*cols",
  ]);
});
