// The FP16/BF16-typed names of a file, found from the type names in the text (not by walking the tree):
// one HalfScope per function that declares any, over a file-level scope.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "./fileIndex";
import { HalfScope } from "./halfTypes";

const HALF_TYPE = /\b(__half2?|half2?|__nv_bfloat162?|nv_bfloat162?)\b/g;
const TYPE_NODES: ReadonlySet<string> = new Set(["type_identifier"]);
const DECLS: ReadonlySet<string> = new Set(["declaration", "parameter_declaration", "field_declaration"]);

export interface FunctionHalfScope {
  fn: Node;
  start: number;
  end: number;
  scope: HalfScope;
}

export interface HalfDecls {
  file: HalfScope;
  /** Every declaration with a half type (in any scope). */
  declarations: Node[];
  /** Functions that declare half-typed names, in document order. */
  functions: FunctionHalfScope[];
  /** The scope for an offset: the function's when it declares half names, else the file's. */
  scopeAt(offset: number): HalfScope;
}

/** `auto* x = reinterpret_cast<const` just before a type name: the cast names the declared type. */
const AUTO_CAST_BEFORE = /\bauto\b[^;={}]*=\s*(?:reinterpret_cast|static_cast)\s*<[^<>;]*$/;

/** The declaration a half type name belongs to: its `type`, or the type inside `auto x = cast<T*>(…)`. */
function declarationOf(idx: FileIndex, typeName: Node): Node | undefined {
  const direct = typeName.parent;
  if (direct && DECLS.has(direct.type)) return direct;
  // Walking up is costly; only the `auto` cast form is worth it.
  if (!AUTO_CAST_BEFORE.test(idx.text.slice(Math.max(0, typeName.startIndex - 120), typeName.startIndex)))
    return undefined;
  let n: Node | null = direct;
  for (let i = 0; n && i < 8; i++, n = n.parent) {
    if (DECLS.has(n.type)) return n;
    if (
      n.type === "compound_statement" ||
      n.type === "function_definition" ||
      n.type === "expression_statement"
    )
      return undefined;
  }
  return undefined;
}

export function halfDecls(idx: FileIndex): HalfDecls {
  return idx.shared("halfDecls", () => findHalfDecls(idx));
}

function findHalfDecls(idx: FileIndex): HalfDecls {
  const fileDecls: Node[] = [];
  const perFn = new Map<number, { fn: Node; decls: Node[] }>();
  const seen = new Set<number>();
  for (const m of idx.scan(HALF_TYPE)) {
    // Text first: a declared type is followed by `*`, `&` or a name; `<__half, 256>` and `__half(x)` are not.
    const after = /^\s*([*&A-Za-z_])/.test(idx.text.slice(m.index + m[0].length, m.index + m[0].length + 40));
    if (!after) continue;
    const t = idx.nodeAt(m.index, m.index + m[0].length);
    if (!TYPE_NODES.has(t.type) || t.startIndex !== m.index) continue;
    const decl = declarationOf(idx, t);
    if (!decl || seen.has(decl.id)) continue;
    seen.add(decl.id);
    const fn = idx.functionAt(decl.startIndex);
    if (!fn) {
      fileDecls.push(decl);
      continue;
    }
    const e = perFn.get(fn.id) ?? { fn, decls: [] };
    e.decls.push(decl);
    perFn.set(fn.id, e);
  }
  const file = new HalfScope(fileDecls);
  const functions = [...perFn.values()]
    .map(({ fn, decls }) => ({
      fn,
      start: fn.startIndex,
      end: fn.endIndex,
      scope: new HalfScope(decls, file),
    }))
    .sort((a, b) => a.start - b.start);
  const result: HalfDecls = {
    file,
    declarations: [...fileDecls, ...[...perFn.values()].flatMap((e) => e.decls)],
    functions,
    scopeAt(offset) {
      // Functions come from functionAt (outermost definitions), so they do not overlap: binary search.
      let lo = 0;
      let hi = functions.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const f = functions[mid]!;
        if (offset < f.start) hi = mid - 1;
        else if (offset >= f.end) lo = mid + 1;
        else return f.scope;
      }
      return file;
    },
  };
  return result;
}
