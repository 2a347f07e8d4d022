// types/fp16Versions.ts: a function with an FP16 version beside it (specialization or overload), and the
// uses: fact that makes a relint see a sibling added or removed.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseSource } from "../../../server/lint/lintDocument";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { hasFp16Version } from "../../../server/analysis/types/fp16Versions";

/** hasFp16Version for each device function, by the line it starts on, and the facts the question read. */
async function versions(lines: string[]): Promise<{ answers: string[]; facts: string[] }> {
  const text = lines.join("\n");
  const idx = FileIndex.of({ tree: await parseSource(text), text });
  const answers: string[] = [];
  const facts = idx.deps.record(() => {
    for (const fn of idx.deviceFunctions())
      answers.push(`${text.slice(0, fn.start).split("\n").length}:${hasFp16Version(idx, fn)}`);
  });
  return { answers, facts: [...facts].sort() };
}

describe("hasFp16Version", () => {
  it("an overload with a half sibling and a template<> specialization have one; a lone BF16 function has none", async () => {
    const { answers, facts } = await versions([
      "__device__ float act(__nv_bfloat16 x) { return __bfloat162float(x) * 2.f; }",
      "__device__ float act(__half x) { return __half2float(x) * 2.f; }",
      "template <typename T> __device__ T twice(T x);",
      "template <> __device__ __nv_bfloat16 twice(__nv_bfloat16 x) { return __hmul(x, x); }",
      "__device__ float lone(__nv_bfloat16 x) { return __bfloat162float(x); }",
    ]);
    assert.deepEqual(answers, ["1:true", "2:true", "4:true", "5:false"]);
    // The overloads' answers depend on where their names are written; the specialization's does not.
    assert.deepEqual(facts, ["uses:act", "uses:lone"]);
  });
});
