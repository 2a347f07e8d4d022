// projectOverloads.ts: whether a call names the project's own function of an intrinsic's name, and
// whether that function takes the call's first argument.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Node } from "web-tree-sitter";
import { parseSource } from "../../../server/lint/lintDocument";
import { STANDALONE_BUILD } from "../../../server/lint/engine";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import type { LintContext } from "../../../server/rules/rule";
import { coversCall, projectFunction } from "../../../server/analysis/types/projectOverloads";

/** For each call of `name` marked `MARK` in `text`: whether the project's function covers it (undefined: none). */
async function covered(text: string, name: string): Promise<(boolean | undefined)[]> {
  const tree = await parseSource(text);
  const ctx: LintContext = {
    tree,
    text,
    fileName: "/nowhere/x.cu",
    targets: [75, 90],
    options: { launchCheckMacros: [] },
    build: STANDALONE_BUILD,
    report: () => undefined,
  };
  const idx = FileIndex.of(ctx);
  const fn = projectFunction(ctx, name);
  const calls: Node[] = [];
  for (let at = text.indexOf("MARK"); at >= 0; at = text.indexOf("MARK", at + 1)) {
    const call = idx.nodeAt(text.lastIndexOf(name, at), text.lastIndexOf(name, at) + name.length).parent!;
    calls.push(call);
  }
  return calls.map((c) => (fn ? coversCall(idx, fn, c) : undefined));
}

describe("projectOverloads: the project's own function of an intrinsic's name", () => {
  it("none defined, or only under a HIP arm: the call is the intrinsic", async () => {
    assert.deepEqual(
      await covered("__device__ float f(float v) { return __shfl_down(v, 1); /*MARK*/ }", "__shfl_down"),
      [undefined],
    );
    const hip = "#ifdef USE_ROCM\n__device__ float __shfl_down(float v, int d);\n#endif\n";
    assert.deepEqual(
      await covered(
        hip + "__device__ float f(float v) { return __shfl_down(v, 1); /*MARK*/ }",
        "__shfl_down",
      ),
      [undefined],
    );
  });
  it("a 16-bit overload takes its family and scalars; a vector overload no scalar", async () => {
    const half =
      "__device__ c10::Half __shfl_up(const c10::Half v, unsigned d) { return __shfl_up(v.operator __half(), d); /*MARK*/ }\n" +
      "__device__ float f(float x, float2 p) { return __shfl_up(x, 1) /*MARK*/ + __shfl_up(p, 1).x; /*MARK*/ }\n";
    assert.deepEqual(await covered(half, "__shfl_up"), [true, true, false]);
    const pair =
      "__device__ float2 __shfl_xor(float2 v, int m);\n__device__ float g(float x, S s) { return __shfl_xor(x, 1) /*MARK*/ + __shfl_xor(s, 1); /*MARK*/ }\n";
    assert.deepEqual(await covered(pair, "__shfl_xor"), [false, true]);
  });
  it("a template parameter takes anything; an argument whose type is not read is covered", async () => {
    const t = "template <typename T> __device__ T __shfl(T v, int l) { return __shfl_sync(~0u, v, l); }\n";
    assert.deepEqual(
      await covered(t + "__device__ float2 g(float2 p) { return __shfl(p, 0); /*MARK*/ }", "__shfl"),
      [true],
    );
    const v =
      "__device__ float2 __shfl(float2 v, int l);\n__device__ float g() { return __shfl(load(), 0); /*MARK*/ }\n";
    assert.deepEqual(await covered(v, "__shfl"), [true]);
  });
});
