// Whether a check call follows a point in its function: the first call of a launch check (a whole word
// of the check names, an identifier in the tree, not a comment or string) after it, up to the end of the
// innermost function definition around it (at file scope, to the end of the file). A check inside a
// lambda or a nested block after the point counts; a check that only some paths reach counts too (the
// text after the point is read, not the paths through it).
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { isWordCode } from "../source/charCodes";
import { mayNest } from "../callgraph/callGraph";

const IDENTS: ReadonlySet<string> = new Set(["identifier"]);

/**
 * The first check call (a whole word of `names`, all identifiers) after each launch. A regex run on the
 * whole text goes on past the launch's function to the next check in the file: each search reads a slice
 * that ends just past its range instead. Whether a match is a call's name is asked of the tree once.
 */
export class CheckFinder {
  private readonly re: RegExp;
  /** How far past a range's end a match starting in it may read (its name and the character after). */
  private readonly reach: number;
  private readonly isName = new Map<number, boolean>();

  constructor(
    private readonly idx: FileIndex,
    names: readonly string[],
  ) {
    this.re = new RegExp(`\\b(${names.join("|")})\\b`, "g");
    // A loop, not a spread: a configured list of 100,000+ names overflows the argument stack.
    this.reach = names.reduce((m, n) => Math.max(m, n.length), 0) + 1;
  }

  /** Where the first check call in [from, to) (within the window unless `anywhere`) is, if any. */
  first(from: number, to: number, anywhere = false): number | undefined {
    const { idx, re } = this;
    const { text } = idx;
    const start = anywhere ? from : Math.max(from, idx.window.start);
    const end = anywhere ? to : Math.min(to, idx.window.end);
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

/**
 * A check after `call` (from `callEnd`, its end by default) in the same function (or, at file scope, the
 * rest of the file). `anywhere`: the call may lie outside the run's window (a caller's call).
 */
export function checkedAfter(
  idx: FileIndex,
  call: Node,
  checks: CheckFinder,
  callEnd = call.endIndex,
  anywhere = false,
): boolean {
  // The outermost function holding the launch is found top-down, cheaply. Walking up to the innermost
  // one costs more, and is needed only when a `}` stands between the launch and the first check after it.
  const outer = idx.functionSpanAt(call.startIndex);
  let fn: Node | undefined;
  if (outer) {
    const first = checks.first(callEnd, outer.end, anywhere);
    if (first === undefined) return false;
    if (!idx.text.slice(callEnd, first).includes("}")) return true;
    // Any check in the innermost function comes at or after this first one: no need to look again. The
    // innermost is the outermost unless a local class's member function holds the call.
    fn = mayNest(idx.text, outer.start, call.startIndex) ? idx.enclosingFunction(call) : outer.node;
    if (fn) return first < fn.endIndex;
  } else fn = idx.enclosingFunction(call);
  if (!fn) idx.readsWholeFile();
  return checks.first(callEnd, fn?.endIndex ?? idx.text.length, anywhere) !== undefined;
}
