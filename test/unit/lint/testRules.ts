// Small rules for engine tests, independent of the real rule set.
import type { Node } from "web-tree-sitter";
import type { Rule } from "../../../server/rules/rule";

function calls(root: Node, name: string): Node[] {
  return root
    .descendantsOfType("call_expression")
    .filter((c): c is Node => c?.childForFieldName("function")?.text === name);
}

/** Flags every `__shfl(` call; its fix renames it to `__shfl_sync(0xffffffff, `. */
export const shflRule: Rule = {
  id: "test-shfl",
  defaultSeverity: "error",
  basis: "does-not-compile",
  summary: "test: __shfl",
  check(ctx) {
    for (const call of calls(ctx.tree.rootNode, "__shfl")) {
      const fn = call.childForFieldName("function")!;
      const args = call.childForFieldName("arguments")!;
      ctx.report({
        node: fn,
        message: `__shfl on sm_${ctx.targets.join(",")}`,
        fixes: [
          {
            title: "use __shfl_sync",
            edits: [
              {
                span: {
                  startLine: fn.startPosition.row,
                  startColumn: fn.startPosition.column,
                  endLine: fn.endPosition.row,
                  endColumn: fn.endPosition.column,
                },
                newText: "__shfl_sync",
              },
              {
                span: {
                  startLine: args.startPosition.row,
                  startColumn: args.startPosition.column + 1,
                  endLine: args.startPosition.row,
                  endColumn: args.startPosition.column + 1,
                },
                newText: "0xffffffff, ",
              },
            ],
          },
        ],
      });
    }
  },
};

/** Flags `__syncthreads()` calls as warnings. */
export const syncRule: Rule = {
  id: "test-sync",
  defaultSeverity: "warning",
  basis: "heuristic",
  summary: "test: __syncthreads",
  check(ctx) {
    for (const call of calls(ctx.tree.rootNode, "__syncthreads")) ctx.report({ node: call, message: "sync" });
  },
};

/** Always throws: the engine must isolate it. */
export const throwingRule: Rule = {
  id: "test-throws",
  defaultSeverity: "error",
  basis: "does-not-compile",
  summary: "test: throws",
  check() {
    throw new Error("boom");
  },
};
