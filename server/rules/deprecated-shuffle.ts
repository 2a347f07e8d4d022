// Warp intrinsics without `_sync`: removed for sm_70+ (independent thread scheduling), so they either fail
// to compile or read lanes that have not converged.
import type { Rule } from "./rule";
import { calleeName, callArguments, descendants, insertBefore, replaceNode } from "./util/nodes";

const DEPRECATED: ReadonlySet<string> = new Set([
  "__shfl",
  "__shfl_up",
  "__shfl_down",
  "__shfl_xor",
  "__any",
  "__all",
  "__ballot",
]);

export const deprecatedShuffle: Rule = {
  id: "deprecated-shuffle",
  defaultSeverity: "error",
  summary:
    "Warp shuffle/vote intrinsics without `_sync` do not exist on sm_70+; use the `_sync` form with a mask.",
  check(ctx) {
    for (const call of descendants(ctx.tree.rootNode, "call_expression")) {
      const name = calleeName(call);
      if (!name || !DEPRECATED.has(name)) continue;
      const fn = call.childForFieldName("function");
      if (!fn || fn.type !== "identifier") continue;
      const args = callArguments(call);
      const first = args[0];
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
