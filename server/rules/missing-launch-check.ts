// A kernel launch returns nothing: a bad configuration or a missing kernel image is only visible through
// cudaGetLastError(). Unchecked, the output is silently left unwritten.
import type { Node } from "web-tree-sitter";
import type { Rule, TextEdit } from "./rule";
import { enclosingFunctionOf, FileIndex, kernelLaunches } from "./util/fileIndex";
import { insertAfter } from "./util/nodes";

const BUILTIN_CHECKS = ["cudaGetLastError", "cudaPeekAtLastError", "C10_CUDA_KERNEL_LAUNCH_CHECK"];

/** A PyTorch extension: only there is the check macro known to exist (the fix inserts it). */
export const USES_TORCH = /C10_CUDA_KERNEL_LAUNCH_CHECK|#\s*include\s*[<"](c10\/cuda\/|ATen\/cuda\/|torch\/)/;

/** Inserts after the statement, or after its line when only a trailing comment follows it there. */
function afterLine(text: string, stmt: Node, newText: string): TextEdit {
  const nl = text.indexOf("\n", stmt.endIndex);
  const rest = text.slice(stmt.endIndex, nl < 0 ? text.length : nl).replace(/\r$/, "");
  if (!/^\s*(\/\/.*)?$/.test(rest)) return insertAfter(stmt, newText);
  const { row, column } = stmt.endPosition;
  const at = column + rest.length;
  return { span: { startLine: row, startColumn: at, endLine: row, endColumn: at }, newText };
}

export const missingLaunchCheck: Rule = {
  id: "missing-launch-check",
  defaultSeverity: "warning",
  summary:
    "A kernel launch with no cudaGetLastError/cudaPeekAtLastError/C10_CUDA_KERNEL_LAUNCH_CHECK after it.",
  check(ctx) {
    const checks = new Set([...BUILTIN_CHECKS, ...ctx.options.launchCheckMacros]);
    const idx = FileIndex.of(ctx);
    const usesTorch = USES_TORCH.test(idx.text);
    const names = [...checks].filter((c) => /^[A-Za-z_]\w*$/.test(c));
    const re = new RegExp(`\\b(${names.join("|")})\\b`, "g");
    const IDENTS = new Set(["identifier"]);
    for (const { call } of kernelLaunches(idx)) {
      // A check anywhere after the launch in the same function (or, at file scope, the rest of the file).
      const fn = enclosingFunctionOf(call);
      if (!fn) idx.facts.fileWide = true;
      const end = fn?.endIndex ?? idx.text.length;
      if (idx.tokens(re, IDENTS, call.endIndex, end).length > 0) continue;
      const name = call.childForFieldName("function")?.text ?? "kernel";
      const stmt = call.parent?.type === "expression_statement" ? call.parent : undefined;
      const lineStart = idx.text.lastIndexOf("\n", call.startIndex) + 1;
      const indent = /^[ \t]*/.exec(idx.text.slice(lineStart))![0];
      ctx.report({
        // Only in PyTorch extensions is the check macro known to exist; elsewhere the project picks its check.
        fixes:
          stmt && usesTorch
            ? [
                {
                  title: "Add C10_CUDA_KERNEL_LAUNCH_CHECK() after the launch",
                  isPreferred: true,
                  edits: [afterLine(idx.text, stmt, `\n${indent}C10_CUDA_KERNEL_LAUNCH_CHECK();`)],
                },
              ]
            : [],
        node: call.childForFieldName("function") ?? call,
        message: `Launch of \`${name}\` is not followed by an error check: a failed launch (bad configuration, no kernel image for this GPU) goes unnoticed. Add C10_CUDA_KERNEL_LAUNCH_CHECK() or check cudaGetLastError() after it.`,
      });
    }
  },
};
