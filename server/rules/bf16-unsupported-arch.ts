// BF16 in device code while a pre-Ampere target (T4 = sm_75) is built. Such GPUs have no BF16 units, so
// the code must sit behind `#if __CUDA_ARCH__ >= 800` (or the kernel should use __half there).
import type { Node } from "web-tree-sitter";
import type { Rule, TextEdit } from "./rule";
import { archOffRanges, inRanges } from "../analysis/preprocessor/archGuard";
import { isWordCode } from "../analysis/source/charCodes";
import { FileIndex, type FunctionInfo } from "../analysis/source/fileIndex";
import { insertAfter, insertBefore } from "../analysis/source/nodes";

/** The BF16 scalar type (also written `__nv_bfloat16`), as a tensor-core fragment's element type. */
const BF16 = "nv_bfloat16";

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
 * BF16 types and conversions compile for every architecture: cuda_bf16.hpp gives each intrinsic
 * (conversions, arithmetic, comparisons, atomicAdd) a software path below sm_80 (NV_IF_ELSE_TARGET).
 * What has none is BF16 on the tensor cores: mma.h declares the `wmma::fragment<…, __nv_bfloat16, …>`
 * specialisations only under `__CUDA_ARCH__ >= 800`. Those fragments in device function bodies outside
 * the ranges `offRanges` gives (asked only when there is such a fragment).
 */
function unguardedUses(
  idx: FileIndex,
  offRanges: () => readonly [number, number][],
): { fn: FunctionInfo; node: Node }[] {
  const uses: { fn: FunctionInfo; node: Node }[] = [];
  // The template naming `fragment` holds the type and lies inside its function, before it: where no
  // `fragment` is written in the function before the type, the tree need not be asked.
  const firstFragment = new Map<number, number>();
  let off: readonly [number, number][] | undefined;
  const { text, window } = idx;
  // What `\b(__nv_bfloat16|nv_bfloat16)\b` matches in the window, found by indexOf (a regex scan makes a
  // match array per match) of its `bfloat` (V8 builds Boyer-Moore tables at every search for a longer
  // string): the type ends at `end` = p + 11.
  for (
    let q = text.indexOf("bfloat", window.start + 3);
    q >= 0 && q < window.end + 5;
    q = text.indexOf("bfloat", q + 1)
  ) {
    const p = q - 3;
    if (!text.startsWith(BF16, p)) continue;
    const end = p + BF16.length;
    if (isWordCode(text.charCodeAt(end))) continue;
    const at = !isWordCode(text.charCodeAt(p - 1))
      ? p
      : text.startsWith("__", p - 2) && !isWordCode(text.charCodeAt(p - 3))
        ? p - 2
        : -1;
    if (at < window.start) continue;
    if (at >= window.end) break;
    // Parameter lists are the host interface of a kernel; only the body is compiled per arch.
    const fn = idx.deviceFunctionAt(at);
    if (!fn) continue;
    let first = firstFragment.get(fn.start);
    if (first === undefined) {
      // Within the function only (a slice): a search of the whole text costs more than the rule, per edit.
      const at = idx.text.slice(fn.start, fn.end).indexOf("fragment");
      first = at < 0 ? fn.end : fn.start + at;
      firstFragment.set(fn.start, first);
    }
    if (first >= at) continue;
    off ??= offRanges();
    if (inRanges(at, off)) continue;
    const n = idx.nodeAt(at, end);
    if (n.type !== "type_identifier" || n.startIndex !== at) continue;
    const args = n.parent?.type === "type_descriptor" ? n.parent.parent : undefined;
    const template = args?.type === "template_argument_list" ? args.parent : undefined;
    const name = template?.childForFieldName("name")?.text ?? "";
    if (/(^|::)fragment$/.test(name)) uses.push({ fn, node: n });
  }
  return uses;
}

export const bf16UnsupportedArch: Rule = {
  id: "bf16-unsupported-arch",
  defaultSeverity: "error",
  basis: "does-not-compile",
  archDependent: true,
  summary:
    "BF16 used in device code while a target below sm_80 is built, outside an `#if __CUDA_ARCH__ >= 800` guard.",
  check(ctx) {
    const low = ctx.targets.filter((t) => t < 80);
    if (low.length === 0) return;
    const lowText = low.map((t) => `sm_${t}`).join(", ");
    const idx = FileIndex.of(ctx);

    // The cuda_bf16.h include itself is not reported: the header compiles for every architecture.
    // Every unguarded use in a device function body (kernels, __device__ functions); the fix once per function.
    const reportedFns = new Set<number>();
    for (const { fn, node: n } of unguardedUses(idx, () => archOffRanges(idx, low, ctx.build))) {
      const stmts = bodyStatements(fn.node);
      const first = !reportedFns.has(fn.node.id);
      reportedFns.add(fn.node.id);
      ctx.report({
        node: n,
        message: `A \`${n.text}\` WMMA fragment needs sm_80 tensor cores, which ${lowText} does not have (mma.h declares it only for __CUDA_ARCH__ >= 800); guard it with \`#if __CUDA_ARCH__ >= 800\` or use __half fragments for those targets.`,
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
