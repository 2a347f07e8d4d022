// Warp intrinsics without `_sync`: removed for sm_70+ (independent thread scheduling), so they either fail
// to compile or read lanes that have not converged.
import type { Rule } from "./rule";
import { FileIndex } from "../analysis/source/fileIndex";
import { callArguments, insertBefore, replaceNode } from "../analysis/source/nodes";

const IDENT: ReadonlySet<string> = new Set(["identifier"]);

export const deprecatedShuffle: Rule = {
  id: "deprecated-shuffle",
  defaultSeverity: "error",
  basis: "does-not-compile",
  summary:
    "Warp shuffle/vote intrinsics without `_sync` do not exist on sm_70+; use the `_sync` form with a mask.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    for (const fn of idx.tokens(/\b(__shfl(?:_up|_down|_xor)?|__any|__all|__ballot)\s*\(/g, IDENT)) {
      const call = fn.parent;
      if (call?.type !== "call_expression" || call.childForFieldName("function")?.id !== fn.id) continue;
      const name = idx.textOf(fn);
      const first = callArguments(call)[0];
      const mask = "0xffffffff";
      ctx.report({
        node: fn,
        message: `\`${name}\` has no \`_sync\`: it is not available for sm_70 and later. Use \`${name}_sync(${mask}, …)\` with the mask of lanes taking part.`,
        fixes: first
          ? [
              {
                title: `Use ${name}_sync with a full-warp mask`,
                isPreferred: true,
                edits: [replaceNode(fn, `${name}_sync`), insertBefore(first, `${mask}, `)],
              },
            ]
          : [],
      });
    }
  },
};
