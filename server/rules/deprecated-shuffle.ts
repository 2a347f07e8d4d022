// Warp intrinsics without `_sync`: removed for sm_70+ (independent thread scheduling). With nvcc 13 (and
// any toolkit from CUDA 9 on, for sm_70+) the shuffles are undeclared identifiers and the votes fail in
// ptxas, so each is a compile error wherever the code is compiled for such a target. Arms a CUDA build
// does not compile (`#ifdef USE_ROCM`, a project's HIP switch, `#if DEBUG` defined to 0) are filtered by
// the engine (analysis/preprocessor); a file that includes a header only ROCm ships is HIP code
// (analysis/preprocessor/rocmOnly.ts), where the maskless names are HIP's own. A name the project defines
// itself (an `at::Half __shfl_down(at::Half, unsigned)` kept for its HIP path) is the project's function
// for the calls it covers (analysis/types/projectOverloads.ts).
import type { Rule } from "./rule";
import { FileIndex } from "../analysis/source/fileIndex";
import { rocmOnly } from "../analysis/preprocessor/rocmOnly";
import { callArguments, insertBefore, replaceNode } from "../analysis/source/nodes";
import { argumentType, coversCall, projectFunction, takenTypes } from "../analysis/types/projectOverloads";

const IDENT: ReadonlySet<string> = new Set(["identifier"]);
const VOTES: ReadonlySet<string> = new Set(["__any", "__all", "__ballot"]);

/** Why `name` does not compile for sm_70+, as nvcc says it; `own`: the project's function of that name. */
function why(name: string, own?: { takes: string; arg: string }): string {
  if (own)
    return `\`${name}\` without \`_sync\` is not declared for sm_70 and later, and the project's own \`${name}\` takes ${own.takes}, which this \`${own.arg}\` does not convert to: nvcc finds no matching overload`;
  return VOTES.has(name)
    ? `\`${name}\` without \`_sync\` does not compile for sm_70 and later: ptxas rejects its \`vote\` without \`.sync\` (nvcc only warns that it is deprecated first)`
    : `\`${name}\` without \`_sync\` is not declared for sm_70 and later: nvcc reports it as an undefined identifier`;
}

export const deprecatedShuffle: Rule = {
  id: "deprecated-shuffle",
  defaultSeverity: "error",
  basis: "does-not-compile",
  summary:
    "Warp shuffle/vote intrinsics without `_sync` do not compile for sm_70+; use the `_sync` form with a mask.",
  check(ctx) {
    // Only a toolkit older than CUDA 9 building for targets below sm_70 still accepts them.
    if (!ctx.targets.some((t) => t >= 70)) return;
    const idx = FileIndex.of(ctx);
    // HIP code: no CUDA build compiles the file
    if (rocmOnly(idx)) return;
    for (const fn of idx.tokens(/\b(__shfl(?:_up|_down|_xor)?|__any|__all|__ballot)\s*\(/g, IDENT)) {
      const call = fn.parent;
      if (call?.type !== "call_expression" || call.childForFieldName("function")?.id !== fn.id) continue;
      const name = idx.textOf(fn);
      const first = callArguments(call)[0];
      // The project's own function of that name, for the calls it takes
      const own = projectFunction(ctx, name);
      if (own && coversCall(idx, own, call)) continue;
      const takes = own && takenTypes(own);
      const arg = first && argumentType(idx, first);
      const mask = "0xffffffff";
      ctx.report({
        node: fn,
        message: `${why(name, takes && arg ? { takes, arg } : undefined)}. Use \`${name}_sync(${mask}, …)\` with the mask of lanes taking part.`,
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
