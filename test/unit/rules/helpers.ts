// Shared by the rule tests: fixture targets, applying TextEdits, counting parse errors.
import type { Node, Tree } from "web-tree-sitter";
import type { BuildFacts, TextEdit } from "../../../server/rules/rule";
import { STANDALONE_BUILD } from "../../../server/lint/engine";

const TARGETS_LINE = /^\s*\/\/\s*targets:\s*(.+)$/;

/**
 * `// targets: sm_75, sm_90` on the first line picks the targets; otherwise [75, 90]. `// targets: none`
 * lints as a file whose build declares none (fixtureBuild): the engine still passes nvcc's default.
 */
export function fixtureTargets(text: string): number[] {
  const m = TARGETS_LINE.exec(text.split("\n")[0] ?? "");
  if (!m || m[1]!.trim() === "none") return [75, 90];
  return m[1]!.split(/[,\s]+/).flatMap((t) => {
    const n = /^sm_(\d+)$/.exec(t.trim());
    return n ? [Number(n[1])] : [];
  });
}

/** The build a fixture is linted under: the standalone build, with no targets for `// targets: none`. */
export function fixtureBuild(text: string): BuildFacts {
  const m = TARGETS_LINE.exec(text.split("\n")[0] ?? "");
  return m?.[1]!.trim() === "none" ? { ...STANDALONE_BUILD, targets: "none" } : STANDALONE_BUILD;
}

function offsetOf(text: string, line: number, column: number): number {
  let off = 0;
  for (let l = 0; l < line; l++) {
    const nl = text.indexOf("\n", off);
    if (nl < 0) return text.length;
    off = nl + 1;
  }
  return off + column;
}

/** Applies non-overlapping edits (LSP semantics: all positions refer to the original text). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const abs = edits
    .map((e) => ({
      start: offsetOf(text, e.span.startLine, e.span.startColumn),
      end: offsetOf(text, e.span.endLine, e.span.endColumn),
      newText: e.newText,
    }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let limit = Number.POSITIVE_INFINITY;
  for (const e of abs) {
    if (e.end > limit) throw new Error("overlapping edits");
    out = out.slice(0, e.start) + e.newText + out.slice(e.end);
    limit = e.start;
  }
  return out;
}

export function errorCount(tree: Tree): number {
  let n = 0;
  const visit = (node: Node): void => {
    if (node.isError || node.isMissing) n++;
    if (node.hasError) for (const c of node.children) if (c) visit(c);
  };
  visit(tree.rootNode);
  return n;
}

/** nvcc's flags for PyTorch-style builds, plus the BF16 operator switches the half-operator rule also covers. */
export const STRICT_HALF_FLAGS = [
  "-D__CUDA_NO_HALF_OPERATORS__",
  "-D__CUDA_NO_HALF2_OPERATORS__",
  "-D__CUDA_NO_BFLOAT16_OPERATORS__",
  "-D__CUDA_NO_BFLOAT162_OPERATORS__",
  "-D__CUDA_NO_HALF_CONVERSIONS__",
  "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
];
