// Helpers of the uniformity analysis' tests (uniformity.test.ts, uniformityPaths.test.ts).
import assert from "node:assert/strict";
import { parseSource } from "../../../server/lint/lintDocument";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { Uniformity } from "../../../server/analysis/uniformity/uniformity";

/** Each condition around each barrier of the file's first function, `cond: varying|uniform`. */
export async function conditions(src: string): Promise<string[]> {
  const idx = FileIndex.begin(await parseSource(src), src);
  const fn = idx.deviceFunctions()[0]!;
  const u = Uniformity.of(idx, fn);
  assert.equal(Uniformity.of(idx, fn), u, "one analysis per function and run");
  const seen = new Set<number>();
  const out: string[] = [];
  for (const b of u.barriers)
    for (const k of b.controls) {
      if (seen.has(k.cond.id)) continue;
      seen.add(k.cond.id);
      out.push(`${k.cond.text.replace(/^\((.*)\)$/s, "$1")}: ${u.varies(k.deps) ? "varying" : "uniform"}`);
    }
  return out;
}

export const kernel = (body: string, params = "const float* in, int n, P p"): string =>
  `template <int N> __global__ void k(${params}) {\n${body}\n}`;
