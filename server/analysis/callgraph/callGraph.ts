// The file's call graph, as far as the tree shows it: which function (or named lambda) a node lies in,
// and where in the file each function is called. Built on demand, per name asked: the name's whole-word
// uses are found in the text and confirmed in the tree, so a file whose launches all check locally pays
// nothing.
//
// A unit is a function definition (free, member, out-of-class `A::f`, template: named by its last name
// component) or a lambda bound to a name (`auto run = [&](…) {…};`, called as `run(…)` after it in the
// same function). Unnamed lambdas (the ones passed to AT_DISPATCH…) belong to their enclosing unit. A call
// is a call expression whose function is the name, qualified (`ns::f`, `obj.f`, `p->f`) or with template
// arguments (`f<128>(…)`).
//
// Cannot see: calls through function pointers, std::function or virtual dispatch, calls a macro's body
// makes, calls from other files. Overloads and functions of one name in different classes or namespaces
// are one name here.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";

/** A function definition or named lambda. */
export interface Unit {
  name: string;
  kind: "function" | "lambda";
  node: Node;
  /** Where its calls may be: the whole file for a function, the rest of the enclosing function for a lambda. */
  scope: { start: number; end: number };
}

/** One call of a unit: the call expression. */
export interface CallSite {
  call: Node;
  start: number;
  end: number;
}

const NAME_NODES: ReadonlySet<string> = new Set(["identifier", "field_identifier"]);

/** The name a function definition defines: the last name component of its declarator, if any. */
export function definedName(idx: FileIndex, fn: Node): string | undefined {
  let d = fn.childForFieldName("declarator");
  while (d && d.type !== "function_declarator") d = d.childForFieldName("declarator");
  const name = d?.childForFieldName("declarator");
  if (!name) return undefined;
  return /([A-Za-z_]\w*)\s*(?:<[^]*>)?\s*$/.exec(idx.textOf(name))?.[1];
}

/**
 * A local class (whose member functions are definitions of their own) or a lambda's introducer (`]`, then
 * its parameters, body or specifiers): may stand between a function's start and a node in it. A subscript
 * followed by `(` or `<` matches too (the tree is then asked).
 */
const NESTING = /\b(?:struct|class|union)\b|\]\s*(?:[({<]|->|mutable\b|constexpr\b|consteval\b|noexcept\b)/;

/** Whether a local class or lambda may start in [from, to) of `text`. */
export function mayNest(text: string, from: number, to: number): boolean {
  return NESTING.test(text.slice(from, to));
}

/** What follows a called name up to its call's `(`: spaces, template arguments (sticky). */
const CALL_TAIL = /\s*(?:<[^;{}()]*>\s*)?\(/y;

export class CallGraph {
  private readonly calls = new Map<string, CallSite[]>();

  constructor(private readonly idx: FileIndex) {}

  /** The innermost function definition or named lambda holding `node`, if any. */
  unitAt(node: Node): Unit | undefined {
    // Mostly the outermost function, found top-down: the tree is walked only where a lambda or a local
    // class before the node may hold it.
    const outer = this.idx.functionSpanAt(node.startIndex);
    if (outer && node.endIndex <= outer.end && !mayNest(this.idx.text, outer.start, node.startIndex)) {
      const name = definedName(this.idx, outer.node);
      return name
        ? { name, kind: "function", node: outer.node, scope: { start: 0, end: this.idx.text.length } }
        : undefined;
    }
    const fn = this.idx.enclosingFunction(node);
    if (!fn) return undefined;
    let unit: Unit | undefined;
    const name = definedName(this.idx, fn);
    if (name) unit = { name, kind: "function", node: fn, scope: { start: 0, end: this.idx.text.length } };
    // Down from the function: a named lambda on the way is the innermost unit, a nested function resets.
    let parent: Node = fn;
    for (let at = fn.childWithDescendant(node); at && at.id !== node.id; at = at.childWithDescendant(node)) {
      if (at.type === "function_definition") return this.unitAt(at) ?? unit;
      if (at.type === "lambda_expression" && parent.type === "init_declarator") {
        const bound = parent.childForFieldName("declarator");
        if (bound?.type === "identifier")
          unit = {
            name: this.idx.textOf(bound),
            kind: "lambda",
            node: at,
            scope: { start: at.endIndex, end: fn.endIndex },
          };
      }
      parent = at;
    }
    return unit;
  }

  /** Every call of `unit` in its scope, in document order (none when it is called nowhere there). */
  callsOf(unit: Unit): CallSite[] {
    const { start, end } = unit.scope;
    return this.callsNamed(unit.name).filter(
      (c) =>
        c.start >= start && c.end <= end && !(c.start >= unit.node.startIndex && c.end <= unit.node.endIndex),
    );
  }

  /**
   * Every call in the file of a function so named (calls inside the function itself included): the name
   * written as a whole word before a `(`, confirmed in the tree there.
   */
  callsNamed(name: string): CallSite[] {
    let list = this.calls.get(name);
    if (!list) {
      list = [];
      const { text } = this.idx;
      for (const at of this.idx.wordsIn(name, 0, text.length)) {
        CALL_TAIL.lastIndex = at + name.length;
        if (!CALL_TAIL.test(text)) continue;
        const call = this.callAt(at, at + name.length, CALL_TAIL.lastIndex - 1);
        if (call) list.push({ call, start: call.startIndex, end: call.endIndex });
      }
      this.calls.set(name, list);
    }
    return list;
  }

  /**
   * The call expression whose function is the name at [start, end) (the last name of a qualified or
   * member callee, template arguments allowed after it), if it is one: the smallest named node around the
   * name and the call's `(` at `paren`, found in one call (Node.parent costs a walk from the root).
   */
  private callAt(start: number, end: number, paren: number): Node | undefined {
    const call = this.idx.root.namedDescendantForIndex(start, paren + 1);
    if (call?.type !== "call_expression") return undefined;
    const fn = call.childForFieldName("function");
    if (!fn || fn.endIndex > paren) return undefined;
    const name = this.idx.nodeAt(start, end);
    if (name.startIndex !== start || name.endIndex !== end || !NAME_NODES.has(name.type)) return undefined;
    // The name is the callee's last name: only template arguments and spaces follow it in the callee.
    return /^\s*(?:<[^]*>)?\s*$/.test(this.idx.text.slice(end, fn.endIndex)) ? call : undefined;
  }
}

/** The file's call graph (one per run, filled in as names are asked). */
export function callGraph(idx: FileIndex): CallGraph {
  return idx.shared("callGraph", () => new CallGraph(idx));
}
