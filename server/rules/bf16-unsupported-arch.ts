// BF16 in device code while a pre-Ampere target (T4 = sm_75) is built. Such GPUs have no BF16 units, so
// the code must sit behind `#if __CUDA_ARCH__ >= 800` (or the kernel should use __half there).
import type { Node } from "web-tree-sitter";
import type { Rule, TextEdit } from "./rule";
import { archOffRanges, hasBf16Guard, inRanges } from "./util/archGuard";
import { FileIndex, type FunctionInfo } from "./util/fileIndex";
import { insertAfter, insertBefore } from "./util/nodes";

/** BF16 types, and the conversion/arithmetic intrinsics of cuda_bf16.h (as calls). */
const BF16_TOKEN =
  /\b(__nv_bfloat162?|nv_bfloat162?|__(?:float2bfloat16|floats2bfloat162|float22bfloat162|bfloat16|bfloat162|low2bfloat16|high2bfloat16|halves2bfloat162|ushort_as_bfloat16|short_as_bfloat16|int2bfloat16|uint2bfloat16|double2bfloat16)\w*)\b/g;
const TOKEN_TYPES: ReadonlySet<string> = new Set(["type_identifier", "identifier"]);

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

/**
 * BF16 names in device function bodies outside `off`, in functions that call a BF16 intrinsic: a function
 * that only declares and passes BF16 values (a wrapper around guarded helpers, as vLLM writes them) does no
 * BF16 arithmetic of its own.
 */
function unguardedUses(idx: FileIndex, off: readonly [number, number][]): { fn: FunctionInfo; node: Node }[] {
  const uses: { fn: FunctionInfo; node: Node }[] = [];
  const calling = new Set<number>();
  for (const m of idx.scan(BF16_TOKEN)) {
    // Parameter lists are the host interface of a kernel; only the body is compiled per arch.
    const fn = idx.deviceFunctionAt(m.index);
    if (!fn || inRanges(m.index, off)) continue;
    const n = idx.nodeAt(m.index, m.index + m[0].length);
    if (!TOKEN_TYPES.has(n.type) || n.startIndex !== m.index) continue;
    const call = n.type === "identifier" && n.parent?.type === "call_expression";
    if (n.type === "identifier" && !call) continue;
    if (call) calling.add(fn.node.id);
    uses.push({ fn, node: n });
  }
  return uses.filter((u) => calling.has(u.fn.node.id));
}

export const bf16UnsupportedArch: Rule = {
  id: "bf16-unsupported-arch",
  defaultSeverity: "error",
  archDependent: true,
  summary:
    "BF16 used in device code while a target below sm_80 is built, outside an `#if __CUDA_ARCH__ >= 800` guard.",
  check(ctx) {
    const low = ctx.targets.filter((t) => t < 80);
    if (low.length === 0) return;
    const lowText = low.map((t) => `sm_${t}`).join(", ");
    const idx = FileIndex.of(ctx);
    const off = archOffRanges(idx, low, ctx.build);

    // The include is rare: a regex over the whole text only when its name is there at all.
    const includes = idx.text.includes("cuda_bf16.h")
      ? idx.scan(/#[ \t]*include[ \t]*[<"]cuda_bf16\.h[>"]/g)
      : [];
    for (const m of includes) {
      const inc = idx.nodeAt(m.index, m.index + m[0].length);
      if (inc.type !== "preproc_include" || inRanges(inc.startIndex, off) || hasBf16Guard(idx)) continue;
      ctx.report({
        node: inc,
        message: `cuda_bf16.h is included while ${lowText} is a target, and nothing in this file is guarded by \`#if __CUDA_ARCH__ >= 800\`: ${lowText} has no BF16 support.`,
      });
    }

    // Every unguarded use in a device function body (kernels, __device__ functions); the fix once per function.
    const reportedFns = new Set<number>();
    for (const { fn, node: n } of unguardedUses(idx, off)) {
      const stmts = bodyStatements(fn.node);
      const first = !reportedFns.has(fn.node.id);
      reportedFns.add(fn.node.id);
      ctx.report({
        node: n,
        message: `\`${n.text}\` is BF16, which ${lowText} does not support; guard it with \`#if __CUDA_ARCH__ >= 800\` or use __half for those targets.`,
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
