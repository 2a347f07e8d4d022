// A kernel launch returns nothing: a bad configuration or a missing kernel image is only visible through
// cudaGetLastError(). Unchecked, the output is silently left unwritten.
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { descendants, enclosingFunction, launchConfig } from "./util/nodes";

const BUILTIN_CHECKS = ["cudaGetLastError", "cudaPeekAtLastError", "C10_CUDA_KERNEL_LAUNCH_CHECK"];

export const missingLaunchCheck: Rule = {
  id: "missing-launch-check",
  defaultSeverity: "warning",
  summary:
    "A kernel launch with no cudaGetLastError/cudaPeekAtLastError/C10_CUDA_KERNEL_LAUNCH_CHECK after it.",
  check(ctx) {
    const checks = new Set([...BUILTIN_CHECKS, ...ctx.options.launchCheckMacros]);
    const root = ctx.tree.rootNode;
    // Positions of every check call/mention, per function.
    const checkAt = new Map<number, number[]>();
    for (const id of descendants(root, "identifier")) {
      if (!checks.has(id.text)) continue;
      const fn = enclosingFunction(id);
      const key = fn?.id ?? -1;
      const list = checkAt.get(key) ?? [];
      list.push(id.startIndex);
      checkAt.set(key, list);
    }
    for (const call of descendants(root, "call_expression")) {
      if (!launchConfig(call)) continue;
      const fn: Node | undefined = enclosingFunction(call);
      const after = (checkAt.get(fn?.id ?? -1) ?? []).some((i) => i >= call.endIndex);
      if (after) continue;
      const name = call.childForFieldName("function")?.text ?? "kernel";
      ctx.report({
        node: call.childForFieldName("function") ?? call,
        message: `Launch of \`${name}\` is not followed by an error check: a failed launch (bad configuration, no kernel image for this GPU) goes unnoticed. Add C10_CUDA_KERNEL_LAUNCH_CHECK() or check cudaGetLastError() after it.`,
      });
    }
  },
};
