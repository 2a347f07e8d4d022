// Where a name may be bound to a lint-time constant, and what binds it there: the text finds the places
// (a definition or a write), the tree says what they are. Each place is also described in a short string,
// so a relint (server/lint/incremental.ts) can tell whether an edit changed a constant's bindings.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { namedChildren } from "../source/nodes";
import { isSpaceCode as isSpace, isWordCode } from "../source/charCodes";

/** One name's binding: a value, a dim3 (x, y, z) or the node to evaluate on demand. */
export type Binding =
  { kind: "expr"; node: Node } | { kind: "macro"; text: string } | { kind: "dim3"; args: Node[] };

/** What a place binds: a value (const or not), a write that makes non-const values unknown, or nothing. */
export type SiteBinding = { b: Binding; isConst: boolean } | "reassigned" | undefined;

/** A place in the text where a name may be bound, and what binds it there (describeSite). */
export interface BindingSite {
  at: number;
  what: string;
}

const NAME_NODES: ReadonlySet<string> = new Set(["identifier", "type_identifier"]);

const EQ = 0x3d;
const HASH = 0x23;

/**
 * Whether the name at [index, end) may bind or rebind it there, from the text alone: a definition
 * (`#define N`, `T N = / ( / {`) or a write (`N =`, `N +=`, `++N`). Plain uses are not. Read by char
 * code within 4 characters after the name and 12 before it (slices and regexes allocated at every
 * candidate).
 */
function mayBind(text: string, index: number, end: number): boolean {
  const aEnd = Math.min(end + 4, text.length);
  let a = end;
  while (a < aEnd && isSpace(text.charCodeAt(a))) a++;
  if (a < aEnd) {
    const c = text.charCodeAt(a);
    const next = a + 1 < aEnd ? text.charCodeAt(a + 1) : -1;
    // `N =`, `N (`, `N {`; `N++`, `N--`; `N op=`; `N <<=`, `N >>=`.
    if (c === EQ || c === 0x28 || c === 0x7b) return true;
    if ((c === 0x2b || c === 0x2d) && next === c) return true;
    if (COMPOUND.has(c) && next === EQ) return true;
    if ((c === 0x3c || c === 0x3e) && next === c && a + 2 < aEnd && text.charCodeAt(a + 2) === EQ)
      return true;
  }
  const lo = Math.max(0, index - 12);
  let b = index;
  while (b > lo && isSpace(text.charCodeAt(b - 1))) b--;
  if (b === lo) return false;
  const c = text.charCodeAt(b - 1);
  // `++N`, `--N`.
  if ((c === 0x2b || c === 0x2d) && b - 2 >= lo && text.charCodeAt(b - 2) === c) return true;
  // `#define N`: at least one space after `define`, any before it.
  if (c !== 0x65 || b === index || b - 6 < lo || !text.startsWith("define", b - 6)) return false;
  let h = b - 6;
  while (h > lo && isSpace(text.charCodeAt(h - 1))) h--;
  return h > lo && text.charCodeAt(h - 1) === HASH;
}

/** The operators of a compound assignment `op=` written with one character: - + * / % & | ^. */
const COMPOUND: ReadonlySet<number> = new Set([..."-+*/%&|^"].map((ch) => ch.charCodeAt(0)));

/**
 * Offsets in [from, to) where the word `name` (an identifier) may be bound (see mayBind): plain uses are
 * skipped without asking the tree.
 */
export function sitesIn(text: string, name: string, from = 0, to = text.length): number[] {
  return sitesOfNames(text, [name], from, to).get(name)!;
}

/**
 * `sitesIn` of several names (identifiers) at once: one scan of the text for all of them, as scanning
 * costs about the same for one name as for many.
 */
export function sitesOfNames(
  text: string,
  names: readonly string[],
  from = 0,
  to = text.length,
): Map<string, number[]> {
  const out = new Map<string, number[]>(names.map((n) => [n, []]));
  if (names.length === 0) return out;
  // A regex, not indexOf: a name like `block` is inside thousands of longer words (blockIdx, blockDim).
  // Two names never match at one place: each match is a whole word.
  const re = new RegExp(`\\b(?:${names.join("|")})\\b`, "g");
  re.lastIndex = from;
  // test, not exec: no match array per match (names like `rows` match hundreds of times). A match is a
  // whole word, so it starts where the word ending at lastIndex starts.
  while (re.test(text)) {
    const end = re.lastIndex;
    let at = end - 1;
    while (at > 0 && isWordCode(text.charCodeAt(at - 1))) at--;
    if (at >= to) break;
    if (mayBind(text, at, end)) out.get(text.slice(at, end))!.push(at);
  }
  return out;
}

/** What the place of `name` at `at` (from sitesIn) binds, read from the tree. */
export function bindingAt(idx: FileIndex, at: number, name: string): SiteBinding {
  if (afterLineComment(idx.text, at)) return undefined;
  const found = nameAt(idx, at, name.length);
  if (!found) return undefined;
  const [n, p, pType] = found;
  if (pType === "preproc_def" && p.childForFieldName("name")?.id === n.id) {
    const v = p.childForFieldName("value");
    const value = v ? idx.textOf(v) : undefined;
    return value ? { b: { kind: "macro", text: value }, isConst: true } : undefined;
  }
  if (pType === "init_declarator" && p.childForFieldName("declarator")?.id === n.id)
    return initBinding(idx.text, p);
  if (pType === "function_declarator" && p.childForFieldName("declarator")?.id === n.id) {
    // `dim3 block(kThreads)` parses as a function declaration; its "parameter types" are the names.
    const decl = p.parent;
    const params = p.childForFieldName("parameters");
    const type = decl?.type === "declaration" ? decl.childForFieldName("type") : null;
    if (!decl || !type || idx.textOf(type) !== "dim3" || !params) return undefined;
    const isConst = hasQualifier(idx.text, decl, CONST);
    const args = namedChildren(params).map((q) => q.childForFieldName("type") ?? q);
    return { b: { kind: "dim3", args }, isConst };
  }
  if (
    (pType === "assignment_expression" && p.childForFieldName("left")?.id === n.id) ||
    pType === "update_expression"
  )
    return "reassigned";
  return undefined;
}

const CONST: ReadonlySet<string> = new Set(["const"]);
const CONST_OR_CONSTEXPR: ReadonlySet<string> = new Set(["const", "constexpr"]);

/**
 * Whether `decl` has a type qualifier written as one of `words`. Listing its children costs a node each:
 * a declaration whose text has no `const` has none.
 */
function hasQualifier(text: string, decl: Node, words: ReadonlySet<string>): boolean {
  if (!text.slice(decl.startIndex, decl.endIndex).includes("const")) return false;
  // One child at a time: the qualifier is most often the first, and the rest need not be made.
  for (let i = 0, n = decl.namedChildCount; i < n; i++) {
    const c = decl.namedChild(i);
    if (c?.type === "type_qualifier" && words.has(text.slice(c.startIndex, c.endIndex))) return true;
  }
  return false;
}

/**
 * Whether `at` is surely in a comment, from its line's text alone: after a `//` on a line with no quote
 * and no block comment mark before `at` (in a block comment from an earlier line, `at` is in it too), and
 * not continuing the line before. Names in comments bind nothing: the tree need not be asked.
 */
function afterLineComment(text: string, at: number): boolean {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const line = text.slice(lineStart, at);
  if (!line.includes("//") || /["'`]|\/\*|\*\//.test(line)) return false;
  // A backslash ending the line before continues it (a string, a comment or a macro) onto this one.
  return !/\\\r?$/.test(text.slice(Math.max(0, lineStart - 3), Math.max(0, lineStart - 1)));
}

/** The identifier at [at, at + length) and its parent (with its type), if a name node starts there. */
function nameAt(idx: FileIndex, at: number, length: number): [Node, Node, string] | undefined {
  // Node.parent searches down from the root: the smallest node around the name and the character after
  // it is (most often) its parent, found in one search. A comment is a leaf: the name is in it.
  const around = idx.root.namedDescendantForIndex(at, at + length + 1);
  const aroundType = around?.type;
  if (aroundType === "comment") return undefined;
  const first = around?.firstNamedChildForIndex(at);
  if (first && first.startIndex === at && NAME_NODES.has(first.type) && first.endIndex >= at + length)
    return [first, around!, aroundType!];
  const n = idx.nodeAt(at, at + length);
  if (!NAME_NODES.has(n.type) || n.startIndex !== at) return undefined;
  const p = n.parent;
  // Each Node.type crosses into wasm: read once.
  return p ? [n, p, p.type] : undefined;
}

/** `T name = value`, `dim3 b(256, 4)`, `dim3 b{256}`, `dim3 b = dim3(256)`. */
function initBinding(text: string, p: Node): SiteBinding {
  const decl = p.parent;
  const value = p.childForFieldName("value");
  const type = decl?.childForFieldName("type");
  if (!decl || !value || !type) return undefined;
  const isConst = hasQualifier(text, decl, CONST_OR_CONSTEXPR);
  if (text.slice(type.startIndex, type.endIndex) !== "dim3")
    return { b: { kind: "expr", node: value }, isConst };
  const valueType = value.type;
  const inner = valueType === "call_expression" ? value.childForFieldName("arguments") : value;
  const args = inner ? namedChildren(inner).filter((a) => a.type !== "comment") : [];
  if (valueType === "argument_list" || valueType === "initializer_list" || valueType === "call_expression")
    return { b: { kind: "dim3", args }, isConst };
  return { b: { kind: "expr", node: value }, isConst };
}

/** A place's binding as a string: equal strings, equal bindings (the evaluator reads nothing else there). */
export function describeSite(
  site: SiteBinding,
  text = site && site !== "reassigned" ? bindingText(site.b) : "",
): string {
  if (site === undefined) return "";
  if (site === "reassigned") return "=";
  return JSON.stringify([site.b.kind, site.isConst, text]);
}

/**
 * A binding's text: equal texts, equal values. Read from `source`, the file's text, when given (Node.text
 * reads the node's positions across wasm first).
 */
export function bindingText(b: Binding, source?: string): string {
  const textOf = (n: Node): string =>
    source === undefined ? n.text : source.slice(n.startIndex, n.endIndex);
  return b.kind === "macro" ? b.text : b.kind === "expr" ? textOf(b.node) : b.args.map(textOf).join(",");
}
