// Launches written in the body of a function-like macro (`#define CASE(N) else if (n == N) {
// k<N><<<g, b, 0, s>>>(x); }`), which the tree holds as text only, and the places the macro is used:
// each use expands to the launch. A body that checks after its launch (a launch check named after the
// `<<<`) checks every expansion, and is left out.
//
// One level only: a macro used in another macro's body, object-like macros (`#define LAUNCH k<<<…>>>`)
// and launches in macros from headers are not followed. Reads the file's macro lines (a whole-file
// fact, recorded as `context:decls`: declEnv.ts).
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { ownFacts } from "../preprocessor/projectHeaders";
import { logicalLine } from "./ownChecks";

/** A macro whose body launches a kernel with no check after the launch. */
export interface LaunchMacro {
  name: string;
  /** The launched kernel's name as written in the body. */
  kernel: string;
}

/** One use of such a macro: the macro's name in the code, and the end of its `(…)`. */
export interface MacroLaunchUse {
  macro: LaunchMacro;
  name: Node;
  end: number;
}

/** The kernel name before a `<<<`, template arguments skipped. */
const KERNEL_BEFORE = /([A-Za-z_]\w*)\s*(?:<[^<>;{}]*>)?\s*<<</;

/** The file's function-like macros whose body launches without a check after the launch. */
export function launchMacros(idx: FileIndex, checks: ReadonlySet<string>): LaunchMacro[] {
  idx.reads("context:decls");
  return idx.shared("launchMacros", () => {
    if (!defineLaunches(idx)) return [];
    const { defines } = ownFacts(idx);
    const check = new RegExp(`\\b(?:${[...checks].join("|")})\\b`);
    const out: LaunchMacro[] = [];
    for (const [name, body] of defines) {
      const at = body.indexOf("<<<");
      if (!body.startsWith("(") || at < 0) continue;
      const kernel = KERNEL_BEFORE.exec(body.slice(0, at + 3))?.[1];
      if (kernel && !check.test(body.slice(at))) out.push({ name, kernel });
    }
    return out;
  });
}

/** Whether some `#define` line (with its continuation lines) holds a `<<<`: cheap, from the directives. */
function defineLaunches(idx: FileIndex): boolean {
  const { text } = idx;
  for (const d of idx.directives()) {
    if (d.word !== "define") continue;
    const launch = text.indexOf("<<<", d.end);
    if (launch >= 0 && launch < logicalLine(text, d.end)) return true;
  }
  return false;
}

/** Each use, in the run's window and inside a function, of the macros `macros`, in document order. */
export function macroLaunchUses(idx: FileIndex, macros: readonly LaunchMacro[]): MacroLaunchUse[] {
  if (macros.length === 0) return [];
  const byName = new Map(macros.map((m) => [m.name, m]));
  const out: MacroLaunchUse[] = [];
  for (const m of idx.scan(new RegExp(`\\b(${[...byName.keys()].join("|")})\\s*\\(`, "g"))) {
    const n = idx.nodeAt(m.index, m.index + m[1]!.length);
    // In a comment, string or another macro's body the name is no identifier of its own.
    if (n.type !== "identifier" || n.startIndex !== m.index || !idx.functionSpanAt(m.index)) continue;
    const end = closeParen(idx.text, m.index + m[0].length - 1);
    if (end > 0) out.push({ macro: byName.get(m[1]!)!, name: n, end });
  }
  return out;
}

/** The offset just past the `)` closing the `(` at `open`, or 0. */
function closeParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  return 0;
}
