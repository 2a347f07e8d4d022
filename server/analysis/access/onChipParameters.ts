// Does a __device__ function's pointer parameter point on chip? Read from the file's calls of the
// function: when every call passes a shared-memory array (declared `__shared__` in the caller or at file
// scope, or a name bound to one: `auto& smem = *reinterpret_cast<Storage*>(shared_buf)`, then
// `smem.scores`) or an array local to the caller (`half regs[8]`, registers or local memory), the
// parameter's accesses are shared or register traffic, not the global stream the bandwidth advice is
// about. The argument is read to its root name through casts, `&x[i]`, `x + offset`, `x.field` and
// `x->field`.
// Cannot see: calls from other files (a function the file does not call keeps its parameters global),
// arguments that are themselves a parameter of the caller, a pointer returned by a call.
import type { Node } from "web-tree-sitter";
import { usesOf } from "../../lint/dependencies";
import { callGraph, definedName } from "../callgraph/callGraph";
import { codeSlice } from "../source/codeText";
import type { FileIndex, FunctionInfo } from "../source/fileIndex";

/** The root name of an argument (see the top), or undefined when it is not a name-rooted expression. */
function rootName(arg: Node): string | undefined {
  let n: Node | null = arg;
  for (let i = 0; n && i < 12; i++) {
    switch (n.type) {
      case "identifier":
        return n.text;
      case "parenthesized_expression":
      case "cast_expression":
        n = n.type === "cast_expression" ? n.childForFieldName("value") : n.namedChild(0);
        break;
      case "pointer_expression": // &x[i], *p
      case "subscript_expression": // x[i]
      case "field_expression": // x.f, x->f
        n = n.childForFieldName("argument");
        break;
      case "binary_expression":
        n = n.childForFieldName("left");
        break;
      case "call_expression": {
        // reinterpret_cast<T*>(x), static_cast<T*>(x): the cast's operand
        const fn: string = n.childForFieldName("function")?.text ?? "";
        n = /_cast\s*</.test(fn) ? (n.childForFieldName("arguments")?.namedChild(0) ?? null) : null;
        break;
      }
      default:
        return undefined;
    }
  }
  return undefined;
}

const escaped = (name: string): string => name.replace(/[^\w]/g, "");

/**
 * Is `name` an on-chip array in `caller`'s code (or `file`'s, for `__shared__`): shared, local, or
 * bound to a shared one? `read` is told each name looked up (the answer depends on where it is written).
 */
function onChip(
  name: string,
  caller: string,
  file: string,
  read: (name: string) => void,
  depth = 0,
): boolean {
  const n = escaped(name);
  read(n);
  const shared = new RegExp(`__shared__[^;{}]*\\b${n}\\s*\\[`);
  if (shared.test(caller) || shared.test(file)) return true;
  // a local array of the caller: `T name[N];` (a declaration, not a subscript in an expression)
  if (
    new RegExp(
      `(?:^|[;{}])\\s*(?:const\\s+)?[A-Za-z_][\\w:<>, ]*\\s+${n}\\s*\\[[^\\]]+\\]\\s*(?:[;={])`,
    ).test(caller)
  )
    return true;
  if (depth > 1) return false;
  // a reference or pointer bound to one: `auto& smem = *reinterpret_cast<S*>(buf);`
  const bound = new RegExp(`[&*]\\s*${n}\\s*=\\s*([^;]+);`).exec(caller)?.[1];
  const names = bound?.match(/[A-Za-z_]\w*/g) ?? [];
  return names.some((other) => other !== n && onChip(other, caller, file, read, depth + 1));
}

/** The position of parameter `name` in `fn`'s parameter list, or -1. */
function parameterIndex(fn: Node, name: string): number {
  let d = fn.childForFieldName("declarator");
  while (d && d.type !== "function_declarator") d = d.childForFieldName("declarator");
  const params = d
    ?.childForFieldName("parameters")
    ?.namedChildren.filter((p) => p?.type === "parameter_declaration");
  return (params ?? []).findIndex((p) =>
    new RegExp(`\\b${escaped(name)}\\s*$`).test(p.text.replace(/\[\s*\]$/, "")),
  );
}

/** Does every call of device function `f` in the file pass an on-chip array for its parameter `name`? */
export function onChipParameter(idx: FileIndex, f: FunctionInfo, name: string): boolean {
  if (f.space !== "device") return false;
  const at = parameterIndex(f.node, name);
  const fnName = definedName(idx, f.node);
  if (at < 0 || !fnName) return false;
  // The answer reads the calls and the names they pass, wherever they are written (lint/dependencies.ts).
  idx.reads(usesOf(fnName));
  const read = (n: string): void => idx.reads(usesOf(n));
  const calls = callGraph(idx)
    .callsNamed(fnName)
    .filter((c) => c.start < f.node.startIndex || c.end > f.node.endIndex);
  if (calls.length === 0) return false;
  const file = codeSlice(idx, 0, idx.text.length);
  return calls.every(({ call }) => {
    const arg = call.childForFieldName("arguments")?.namedChildren.filter((a) => a?.type !== "comment")[at];
    const root = arg ? rootName(arg) : undefined;
    const caller = idx.enclosingFunction(call);
    return !!root && !!caller && onChip(root, codeSlice(idx, caller.startIndex, caller.endIndex), file, read);
  });
}
