// BF16 in device code while a pre-Ampere target (T4 = sm_75) is built. Such GPUs have no BF16 units, so
// the code must sit behind `#if __CUDA_ARCH__ >= 800` (or the kernel should use __half there).
import type { Node } from "web-tree-sitter";
import type { Rule, TextEdit } from "./rule";
import { guardedFrom, hasBf16Guard } from "./util/archGuard";
import { descendants, enclosingFunction, insertAfter, insertBefore, isDeviceCode } from "./util/nodes";

const BF16_TYPES: ReadonlySet<string> = new Set([
  "__nv_bfloat16",
  "__nv_bfloat162",
  "nv_bfloat16",
  "nv_bfloat162",
]);
/** BF16 intrinsics: conversions and arithmetic from cuda_bf16.h. */
const BF16_CALL =
  /^__(float2bfloat16|floats2bfloat162|float22bfloat162|bfloat16|bfloat162|low2bfloat16|high2bfloat16|halves2bfloat162|ushort_as_bfloat16|short_as_bfloat16|bfloat16_as_|int2bfloat16|uint2bfloat16|double2bfloat16)/;

function isBf16Use(n: Node): boolean {
  if (n.type === "type_identifier") return BF16_TYPES.has(n.text);
  if (n.type === "identifier") return BF16_CALL.test(n.text) && n.parent?.type === "call_expression";
  return false;
}

/** The first and last statement of a function body: the span a guard wraps. */
function bodyStatements(fn: Node): { first: Node; last: Node } | undefined {
  const body = fn.childForFieldName("body");
  if (!body || body.namedChildCount === 0) return undefined;
  return { first: body.namedChild(0)!, last: body.namedChild(body.namedChildCount - 1)! };
}

/** `#if` on its own line before the first statement (at column 0 when the statement starts its line). */
function guardOpen(text: string, first: Node): TextEdit {
  const row = first.startPosition.row;
  const lineStart = first.startIndex - first.startPosition.column;
  const indentOnly = /^\s*$/.test(text.slice(lineStart, first.startIndex));
  if (indentOnly)
    return {
      span: { startLine: row, startColumn: 0, endLine: row, endColumn: 0 },
      newText: "#if __CUDA_ARCH__ >= 800\n",
    };
  return insertBefore(first, "\n#if __CUDA_ARCH__ >= 800\n");
}

export const bf16UnsupportedArch: Rule = {
  id: "bf16-unsupported-arch",
  defaultSeverity: "error",
  summary:
    "BF16 used in device code while a target below sm_80 is built, outside an `#if __CUDA_ARCH__ >= 800` guard.",
  check(ctx) {
    const low = ctx.targets.filter((t) => t < 80);
    if (low.length === 0) return;
    const lowText = low.map((t) => `sm_${t}`).join(", ");
    const root = ctx.tree.rootNode;

    for (const inc of descendants(root, "preproc_include")) {
      const path = inc.childForFieldName("path")?.text ?? "";
      if (!/cuda_bf16\.h/.test(path) || guardedFrom(inc, low) || hasBf16Guard(root)) continue;
      ctx.report({
        node: inc,
        message: `cuda_bf16.h is included while ${lowText} is a target, and nothing in this file is guarded by \`#if __CUDA_ARCH__ >= 800\`: ${lowText} has no BF16 support.`,
      });
    }

    // One finding per unguarded statement-level use in device code (kernel bodies, __device__ functions).
    const reportedFns = new Set<number>();
    for (const n of descendants(root, "type_identifier", "identifier")) {
      if (!isBf16Use(n)) continue;
      const fn = enclosingFunction(n);
      if (!fn || !isDeviceCode(fn)) continue;
      const body = fn.childForFieldName("body");
      // Parameter lists are the host interface of a kernel; only the body is compiled per arch.
      if (!body || n.startIndex < body.startIndex || n.endIndex > body.endIndex) continue;
      if (guardedFrom(n, low)) continue;
      const stmts = bodyStatements(fn);
      const first = !reportedFns.has(fn.id);
      reportedFns.add(fn.id);
      ctx.report({
        node: n,
        message: `\`${n.text}\` is BF16, which ${lowText} does not support; guard it with \`#if __CUDA_ARCH__ >= 800\` or use __half for those targets.`,
        // One fix per function: wrapping the whole body keeps the kernel's signature for the host.
        fixes:
          first && stmts
            ? [
                {
                  title: "Guard the function body with #if __CUDA_ARCH__ >= 800",
                  isPreferred: true,
                  edits: [guardOpen(ctx.text, stmts.first), insertAfter(stmts.last, "\n#endif")],
                },
              ]
            : [],
      });
    }
  },
};
