// The file's own launch checks: its functions and macros whose body names a check (through others too),
// found from where the check names are written rather than by reading every definition. Each whole-word
// use of a check name, in code, makes a check of the definition around it: the outermost function whose
// body holds it (FileIndex.functionSpanAt), and the `#define` whose line holds it. Then the new names'
// uses are looked at, until none is added.
//
// As launchChecks.ts: a body that launches a kernel (a `<<<` in code, or a call of the file's functions or
// macros that launch, through any number of them: launchers.ts) is a launcher's, not a check's, and
// bodies over MAX_BODY characters are not read. A body followed through its calls records that the answer
// depends on where each name it called on the way is written (`uses:`; past MAX_CALLED names, the whole
// file). Unlike the text reading of headers (functionBodies.ts),
// each definition is judged alone: of two overloads, one launching and one checking, the name is a check.
// A use that only resets the error state (a discarded `cudaGetLastError();`: errorResets.ts) makes no
// check, and a constructor or destructor is none (a class is not a check to call after a launch).
// Cannot see: functions a macro defines, uses hidden behind another macro's expansion.
import type { FileIndex, FunctionSpan } from "../source/fileIndex";
import { definedName } from "../callgraph/callGraph";
import { codeOnly } from "../source/codeText";
import { MAX_BODY } from "../source/functionBodies";
import { wordOffsets, type Directive } from "../source/textScans";
import { isWordCode } from "../source/charCodes";
import { usesOf as usesDependency } from "../../lint/dependencies";
import { ownDefinitions, reachesLaunch } from "./launchers";
import { isReset } from "./errorResets";

/** Above this many names, the file's words are read once instead of searching each name. */
const MANY_NAMES = 32;

/** Node types whose text is no code: a name there is a mention, not a use. */
const NOT_CODE: ReadonlySet<string> = new Set([
  "comment",
  "string_literal",
  "string_content",
  "raw_string_literal",
  "raw_string_content",
  "char_literal",
  "character",
  "system_lib_string",
  "escape_sequence",
]);

/** `known` and the file's own functions and macros that check through them (one answer per run). */
export function ownLaunchChecks(idx: FileIndex, known: ReadonlySet<string>): ReadonlySet<string> {
  const checks = new Set(known);
  const judged = new Map<number, Judged | undefined>();
  const code = codeOnly(idx.text);
  for (let fresh: Iterable<string> = known; ;) {
    const added: string[] = [];
    for (const [at, length] of usesOf(idx.text, fresh)) {
      if (isReset(code, at, idx.text.slice(at, at + length))) continue;
      for (const name of [checkingFunction(idx, at, judged), checkingDefine(idx, at)])
        // The tree is asked last, only about a use that would add a name.
        if (name && !checks.has(name) && inCode(idx, at, length)) {
          checks.add(name);
          added.push(name);
        }
    }
    if (added.length === 0) return checks;
    fresh = added;
  }
}

/** Where each name of `names` is written as a whole word, and its length, in any order. */
function usesOf(text: string, names: Iterable<string>): [number, number][] {
  const list = [...names];
  if (list.length <= MANY_NAMES)
    return list.flatMap((n) =>
      wordOffsets(text, n, 0, text.length).map((at): [number, number] => [at, n.length]),
    );
  const set = new Set(list);
  return [...text.matchAll(/[A-Za-z_]\w*/g)].filter((m) => set.has(m[0])).map((m) => [m.index, m[0].length]);
}

/** Whether the text at `at` is code (not a comment or literal), as the tree reads it. */
function inCode(idx: FileIndex, at: number, length: number): boolean {
  return !NOT_CODE.has(idx.nodeAt(at, at + length).type);
}

/** Whether `<<<` stands in code in [from, to). */
function launchesIn(idx: FileIndex, from: number, to: number): boolean {
  for (let at = idx.text.indexOf("<<<", from); at >= 0 && at < to; at = idx.text.indexOf("<<<", at + 3))
    if (inCode(idx, at, 3)) return true;
  return false;
}

/** A function that may be a check (its body short, launching nothing): its name and body's start. */
interface Judged {
  name: string;
  body: number;
}

/**
 * The name of the function whose body holds the use at `at`, when that function may be a check.
 * `judged`: per function start, what judge() said.
 */
function checkingFunction(
  idx: FileIndex,
  at: number,
  judged: Map<number, Judged | undefined>,
): string | undefined {
  const fn = idx.functionSpanAt(at);
  if (!fn) return undefined;
  if (!judged.has(fn.start)) judged.set(fn.start, judge(idx, fn));
  const j = judged.get(fn.start);
  return j && at > j.body ? j.name : undefined;
}

/** A function's name and body, if its body may make it a check (short, launching nothing). */
function judge(idx: FileIndex, fn: FunctionSpan): Judged | undefined {
  // Before the body is asked for: a `<<<` in code in a definition is a launch, in its body.
  if (launchesIn(idx, fn.start, fn.end)) return undefined;
  const body = fn.node.childForFieldName("body");
  if (body?.type !== "compound_statement") return undefined;
  const { startIndex: start, endIndex: end } = body;
  if (end - start - 2 > MAX_BODY) return undefined;
  const name = definedName(idx, fn.node);
  if (name === undefined || isConstructor(idx, fn, name)) return undefined;
  if (launchesThroughCalls(idx, name, start, end)) return undefined;
  return { name, body: start };
}

/**
 * Whether the function `name` is a constructor or destructor: `A::B::B`, `~B`, or defined in the class
 * `B` itself (an `operator T()` conversion too: no return type, and named in the class).
 */
function isConstructor(idx: FileIndex, fn: FunctionSpan, name: string): boolean {
  let d = fn.node.childForFieldName("declarator");
  while (d && d.type !== "function_declarator") d = d.childForFieldName("declarator");
  const declared = d?.childForFieldName("declarator");
  if (!declared) return false;
  const written = idx.textOf(declared);
  if (/~\s*\w+$/.test(written) || new RegExp(`\\b${name}\\s*(?:<[^]*>)?\\s*::\\s*${name}$`).test(written))
    return true;
  if (fn.node.childForFieldName("type")) return false;
  // In the class: the function's node is a member of the class body (Node.parent walks from the root).
  const owner = fn.node.parent?.parent;
  const cls = owner?.type === "class_specifier" || owner?.type === "struct_specifier" ? owner : undefined;
  return cls !== undefined && cls.childForFieldName("name")?.text === name;
}

/** Whether the body [start, end) of `name` calls a function or macro of the file that launches. */
function launchesThroughCalls(idx: FileIndex, name: string, start: number, end: number): boolean {
  const reach = reachesLaunch(codeOnly(idx.text).slice(start, end), ownDefinitions(idx));
  if (reach.truncated) idx.readsWholeFile();
  else for (const n of [name, ...reach.called]) idx.reads(usesDependency(n));
  return reach.launches;
}

/** The name of the `#define` whose body holds the name used at `at`, if it launches nothing. */
function checkingDefine(idx: FileIndex, at: number): string | undefined {
  const d = directiveAt(idx.directives(), at);
  if (d?.word !== "define") return undefined;
  const { text } = idx;
  const line = logicalLine(text, d.end);
  if (at >= line) return undefined;
  const m = /^[ \t]+([A-Za-z_]\w*)/.exec(text.slice(d.end, line));
  if (!m || at < d.end + m[0].length) return undefined;
  // A `#` inside a block comment is no directive.
  if (!inCode(idx, d.hash, 1)) return undefined;
  // The body's code, comments and literals blanked (the tree keeps a `// …` in the macro's text).
  const body = codeOnly(text.slice(d.end + m[0].length, line));
  const use = at - d.end - m[0].length;
  return body.includes("<<<") || !isWordCode(body.charCodeAt(use)) ? undefined : m[1];
}

/** The last directive whose line starts at or before `at`. */
function directiveAt(ds: readonly Directive[], at: number): Directive | undefined {
  let lo = 0;
  let hi = ds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ds[mid]!.lineStart <= at) lo = mid + 1;
    else hi = mid;
  }
  return ds[lo - 1];
}

/** The end of the line holding `from`, its backslash continuation lines included. */
export function logicalLine(text: string, from: number): number {
  let end = text.indexOf("\n", from);
  while (end > 0 && (text[end - 1] === "\\" || (text[end - 1] === "\r" && text[end - 2] === "\\")))
    end = text.indexOf("\n", end + 1);
  return end < 0 ? text.length : end;
}
