// A thread-strided loop moving global FP32 data one float at a time: bandwidth-bound kernels (norms,
// activations, softmax) load four floats per instruction with float4 (the seeds' "FP32 vectorization
// using float4"), a quarter of the load/store instructions for the same bytes.
import type { Rule } from "./rule";
import { codeSlice } from "../analysis/source/codeText";
import { FileIndex } from "../analysis/source/fileIndex";
import { floatStreams } from "../analysis/loops/floatStreams";

export const scalarFloatAccess: Rule = {
  id: "scalar-float-access",
  defaultSeverity: "warning",
  basis: "heuristic",
  shippedCodeOnly: true,
  summary:
    "A block- or grid-stride loop reads or writes global float elements one at a time; load float4 (four per access).",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    for (const f of idx.deviceFunctions()) {
      // Without a float, a thread index and a `+=` step in its raw text, a function has no such loop.
      const raw = idx.text.slice(f.start, f.end);
      if (!raw.includes("float") || !raw.includes("threadIdx") || !raw.includes("+=")) continue;
      for (const { access, pointer } of floatStreams(f.body, codeSlice(idx, f.start, f.end)))
        ctx.report({
          node: access,
          message: `\`${pointer}\` is read or written one float (4 bytes) per iteration of this thread-strided loop. Load float4 (reinterpret_cast<const float4*>, four elements per access) where the length is a multiple of 4 and the pointer 16-byte aligned, with a scalar loop for the tail.`,
        });
    }
  },
};
