// A loop moving global FP16/BF16 data two bytes at a time: memory-bound kernels reach a fraction of peak
// bandwidth that way; __half2/__nv_bfloat162 (4 B) or 16-byte vectors move the same data in fewer transactions.
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { HalfScope, isPairKind } from "./util/halfTypes";
import { ancestors, descendants, enclosingFunction, isDeviceCode } from "./util/nodes";

const LOOPS: ReadonlySet<string> = new Set([
  "for_statement",
  "while_statement",
  "do_statement",
  "for_range_loop",
]);
const VECTOR_TYPES =
  /\b(__half2|half2|__nv_bfloat162|nv_bfloat162|float2|float4|int2|int4|uint2|uint4|ulonglong2|longlong2)\b/;

function innermostLoop(node: Node, fn: Node): Node | undefined {
  for (const a of ancestors(node, fn)) if (LOOPS.has(a.type)) return a;
  return undefined;
}

export const scalarHalfAccess: Rule = {
  id: "scalar-half-access",
  defaultSeverity: "warning",
  summary:
    "A loop reads or writes global __half/__nv_bfloat16 elements one at a time; use 2-wide or 16-byte vector access.",
  check(ctx) {
    const root = ctx.tree.rootNode;
    const fileScope = new HalfScope(
      ...root.namedChildren.filter((n): n is Node => n?.type === "declaration"),
    );
    const reportedLoops = new Set<number>();
    for (const fn of descendants(root, "function_definition")) {
      if (!isDeviceCode(fn)) continue;
      const body = fn.childForFieldName("body");
      if (!body) continue;
      // A function that already vectorizes has its scalar loop as the odd-length tail.
      if (VECTOR_TYPES.test(body.text)) continue;
      const scope = new HalfScope(fn);
      for (const sub of descendants(body, "subscript_expression")) {
        const arg = sub.childForFieldName("argument");
        if (!arg || arg.type !== "identifier") continue;
        const t = scope.lookup(arg.text) ?? fileScope.lookup(arg.text);
        if (!t || t.indirection !== 1 || t.array || t.shared || isPairKind(t.kind)) continue;
        if (enclosingFunction(sub)?.id !== fn.id) continue;
        const loop = innermostLoop(sub, fn);
        if (!loop || reportedLoops.has(loop.id)) continue;
        reportedLoops.add(loop.id);
        const pair = t.kind === "half" ? "__half2" : "__nv_bfloat162";
        ctx.report({
          node: sub,
          message: `\`${arg.text}\` is read or written one ${t.kind === "half" ? "__half" : "__nv_bfloat16"} (2 bytes) per iteration. Load ${pair} pairs (reinterpret_cast<const ${pair}*>) or 16-byte vectors (float4/uint4, 8 elements) to use the memory bandwidth.`,
        });
      }
    }
  },
};
