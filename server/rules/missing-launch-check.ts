// A kernel launch returns nothing: a bad configuration or a missing kernel image is only visible through
// cudaGetLastError(). Unchecked, the output is silently left unwritten.
import type { Node } from "web-tree-sitter";
import type { Rule, TextEdit } from "./rule";
import { BUILTIN_CHECKS, declEnv } from "../analysis/types/declEnv";
import { FileIndex, kernelLaunches } from "../analysis/source/fileIndex";
import { insertAfter } from "../analysis/source/nodes";
import { isWordCode } from "../analysis/source/charCodes";

/** A PyTorch header's include, from its `include` (a regex starting at `#` tries every directive). */
const TORCH_INCLUDE = /include\s*[<"](c10\/cuda\/|ATen\/cuda\/|torch\/)/g;

/** A PyTorch extension: only there is the check macro known to exist (the fix inserts it). */
export function usesTorch(idx: FileIndex): boolean {
  idx.reads("context:torch");
  return idx.shared("usesTorch", () => torchText(idx.text));
}

/** The check macro named, or a PyTorch header included (`#`, any spaces, `include`...) anywhere in `text`. */
function torchText(text: string): boolean {
  if (text.includes("C10_CUDA_KERNEL_LAUNCH_CHECK")) return true;
  for (const m of text.matchAll(TORCH_INCLUDE)) {
    let at = m.index;
    while (at > 0 && /\s/.test(text[at - 1]!)) at--;
    if (text[at - 1] === "#") return true;
  }
  return false;
}

/** Inserts after the statement, or after its line when only a trailing comment follows it there. */
function afterLine(text: string, stmt: Node, newText: string): TextEdit {
  const nl = text.indexOf("\n", stmt.endIndex);
  const rest = text.slice(stmt.endIndex, nl < 0 ? text.length : nl).replace(/\r$/, "");
  if (!/^\s*(\/\/.*)?$/.test(rest)) return insertAfter(stmt, newText);
  const { row, column } = stmt.endPosition;
  const at = column + rest.length;
  return { span: { startLine: row, startColumn: at, endLine: row, endColumn: at }, newText };
}

const IDENTS: ReadonlySet<string> = new Set(["identifier"]);

/**
 * The first check call (a whole word of `names`, all identifiers) after each launch. A regex run on the
 * whole text goes on past the launch's function to the next check in the file: each search reads a slice
 * that ends just past its range instead. Whether a match is a call's name is asked of the tree once.
 */
class CheckFinder {
  private readonly re: RegExp;
  /** How far past a range's end a match starting in it may read (its name and the character after). */
  private readonly reach: number;
  private readonly isName = new Map<number, boolean>();

  constructor(
    private readonly idx: FileIndex,
    names: readonly string[],
  ) {
    this.re = new RegExp(`\\b(${names.join("|")})\\b`, "g");
    this.reach = Math.max(0, ...names.map((n) => n.length)) + 1;
  }

  /** Where the first check call in [from, to) (within the window) is, if any. */
  first(from: number, to: number): number | undefined {
    const { idx, re } = this;
    const { text } = idx;
    const start = Math.max(from, idx.window.start);
    const end = Math.min(to, idx.window.end);
    if (start >= end) return undefined;
    // The slice starts at `start`: a match at its start is a whole word only when the text before it
    // is not part of a word (the slice cannot tell). Names are words: a match never begins mid-word.
    const part = text.slice(start, Math.min(text.length, end + this.reach));
    re.lastIndex = 0;
    // test, not exec (no match array per match): a match is a whole word, starting where the word ending
    // at lastIndex starts in the slice.
    while (re.test(part)) {
      const e = re.lastIndex;
      let i = e - 1;
      while (i > 0 && isWordCode(part.charCodeAt(i - 1))) i--;
      if (i >= end - start) break;
      if (i === 0 && start > 0 && isWordCode(text.charCodeAt(start - 1))) continue;
      if (this.names(start + i, e - i)) return start + i;
    }
    return undefined;
  }

  /** Whether the identifier at [at, at + length) is a name in the tree (not in a comment or string). */
  private names(at: number, length: number): boolean {
    let known = this.isName.get(at);
    if (known === undefined) {
      const n = this.idx.nodeAt(at, at + length);
      known = IDENTS.has(n.type) && n.startIndex === at && n.endIndex === at + length;
      this.isName.set(at, known);
    }
    return known;
  }
}

/** A check anywhere after the launch in the same function (or, at file scope, the rest of the file). */
function checkedAfter(idx: FileIndex, call: Node, checks: CheckFinder): boolean {
  // The outermost function holding the launch is found top-down, cheaply. Walking up to the innermost
  // one costs more, and is needed only when a `}` stands between the launch and the first check after it.
  const callEnd = call.endIndex;
  const outer = idx.functionSpanAt(call.startIndex);
  let fn: Node | undefined;
  if (outer) {
    const first = checks.first(callEnd, outer.end);
    if (first === undefined) return false;
    if (!idx.text.slice(callEnd, first).includes("}")) return true;
    // Any check in the innermost function comes at or after this first one: no need to look again.
    fn = idx.enclosingFunction(call);
    if (fn) return first < fn.endIndex;
  } else fn = idx.enclosingFunction(call);
  if (!fn) idx.readsWholeFile();
  return checks.first(callEnd, fn?.endIndex ?? idx.text.length) !== undefined;
}

/** A launch check named anywhere, or a program's entry point (no caller elsewhere checks for a program). */
const CHECKS_HERE = new RegExp(`\\b(${BUILTIN_CHECKS.join("|")})\\b|\\bint\\s+main\\s*\\(`);

/**
 * A library file that names no launch check at all is taken to check at a higher level: ggml checks
 * cudaGetLastError() after every op in its dispatcher, in another file. A whole-file fact, cheap to
 * test on every relint (fileContext.ts).
 */
export function checksElsewhere(idx: FileIndex): boolean {
  idx.reads("context:callerChecks");
  return idx.shared("checksElsewhere", () => !CHECKS_HERE.test(idx.text));
}

export const missingLaunchCheck: Rule = {
  id: "missing-launch-check",
  defaultSeverity: "warning",
  basis: "heuristic",
  summary:
    "A kernel launch with no cudaGetLastError/cudaPeekAtLastError/getLastCudaError/C10_CUDA_KERNEL_LAUNCH_CHECK (or a project macro expanding to one) after it.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const launches = kernelLaunches(idx);
    if (launches.length === 0) return;
    // The built-in checks, the configured ones, and the macros of the file and its project headers that
    // expand to one of them (declEnv.ts).
    const names = [...declEnv(ctx).launchChecks];
    const torch = usesTorch(idx);
    const checks = new CheckFinder(idx, names);
    // Not in a PyTorch extension, whose rule is a C10_CUDA_KERNEL_LAUNCH_CHECK() after each launch.
    if (!torch && !ctx.build.pytorch && checksElsewhere(idx)) return;
    for (const { call } of launches) {
      if (checkedAfter(idx, call, checks)) continue;
      const fn = call.childForFieldName("function");
      const name = fn ? idx.textOf(fn) : "kernel";
      // The statement matters only for the fix, in a PyTorch extension (Node.parent costs a walk from the root).
      const parent = torch ? call.parent : null;
      const stmt = parent?.type === "expression_statement" ? parent : undefined;
      const lineStart = idx.text.lastIndexOf("\n", call.startIndex) + 1;
      const indent = /^[ \t]*/.exec(idx.text.slice(lineStart))![0];
      ctx.report({
        // Only in PyTorch extensions is the check macro known to exist; elsewhere the project picks its check.
        fixes:
          stmt && torch
            ? [
                {
                  title: "Add C10_CUDA_KERNEL_LAUNCH_CHECK() after the launch",
                  isPreferred: true,
                  edits: [afterLine(idx.text, stmt, `\n${indent}C10_CUDA_KERNEL_LAUNCH_CHECK();`)],
                },
              ]
            : [],
        node: fn ?? call,
        message: `Launch of \`${name}\` is not followed by an error check: a failed launch (bad configuration, no kernel image for this GPU) goes unnoticed. Add C10_CUDA_KERNEL_LAUNCH_CHECK() or check cudaGetLastError() after it.`,
      });
    }
  },
};
