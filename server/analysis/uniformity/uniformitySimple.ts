// The uniformity walk's readers of whole statements from their text (uniformityWalk.ts). Most statements
// of a kernel are `x = e;`, `a[i] += e;`, `int x = e;`, `__shared__ float s[N];` or a bare barrier: read
// from text they cost the walk one node each instead of about ten (every node handed to JS costs). Each
// reader gives what the walk over the nodes would, or undefined where the tree is needed.
import type { Node } from "web-tree-sitter";
import { isWordCode } from "../source/charCodes";
import { declaredName } from "../source/nodes";
import {
  DECLARATION_TYPE_STOP,
  groupLevel,
  NONE,
  SIMPLE_STATEMENT,
  THREAD_ID_PARAM,
  union,
  type Barrier,
  type Ctx,
  type Deps,
  type Resolve,
  type Sym,
  type SymKind,
} from "./uniformityBase";
import { surelyRuntime, type Constants } from "./uniformityConst";
import { textDeps } from "./uniformityText";

/** What the readers record into: the walk's symbols, scopes, assignments and barriers. */
export interface Recorder {
  readonly syms: readonly Sym[];
  readonly barriers: Barrier[];
  readonly consts: Constants;
  readonly resolver: Resolve;
  declare(name: string, sym: Sym): number;
  record(s: number, deps: Deps, c: Ctx): void;
  /** Records `name = deps` (`plain`: `=`, not `+=`…) to variable `s`; the symbol that holds the value now. */
  assign(s: number, name: string, deps: Deps, c: Ctx, plain: boolean, at: number): number;
  /** A node's text (Node.text costs more). */
  text(n: Node): string;
}

/**
 * Does a type end in a qualifier (`const x`): the next word is then the type, not a name. (What
 * `\b(?:const|volatile)\s*$` finds, without a regex trying every word of the type.)
 */
function qualifierLast(type: string): boolean {
  const t = type.trimEnd();
  const word = t.endsWith("const") ? 5 : t.endsWith("volatile") ? 8 : 0;
  return word > 0 && !isWordCode(t.charCodeAt(t.length - word - 1));
}

/** `a[i] = e;`, `a[i] += e;`: a store to one element (groups: array, index, value). */
const ELEMENT_STATEMENT = /^([A-Za-z_]\w*)\s*\[([^[\];]*)\]\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)\s*([^;]*);$/s;

/** `x = e`, `x += e` as an expression (a for loop's update; groups: name, value). */
const SIMPLE_ASSIGNMENT = /^([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)\s*([^;]*)$/s;

/** `__syncthreads();`, `__syncwarp();` on their own. */
const BARE_BARRIER = /^(__syncthreads|__syncwarp)\s*\(\s*\)\s*;$/;

/**
 * `const T* __restrict__ p = e;`: one pointer with a value (groups: what comes before the `*`, the name,
 * the value).
 */
const POINTER_DECLARATION =
  /^((?:(?:const|volatile)\s+)*(?:(?:unsigned|signed|long|short)\s+)*[A-Za-z_]\w*\s*)\*\s*(?:(?:const|__restrict__)\s+)*([A-Za-z_]\w*)\s*=(?!=)\s*([^;]*);$/s;

/**
 * `[extern] __shared__ [volatile|const] [unsigned…] T name[N]…;`: one array without initialiser (groups:
 * what comes before the name, the name). The type is one word: the tree reads it as the declaration's type.
 */
const SHARED_ARRAY =
  /^((?:extern\s+)?__shared__\s+(?:(?:volatile|const)\s+)?(?:(?:unsigned|signed|long|short)\s+)*([A-Za-z_]\w*)\s+)([A-Za-z_]\w*)\s*(?:\[[^[\];=]*\]\s*)+;$/;

/**
 * `x = e;`, `x += e;`, `int x = e;`, `e;`, `(e)`, `a[i] = e;`, a bare barrier and a `__shared__` array,
 * from their text alone, when `e` needs no tree; undefined for anything else.
 */
export function simpleStatement(r: Recorder, node: Node, type: string, c: Ctx): Deps | undefined {
  const text = r.text(node);
  if (type === "condition_clause") return text.startsWith("(") ? textDeps(text, r.resolver) : undefined;
  return (
    plainStatement(r, node, type, text, c) ??
    (type === "declaration"
      ? (pointer(r, node, text, c) ?? sharedArray(r, node, text))
      : storeOrBarrier(r, node, text, c))
  );
}

/** `x = e;`, `x += e;`, `int x = e;` and `e;` (undefined before recording anything when it is not one). */
function plainStatement(r: Recorder, node: Node, type: string, text: string, c: Ctx): Deps | undefined {
  // without `=`, SIMPLE_STATEMENT finds only `e;` (here without its backtracking over the words)
  if (!text.includes("=")) {
    if (type === "declaration" || !text.endsWith(";") || text.indexOf(";") < text.length - 1)
      return undefined;
    return textDeps(text.slice(0, -1).trimStart(), r.resolver) ? NONE : undefined;
  }
  const m = SIMPLE_STATEMENT.exec(text);
  if (!m) return undefined;
  const [, declared, name, value] = m;
  const declaration = type === "declaration";
  if (declaration !== !!declared || (declared && DECLARATION_TYPE_STOP.test(declared))) return undefined;
  const deps = textDeps(value!, r.resolver);
  if (!deps) return undefined;
  if (!name) return NONE; // an expression statement without assignment
  if (declared) {
    const constant =
      /\bconst(?:expr)?\b/.test(declared) && !surelyRuntime(value!) && r.consts.declaresOne(node);
    const id = r.declare(name, { kind: "storage", varying: false, at: node.startIndex, constant });
    r.record(id, deps, c);
    return { direct: false, syms: [id] };
  }
  const s = r.resolver(name);
  if (s !== undefined && r.syms[s]!.kind !== "shared")
    r.assign(s, name, deps, c, plainAfter(text, name.length), node.startIndex);
  return NONE;
}

/**
 * `a[i] = e;` (the element of local storage takes e's and i's deps; a store through a pointer or into
 * shared memory records nothing) and `__syncthreads();`. Their value as statements is never read: NONE.
 */
function storeOrBarrier(r: Recorder, node: Node, text: string, c: Ctx): Deps | undefined {
  const b = BARE_BARRIER.exec(text);
  if (b) {
    const call = node.namedChild(0)!;
    r.barriers.push({
      call,
      level: b[1] === "__syncwarp" ? "warp" : "block",
      controls: c.controls,
      owner: c.owner,
    });
    return NONE;
  }
  const m = text.includes("=") ? ELEMENT_STATEMENT.exec(text) : null;
  if (!m) return undefined;
  const [, name, index, value] = m;
  const deps = textDeps(value!, r.resolver);
  const at = deps && textDeps(index!, r.resolver);
  if (!deps || !at) return undefined;
  const s = r.resolver(name!);
  const kind = s === undefined ? undefined : r.syms[s]!.kind;
  if (kind && kind !== "shared" && kind !== "pointer") r.record(s!, union(deps, at), c);
  return NONE;
}

/** `x = e`, `x op= e` inside an expression: the deps of its value (x's, where x is recorded). */
export function simpleAssignment(r: Recorder, node: Node, c: Ctx): Deps | undefined {
  const text = r.text(node);
  const m = SIMPLE_ASSIGNMENT.exec(text);
  const deps = m && textDeps(m[2]!, r.resolver);
  if (!deps) return undefined;
  const name = m[1]!;
  const s = r.resolver(name);
  if (s === undefined || r.syms[s]!.kind === "shared") return union(deps);
  const now = r.assign(s, name, union(deps), c, plainAfter(text, name.length), node.startIndex);
  return { direct: false, syms: [now] };
}

/** Is the assignment operator after the name that `text` starts with (`length` long) a plain `=`? */
function plainAfter(text: string, length: number): boolean {
  return text.slice(length).trimStart().startsWith("=");
}

/** `const float* p = x + i;`: a pointer takes its value's deps (it is declared at its `*`). */
function pointer(r: Recorder, node: Node, text: string, c: Ctx): Deps | undefined {
  const m = text.includes("=") ? POINTER_DECLARATION.exec(text) : null;
  if (!m || DECLARATION_TYPE_STOP.test(m[1]!) || qualifierLast(m[1]!)) return undefined;
  const deps = textDeps(m[3]!, r.resolver);
  if (!deps) return undefined;
  const at = node.startIndex + m[1]!.length;
  const id = r.declare(m[2]!, { kind: "pointer", varying: false, group: undefined, at, constant: false });
  r.record(id, deps, c);
  return { direct: false, syms: [id] };
}

/** `__shared__ float s[N];`: a shared array (no value, so nothing recorded). */
function sharedArray(r: Recorder, node: Node, text: string): Deps | undefined {
  const m = SHARED_ARRAY.exec(text);
  // a cooperative group's type would give the symbol a level (see groupLevel)
  if (!m || /group|thread_block|tile|auto/.test(m[2]!) || qualifierLast(m[2]!)) return undefined;
  const at = node.startIndex + m[1]!.length;
  const id = r.declare(m[3]!, { kind: "shared", varying: false, group: undefined, at, constant: false });
  return { direct: false, syms: [id] };
}

/** `const float* __restrict__ x`, `int n`, `T& v` (groups: the type with its qualifiers, `*` or `&`, the name). */
const PARAMETER =
  /^((?:(?:const|volatile)\s+)*(?:(?:unsigned|signed|long|short)\s+)*[A-Za-z_]\w*)(?:\s*([*&])\s*(?:(?:const|__restrict__)\s+)*|\s+)([A-Za-z_]\w*)$/;

/** Words that end a type, not name a parameter (`unsigned int` has no name). */
const TYPE_WORD =
  /^(?:int|char|short|long|float|double|unsigned|signed|bool|void|const|volatile|__restrict__)$/;

/** A parameter read from text: its name, whether it is a plain value, and its type's text. */
export interface Parameter {
  name: string;
  value: boolean;
  type: string;
}

/**
 * The parameters of a parameter list's text `(…)` when each is a plain one (see PARAMETER); undefined
 * when any needs the tree (templates, arrays, defaults, function pointers, comments, packs).
 */
export function simpleParameters(list: string): Parameter[] | undefined {
  const inner = list.slice(1, -1);
  if (!list.startsWith("(") || !list.endsWith(")") || /[()<>[\]=/."':.]/.test(inner)) return undefined;
  const out: Parameter[] = [];
  for (const p of inner.split(",")) {
    const t = p.trim();
    if (t === "" && inner.trim() === "") continue;
    const m = PARAMETER.exec(t);
    // `const x` is a type named x without a name; `unsigned int`, a type without a name
    if (!m || TYPE_WORD.test(m[3]!) || qualifierLast(m[1]!)) return undefined;
    out.push({ name: m[3]!, value: !m[2], type: m[1]! });
  }
  return out;
}

/** Declares a function's or lambda's parameters (a __device__ function's are uniform unless named like a thread id). */
export function declareParams(r: Recorder, declarator: Node | null, device: boolean): void {
  let d = declarator;
  while (d && d.type !== "function_declarator" && d.type !== "abstract_function_declarator")
    d =
      d.childForFieldName("declarator") ??
      d.namedChildren.find((c) => c?.type.endsWith("declarator")) ??
      null;
  const list = d?.childForFieldName("parameters");
  const simple = list ? simpleParameters(r.text(list)) : undefined;
  if (simple) {
    for (const p of simple)
      r.declare(p.name, {
        kind: p.value ? "value" : "pointer",
        at: -1,
        varying: device && THREAD_ID_PARAM.test(p.name),
        group: groupLevel(p.type),
      });
    return;
  }
  for (const p of list?.namedChildren ?? []) {
    if (!p || !p.type.endsWith("parameter_declaration")) continue;
    const decl = p.childForFieldName("declarator");
    const name = declaredName(decl);
    if (!name) continue;
    const top = decl!.type;
    const kind: SymKind = top === "identifier" ? "value" : "pointer";
    const text = r.text(name);
    const type = p.childForFieldName("type");
    r.declare(text, {
      kind,
      at: -1,
      varying: device && THREAD_ID_PARAM.test(text),
      group: groupLevel(type ? r.text(type) : ""),
    });
  }
}
