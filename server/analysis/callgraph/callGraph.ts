// The file's call graph, as far as the tree shows it: which function (or named lambda) a node lies in,
// and where in the file each function is called. Built on demand, per name asked: the names are found in
// the text and confirmed in the tree, so a file whose launches all check locally pays nothing.
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

/** A name followed by its call's `(`, template arguments allowed between them. */
const CALLED_NAME = /\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*>\s*)?\(/g;

export class CallGraph {
  private readonly calls = new Map<string, CallSite[]>();
  /** Per name, where it is written before a `(`, and the `(` (one scan of the text, on first use). */
  private called: Map<string, [number, number][]> | undefined;

  constructor(private readonly idx: FileIndex) {}

  /** The innermost function definition or named lambda holding `node`, if any. */
  unitAt(node: Node): Unit | undefined {
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

  /** Every call in the file of a function so named (calls inside the function itself included). */
  callsNamed(name: string): CallSite[] {
    let list = this.calls.get(name);
    if (!list) {
      list = [];
      for (const [at, paren] of this.calledNames().get(name) ?? []) {
        const call = this.callAt(at, at + name.length, paren);
        if (call) list.push({ call, start: call.startIndex, end: call.endIndex });
      }
      this.calls.set(name, list);
    }
    return list;
  }

  private calledNames(): Map<string, [number, number][]> {
    if (!this.called) {
      const called = new Map<string, [number, number][]>();
      for (const m of this.idx.scanAll(CALLED_NAME)) {
        const site: [number, number] = [m.index, m.index + m[0].length - 1];
        const at = called.get(m[1]!);
        if (at) at.push(site);
        else called.set(m[1]!, [site]);
      }
      this.called = called;
    }
    return this.called;
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
