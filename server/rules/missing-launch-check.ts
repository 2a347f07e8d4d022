// A kernel launch returns nothing: a bad configuration or a missing kernel image is only visible through
// cudaGetLastError(). Unchecked, the output is silently left unwritten.
import type { Rule } from "./rule";
import { enclosingFunctionOf, FileIndex, kernelLaunches } from "./util/fileIndex";

const BUILTIN_CHECKS = ["cudaGetLastError", "cudaPeekAtLastError", "C10_CUDA_KERNEL_LAUNCH_CHECK"];

export const missingLaunchCheck: Rule = {
  id: "missing-launch-check",
  defaultSeverity: "warning",
  summary:
    "A kernel launch with no cudaGetLastError/cudaPeekAtLastError/C10_CUDA_KERNEL_LAUNCH_CHECK after it.",
  check(ctx) {
    const checks = new Set([...BUILTIN_CHECKS, ...ctx.options.launchCheckMacros]);
    const idx = FileIndex.of(ctx);
    const names = [...checks].filter((c) => /^[A-Za-z_]\w*$/.test(c));
    const re = new RegExp(`\\b(${names.join("|")})\\b`, "g");
    const IDENTS = new Set(["identifier"]);
    for (const { call } of kernelLaunches(idx)) {
      // A check anywhere after the launch in the same function (or, at file scope, the rest of the file).
      const fn = enclosingFunctionOf(call);
      const end = fn?.endIndex ?? idx.text.length;
      if (idx.tokens(re, IDENTS, call.endIndex, end).length > 0) continue;
      const name = call.childForFieldName("function")?.text ?? "kernel";
      ctx.report({
        node: call.childForFieldName("function") ?? call,
        message: `Launch of \`${name}\` is not followed by an error check: a failed launch (bad configuration, no kernel image for this GPU) goes unnoticed. Add C10_CUDA_KERNEL_LAUNCH_CHECK() or check cudaGetLastError() after it.`,
      });
    }
  },
};
