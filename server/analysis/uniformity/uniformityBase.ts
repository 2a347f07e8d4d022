// What the uniformity analysis (uniformity.ts) knows about CUDA: its types, which names and calls differ
// between threads or are the same for the block, and the shapes of code it reads from text alone.
import type { Node } from "web-tree-sitter";
import { textIn } from "../source/nodes";

/** What an expression's value depends on: a thread-varying source itself, or variables (symbol ids). */
export interface Deps {
  direct: boolean;
  syms: number[];
}

/** A condition a statement runs under, and the statement it guards (if, loop, `?:`, `&&`). */
export interface Control {
  readonly cond: Node;
  readonly guarded: Node;
  readonly deps: Deps;
  /** False while the deps are not worked out yet (a loop's trip count: see LoopControl). */
  readonly known?: boolean;
}

/**
 * A counted loop's condition, whose deps (its trip count's) are worked out when first asked: most loops'
 * never are (an assignment in them varies with its own value, no barrier is in them), and reading the
 * loop's shape costs more than the rest of its walk.
 */
export class LoopControl implements Control {
  private value: Deps | undefined;

  constructor(
    readonly cond: Node,
    readonly guarded: Node,
    private readonly work: () => Deps,
  ) {}

  get deps(): Deps {
    return (this.value ??= this.work());
  }

  get known(): boolean {
    return this.value !== undefined;
  }
}

export type BarrierLevel = "block" | "warp" | "unknown";

/** A barrier call: which threads it waits for, and the conditions it runs under, innermost first. */
export interface Barrier {
  call: Node;
  level: BarrierLevel;
  controls: Control[];
  /** The function or lambda the barrier is in. */
  owner: Node;
}

/** A `return`, `break` or `continue`, the conditions it runs under and the loop it leaves. */
export interface Exit {
  stmt: Node;
  kind: "return" | "break" | "continue";
  controls: Control[];
  /** The loop a break/continue leaves (undefined for a break out of a switch); the owner for a return. */
  target: Node | undefined;
  owner: Node;
}

export type SymKind = "value" | "storage" | "pointer" | "shared";

export interface Sym {
  kind: SymKind;
  varying: boolean;
  /** Where it is declared: a condition around its declaration does not make its value differ. */
  at: number;
  /** For cooperative groups: the threads a `g.sync()` waits for. */
  group?: BarrierLevel;
  /** A `const`/`constexpr` with a compile-time value (uniformityConst.ts). */
  constant?: boolean;
  /**
   * A reference bound to memory (`auto& m = *p`, `T& m = p[i]`, `p->m`): `m = e` stores to that memory,
   * like `p[i] = e`, and the reference holds its address's deps (see memoryLvalue).
   */
  memory?: boolean;
}

/**
 * Is `value` (a reference's initializer) a place in memory rather than a local variable: `*p`, `p->m`,
 * `p[i]` with p a pointer, a shared or a global array, or a cast's or call's result, `r.m` of such a
 * place, a reference bound to memory or a `__shared__` variable? A local's elements are not.
 */
export function memoryLvalue(value: Node, resolve: Resolve, syms: readonly Sym[], src: string): boolean {
  let n: Node | null = value;
  while (n) {
    switch (n.type) {
      case "parenthesized_expression":
        n = n.namedChild(0);
        break;
      case "pointer_expression":
        return n.child(0)?.type === "*";
      case "field_expression":
        if (n.child(1)?.type === "->") return true;
        n = n.childForFieldName("argument");
        break;
      case "subscript_expression": {
        const array = n.childForFieldName("argument");
        if (array?.type !== "identifier") return array !== null;
        const s = resolve(textIn(src, array));
        const sym = s === undefined ? undefined : syms[s]!;
        return !sym || sym.kind === "pointer" || sym.kind === "shared" || sym.memory === true;
      }
      case "identifier": {
        const s = resolve(textIn(src, n));
        const sym = s === undefined ? undefined : syms[s]!;
        return sym !== undefined && (sym.kind === "shared" || sym.memory === true);
      }
      default:
        return false;
    }
  }
  return false;
}

export interface Assign {
  target: number;
  deps: Deps;
  controls: Control[];
}

export interface Ctx {
  controls: Control[];
  loop: Node | undefined;
  /** The innermost loop or switch: what a `break` leaves. */
  breakable: Node | undefined;
  owner: Node;
}

/** The exit a `return`, `break` or `continue` statement makes in context `c` (a break from a switch has no loop). */
export function exitOf(stmt: Node, c: Ctx): Exit {
  if (stmt.type === "return_statement")
    return { stmt, kind: "return", controls: c.controls, target: c.owner, owner: c.owner };
  const kind = stmt.type === "break_statement" ? "break" : "continue";
  const target = kind === "continue" ? c.loop : c.breakable?.id === c.loop?.id ? c.loop : undefined;
  return { stmt, kind, controls: c.controls, target, owner: c.owner };
}

export const NONE: Deps = { direct: false, syms: [] };
export const VARYING: Deps = { direct: true, syms: [] };

/** Built-in names whose value differs per thread. */
export const VARYING_NAMES: ReadonlySet<string> = new Set(["threadIdx"]);

/** Calls whose result differs between threads of a block (warp-level ones included: a block has many warps). */
export const VARYING_CALL =
  /^(?:__lane_id|__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|__match_\w+|__reduce_\w+_sync|atomic\w+|__clock|clock|clock64|thread_rank|meta_group_rank|thread_index|shfl\w*|ballot|any|all|match_any|match_all|curand\w*)$/;

/** Calls whose result is the same for the whole block, whatever their arguments. */
export const UNIFORM_CALL =
  /^(?:__syncthreads_(?:or|and|count)|this_thread_block|this_grid|this_cluster|num_threads|size|group_index|group_dim|dim_threads|meta_group_size|block_rank|num_blocks|sizeof)$/;

/** Parameter names a __device__ function's callers pass thread ids in. */
export const THREAD_ID_PARAM =
  /^(?:tid|tidx|tidy|tx|ty|tz|thread_?id(?:x)?|threadId(?:x)?|thread_?idx|thr_?idx|t_?idx|lane|lane_?id(?:x)?|laneId(?:x)?|warp|warp_?id(?:x)?|warpId(?:x)?|ltid|local_?id)$/;

/** Asm operands that read a per-thread special register. */
export const VARYING_ASM = /%%?(?:laneid|tid\b|tid\.|warpid|clock)/;

/** Leaves and type positions that hold no value of the function. */
export const SKIP: ReadonlySet<string> = new Set([
  "number_literal",
  "string_literal",
  "raw_string_literal",
  "char_literal",
  "concatenated_string",
  "true",
  "false",
  "null",
  "nullptr",
  "comment",
  "primitive_type",
  "type_identifier",
  "type_descriptor",
  "template_argument_list",
  "field_identifier",
  "namespace_identifier",
  "qualified_identifier",
  "sizeof_expression",
  "alignof_expression",
  "preproc_def",
  "preproc_function_def",
  "preproc_call",
  "preproc_include",
  "namespace_alias_definition",
  "alias_declaration",
  "type_definition",
  "using_declaration",
  "static_assert_declaration",
]);

/** Expressions whose deps may be read from their text (see Walk.textDeps). */
export const PLAIN_EXPRESSIONS: ReadonlySet<string> = new Set([
  "binary_expression",
  "field_expression",
  "subscript_expression",
  "call_expression",
  "parenthesized_expression",
  "unary_expression",
  "pointer_expression",
  "cast_expression",
  "conditional_expression",
  "update_expression",
]);

/**
 * `[type] name [op]= value;` or `value;`: a declaration of one plain variable or an assignment to one
 * (groups: type, name, value). The type is words and spaces only (no pointer, reference, array, template).
 */
export const SIMPLE_STATEMENT =
  /^(?:(?:((?:[A-Za-z_]\w*\s+)*?[A-Za-z_]\w*)\s+)?([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=))?\s*([^;]*);$/s;

/** Declarations the tree must read: shared memory, `auto`, groups, storage classes. */
export const DECLARATION_TYPE_STOP =
  /__shared__|\bauto\b|group|thread_block|tile|\bstatic\b|\bextern\b|\btypedef\b|\busing\b/;

export const LOOPS: ReadonlySet<string> = new Set([
  "for_statement",
  "while_statement",
  "do_statement",
  "for_range_loop",
]);

/** What a `break` leaves: a loop or a switch. */
export const BREAKABLE: ReadonlySet<string> = new Set([...LOOPS, "switch_statement"]);

export function union(...all: Deps[]): Deps {
  let direct = false;
  const syms: number[] = [];
  for (const d of all) {
    direct ||= d.direct;
    for (const s of d.syms) syms.push(s);
  }
  return direct ? VARYING : syms.length === 0 ? NONE : { direct, syms };
}

/**
 * The name a call calls: `f`, `ns::f`, `obj.f`, `f<T>` (`src`: the file's text, to slice the name from;
 * see textIn).
 */
export function calleeName(fn: Node | null, src?: string): string {
  if (!fn) return "";
  const t = fn.type;
  if (t === "identifier" || t === "field_identifier") return src ? textIn(src, fn) : fn.text;
  if (t === "field_expression") {
    const field = fn.childForFieldName("field");
    return !field ? "" : src ? textIn(src, field) : field.text;
  }
  if (t === "qualified_identifier" || t === "template_function")
    return calleeName(fn.childForFieldName("name"), src);
  return "";
}

/** The threads a cooperative group's declaration names: its type or the call that made it. */
export function groupLevel(text: string): BarrierLevel | undefined {
  if (
    /tiled_partition|thread_block_tile|coalesced_(?:group|threads)|binary_partition|labeled_partition/.test(
      text,
    )
  )
    return "warp";
  if (/\bthread_block\b|\bgrid_group\b|\bcluster_group\b|this_thread_block|this_grid|this_cluster/.test(text))
    return "block";
  return undefined;
}

/** Pointer-like `auto` initialisers: a cast to a pointer or an address. */
export function pointerish(value: string): boolean {
  return /\*\s*[>)]/.test(value) || /^\s*&/.test(value);
}

/** Finds the symbol a name means at the current point of the walk. */
export type Resolve = (name: string) => number | undefined;
