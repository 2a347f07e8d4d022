// Which values of a kernel or __device__ function may differ between the threads of one block.
//
// Thread-varying: threadIdx, lane and warp ids, cooperative-groups ranks, warp shuffles and votes (one
// value per warp at best, so still different across the block), atomics' results, `%laneid`-style asm,
// and what flows from them, by assignment or by being assigned under a varying condition. Block-uniform:
// kernel parameters, constants, template parameters, macros, blockIdx/blockDim/gridDim, sizeof, loop
// counters whose start, bound and step are uniform, `__syncthreads_or/and/count` results, and memory read
// at a uniform address (a `__shared__` value written by one thread is one value per block: reading it
// after the barrier gives every thread the same). Names are resolved through the function's scopes, so
// two loops' `i` are two variables.
//
// Simplifications, on purpose: a __device__ function's parameters are uniform unless named like a thread
// id (`tid`, `lane`, `warp_id`...), since its callers are not looked at; class members and globals are
// uniform; a call's result varies only with its arguments (or its object); the walk is one pass over the
// function plus a fixed point over the assignments it recorded.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "./fileIndex";
import { declaredName, descendants, unparen } from "./nodes";

/** What an expression's value depends on: a thread-varying source itself, or variables (symbol ids). */
export interface Deps {
  direct: boolean;
  syms: number[];
}

/** A condition a statement runs under, and the statement it guards (if, loop, `?:`, `&&`). */
export interface Control {
  cond: Node;
  guarded: Node;
  deps: Deps;
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

type SymKind = "value" | "storage" | "pointer" | "shared";

interface Sym {
  kind: SymKind;
  varying: boolean;
  /** Where it is declared: a condition around its declaration does not make its value differ. */
  at: number;
  /** For cooperative groups: the threads a `g.sync()` waits for. */
  group?: BarrierLevel;
}

interface Assign {
  target: number;
  deps: Deps;
  controls: Control[];
}

interface Ctx {
  controls: Control[];
  loop: Node | undefined;
  /** The innermost loop or switch: what a `break` leaves. */
  breakable: Node | undefined;
  owner: Node;
}

const NONE: Deps = { direct: false, syms: [] };
const VARYING: Deps = { direct: true, syms: [] };

/** Built-in names whose value differs per thread. */
const VARYING_NAMES: ReadonlySet<string> = new Set(["threadIdx"]);

/** Calls whose result differs between threads of a block (warp-level ones included: a block has many warps). */
const VARYING_CALL =
  /^(?:__lane_id|__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|__match_\w+|__reduce_\w+_sync|atomic\w+|__clock|clock|clock64|thread_rank|meta_group_rank|thread_index|shfl\w*|ballot|any|all|match_any|match_all|curand\w*)$/;

/** Calls whose result is the same for the whole block, whatever their arguments. */
const UNIFORM_CALL =
  /^(?:__syncthreads_(?:or|and|count)|this_thread_block|this_grid|this_cluster|num_threads|size|group_index|group_dim|dim_threads|meta_group_size|block_rank|num_blocks|sizeof)$/;

/** Parameter names a __device__ function's callers pass thread ids in. */
const THREAD_ID_PARAM =
  /^(?:tid|tidx|tidy|tx|ty|tz|thread_?id(?:x)?|threadId(?:x)?|thread_?idx|thr_?idx|t_?idx|lane|lane_?id(?:x)?|laneId(?:x)?|warp|warp_?id(?:x)?|warpId(?:x)?|ltid|local_?id)$/;

/** Asm operands that read a per-thread special register. */
const VARYING_ASM = /%%?(?:laneid|tid\b|tid\.|warpid|clock)/;

/** Leaves and type positions that hold no value of the function. */
const SKIP: ReadonlySet<string> = new Set([
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
const PLAIN_EXPRESSIONS: ReadonlySet<string> = new Set([
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
 * What only the tree can tell: assignments (`=`, `+=`, `<<=`), barriers, lambdas, `&x` out-parameters,
 * literals and comments, sizeof, and template calls (`size<3>(t)`, `static_cast<int>(x)`).
 */
const NEEDS_TREE =
  /(?:^|[^=!<>])=(?!=)|<<=|>>=|sync|\[[&=]|\]\s*\(|[(,]\s*&(?!&)|["']|\/[/*]|\b(?:sizeof|alignof|decltype|this)\b|\w\s*<[^;]*>\s*\(/;

/**
 * `[type] name [op]= value;` or `value;`: a declaration of one plain variable or an assignment to one
 * (groups: type, name, value). The type is words and spaces only (no pointer, reference, array, template).
 */
const SIMPLE_STATEMENT =
  /^(?:(?:((?:[A-Za-z_]\w*\s+)*?[A-Za-z_]\w*)\s+)?([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=))?\s*([^;]*);$/s;

/** Declarations the tree must read: shared memory, `auto`, groups, storage classes. */
const DECLARATION_TYPE_STOP =
  /__shared__|\bauto\b|group|thread_block|tile|\bstatic\b|\bextern\b|\btypedef\b|\busing\b/;

/** A name, what comes before it (`.`, `->`, `::`) and whether a call or `::` follows. */
const WORD = /(\.|->|::)?\s*\b([A-Za-z_]\w*)\b(\s*(?:\(|::))?/g;

const LOOPS: ReadonlySet<string> = new Set([
  "for_statement",
  "while_statement",
  "do_statement",
  "for_range_loop",
]);

function union(...all: Deps[]): Deps {
  let direct = false;
  const syms: number[] = [];
  for (const d of all) {
    direct ||= d.direct;
    for (const s of d.syms) syms.push(s);
  }
  return direct ? VARYING : syms.length === 0 ? NONE : { direct, syms };
}

/** The operands of a sum: `a + b + tid` → a, b, tid. */
function addends(n: Node): Node[] {
  const u = unparen(n);
  if (u.type !== "binary_expression" || u.childForFieldName("operator")?.text !== "+") return [u];
  const l = u.childForFieldName("left");
  const r = u.childForFieldName("right");
  return l && r ? [...addends(l), ...addends(r)] : [u];
}

/** The name a call calls: `f`, `ns::f`, `obj.f`, `f<T>`. */
export function calleeName(fn: Node | null): string {
  if (!fn) return "";
  if (fn.type === "identifier" || fn.type === "field_identifier") return fn.text;
  if (fn.type === "field_expression") return fn.childForFieldName("field")?.text ?? "";
  if (fn.type === "qualified_identifier" || fn.type === "template_function")
    return calleeName(fn.childForFieldName("name"));
  return "";
}

/** The threads a cooperative group's declaration names: its type or the call that made it. */
function groupLevel(text: string): BarrierLevel | undefined {
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
function pointerish(value: string): boolean {
  return /\*\s*[>)]/.test(value) || /^\s*&/.test(value);
}

/** One pass over a function: its symbols, assignments, conditions, barriers and exits. */
class Walk {
  readonly syms: Sym[] = [];
  readonly assigns: Assign[] = [];
  readonly barriers: Barrier[] = [];
  readonly exits: Exit[] = [];
  private readonly scopes: Map<string, number>[] = [];

  constructor(
    fn: Node,
    body: Node,
    private readonly kernel: boolean,
  ) {
    const ctx: Ctx = { controls: [], loop: undefined, breakable: undefined, owner: fn };
    this.scopes.push(new Map());
    this.params(fn.childForFieldName("declarator"), !kernel);
    this.visit(body, ctx);
    this.scopes.pop();
  }

  private declare(name: string, sym: Sym): number {
    this.syms.push(sym);
    this.scopes[this.scopes.length - 1]!.set(name, this.syms.length - 1);
    return this.syms.length - 1;
  }

  private resolve(name: string): number | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i]!.get(name);
      if (s !== undefined) return s;
    }
    return undefined;
  }

  /** Declares a function's or lambda's parameters (a __device__ function's are uniform unless named like a thread id). */
  private params(declarator: Node | null, device: boolean): void {
    let d = declarator;
    while (d && d.type !== "function_declarator" && d.type !== "abstract_function_declarator")
      d =
        d.childForFieldName("declarator") ??
        d.namedChildren.find((c) => c?.type.endsWith("declarator")) ??
        null;
    const list = d?.childForFieldName("parameters");
    for (const p of list?.namedChildren ?? []) {
      if (!p || !p.type.endsWith("parameter_declaration")) continue;
      const decl = p.childForFieldName("declarator");
      const name = declaredName(decl);
      if (!name) continue;
      const top = decl!.type;
      const kind: SymKind = top === "identifier" ? "value" : "pointer";
      this.declare(name.text, {
        kind,
        at: -1,
        varying: device && THREAD_ID_PARAM.test(name.text),
        group: groupLevel(p.childForFieldName("type")?.text ?? ""),
      });
    }
  }

  /** The value a node computes depends on; records what statements inside it do. */
  visit(node: Node, c: Ctx): Deps {
    const t = node.type;
    if (SKIP.has(t)) return NONE;
    if (PLAIN_EXPRESSIONS.has(t)) {
      const fast = this.textDeps(node.text);
      if (fast) return fast;
    }
    switch (t) {
      case "identifier": {
        const s = this.resolve(node.text);
        return s !== undefined ? { direct: false, syms: [s] } : VARYING_NAMES.has(node.text) ? VARYING : NONE;
      }
      case "field_expression":
        return this.visitOpt(node.childForFieldName("argument"), c);
      case "call_expression":
        return this.call(node, c);
      case "assignment_expression":
        return this.assignment(node, c);
      case "conditional_expression": {
        const cond = node.childForFieldName("condition")!;
        const deps = this.visit(cond, c);
        const inner = this.under(c, cond, node, deps);
        const a = this.visitOpt(node.childForFieldName("consequence"), inner);
        return union(deps, a, this.visitOpt(node.childForFieldName("alternative"), inner));
      }
      case "binary_expression": {
        const op = node.childForFieldName("operator")?.text;
        const left = node.childForFieldName("left")!;
        const l = this.visit(left, c);
        const rc = op === "&&" || op === "||" ? this.under(c, left, node, l) : c;
        return union(l, this.visitOpt(node.childForFieldName("right"), rc));
      }
      case "lambda_expression":
        this.lambda(node);
        return NONE;
      case "gnu_asm_expression":
        this.asm(node, c);
        return NONE;
      case "declaration":
        return this.simpleStatement(node, c) ?? this.declaration(node, c);
      case "expression_statement":
      case "condition_clause":
        return this.simpleStatement(node, c) ?? union(...this.childDeps(node, c));
      case "compound_statement":
        this.scoped(() => this.children(node, c));
        return NONE;
      default:
        return this.statement(node, c) ?? union(...this.childDeps(node, c));
    }
  }

  /**
   * The deps of an expression read from its text, when it holds nothing the tree is needed for (see
   * NEEDS_TREE): most conditions and right-hand sides. Visiting every node of them costs ~10x more.
   */
  private textDeps(text: string): Deps | undefined {
    if (NEEDS_TREE.test(text)) return undefined;
    const syms: number[] = [];
    for (const m of text.matchAll(WORD)) {
      const [, before, word, after] = m;
      if (after?.startsWith("(")) {
        if (VARYING_CALL.test(word!)) return VARYING;
        if (UNIFORM_CALL.test(word!)) return undefined;
        continue;
      }
      if (before || after) continue; // a member, or a namespace or class name
      const s = this.resolve(word!);
      if (s !== undefined) syms.push(s);
      else if (VARYING_NAMES.has(word!)) return VARYING;
    }
    return syms.length === 0 ? NONE : { direct: false, syms };
  }

  /**
   * `x = e;`, `x += e;`, `int x = e;`, `e;` and `(e)` from their text alone, when `e` needs no tree (the
   * bulk of a kernel's statements); undefined for anything else.
   */
  private simpleStatement(node: Node, c: Ctx): Deps | undefined {
    const text = node.text;
    if (node.type === "condition_clause") return text.startsWith("(") ? this.textDeps(text) : undefined;
    const m = SIMPLE_STATEMENT.exec(text);
    if (!m) return undefined;
    const [, type, name, value] = m;
    const declaration = node.type === "declaration";
    if (declaration !== !!type || (type && DECLARATION_TYPE_STOP.test(type))) return undefined;
    const deps = this.textDeps(value!);
    if (!deps) return undefined;
    if (!name) return NONE; // an expression statement without assignment
    if (type) {
      const id = this.declare(name, { kind: "storage", varying: false, at: node.startIndex });
      this.record(id, deps, c);
      return { direct: false, syms: [id] };
    }
    const s = this.resolve(name);
    if (s !== undefined && this.syms[s]!.kind !== "shared") this.record(s, deps, c);
    return NONE;
  }

  private visitOpt(node: Node | null, c: Ctx): Deps {
    return node ? this.visit(node, c) : NONE;
  }

  private childDeps(node: Node, c: Ctx): Deps[] {
    const out: Deps[] = [];
    for (const k of node.namedChildren) if (k) out.push(this.visit(k, c));
    return out;
  }

  private children(node: Node, c: Ctx): void {
    for (const k of node.namedChildren) if (k) this.visit(k, c);
  }

  private scoped(f: () => void): void {
    this.scopes.push(new Map());
    try {
      f();
    } finally {
      this.scopes.pop();
    }
  }

  /** Control statements, returns and jumps; undefined for other nodes. */
  private statement(node: Node, c: Ctx): Deps | undefined {
    switch (node.type) {
      case "if_statement":
      case "switch_statement":
        this.scoped(() => {
          const cond = node.childForFieldName("condition")!;
          const inner = this.under(c, cond, node, this.visit(cond, c));
          if (node.type === "switch_statement") inner.breakable = node;
          this.visitOpt(node.childForFieldName("consequence") ?? node.childForFieldName("body"), inner);
          this.visitOpt(node.childForFieldName("alternative"), inner);
        });
        return NONE;
      case "while_statement":
      case "do_statement": {
        // a do-while's condition can only name what is declared outside its body
        const cond = node.childForFieldName("condition")!;
        this.visitOpt(node.childForFieldName("body"), this.under(c, cond, node, this.visit(cond, c), node));
        return NONE;
      }
      case "for_statement":
        this.scoped(() => {
          this.visitOpt(node.childForFieldName("initializer"), c);
          const cond = node.childForFieldName("condition");
          const deps = cond ? this.visit(cond, c) : NONE;
          const trips = cond && this.varies0(deps) ? (this.shiftedTripCount(node) ?? deps) : deps;
          const inner = cond ? this.under(c, cond, node, trips, node) : { ...c, loop: node, breakable: node };
          this.visitOpt(node.childForFieldName("update"), inner);
          this.visitOpt(node.childForFieldName("body"), inner);
        });
        return NONE;
      case "for_range_loop":
        this.scoped(() => {
          const right = node.childForFieldName("right")!;
          const deps = this.visit(right, c);
          const name = declaredName(node.childForFieldName("declarator"));
          if (name)
            this.record(
              this.declare(name.text, { kind: "storage", varying: false, at: node.startIndex }),
              deps,
              c,
            );
          this.visitOpt(node.childForFieldName("body"), this.under(c, right, node, deps, node));
        });
        return NONE;
      case "preproc_if": {
        // `#if 0` code is not compiled: only its `#else` is
        const cond = node.childForFieldName("condition")?.text.trim();
        const alternative = node.childForFieldName("alternative");
        if (cond === "0") return this.visitOpt(alternative, c);
        for (const k of node.namedChildren)
          if (k && !(cond === "1" && k.id === alternative?.id)) this.visit(k, c);
        return NONE;
      }
      case "return_statement":
        this.children(node, c);
        this.exits.push({
          stmt: node,
          kind: "return",
          controls: c.controls,
          target: c.owner,
          owner: c.owner,
        });
        return NONE;
      case "break_statement":
      case "continue_statement": {
        const target =
          node.type === "continue_statement" ? c.loop : c.breakable?.id === c.loop?.id ? c.loop : undefined;
        const kind = node.type === "break_statement" ? "break" : "continue";
        this.exits.push({ stmt: node, kind, controls: c.controls, target, owner: c.owner });
        return NONE;
      }
      default:
        return undefined;
    }
  }

  /** Whether deps may vary at all (before the fixed point: any variable might). */
  private varies0(d: Deps): boolean {
    return d.direct || d.syms.length > 0;
  }

  /**
   * `for (t = a + tid; t < b + tid; t += c)`: both bounds move with the same term, so the trip count
   * depends only on the rest (a, b, c). Its deps, or undefined for other loops.
   */
  private shiftedTripCount(loop: Node): Deps | undefined {
    const init = loop.childForFieldName("initializer");
    let name: string | undefined;
    let start: Node | null = null;
    if (init?.type === "declaration") {
      const d = init.childForFieldName("declarator");
      if (d?.type !== "init_declarator") return undefined;
      name = declaredName(d.childForFieldName("declarator"))?.text;
      start = d.childForFieldName("value");
    } else if (init?.type === "assignment_expression" && init.childForFieldName("operator")?.text === "=") {
      name = init.childForFieldName("left")?.text;
      start = init.childForFieldName("right");
    }
    const cond = unparen(loop.childForFieldName("condition")!);
    const bound = cond.childForFieldName("right");
    if (
      !name ||
      !start ||
      !bound ||
      cond.type !== "binary_expression" ||
      cond.childForFieldName("left")?.text !== name
    )
      return undefined;
    const update = loop.childForFieldName("update");
    const u = update && unparen(update);
    let step: Node | null = null;
    if (u?.type === "assignment_expression" && u.childForFieldName("left")?.text === name)
      step = u.childForFieldName("right");
    else if (u?.type !== "update_expression" || u.childForFieldName("argument")?.text !== name)
      return undefined;
    const from = addends(start);
    const to = addends(bound);
    const rest = from.filter((f) => {
      const i = to.findIndex((t) => t.text.replace(/\s+/g, "") === f.text.replace(/\s+/g, ""));
      if (i >= 0) to.splice(i, 1);
      return i < 0;
    });
    if (rest.length === from.length) return undefined;
    return union(...[...rest, ...to, ...(step ? [step] : [])].map((n) => this.pureDeps(n)));
  }

  /** What an expression reads, without recording anything (for a second look at visited code). */
  private pureDeps(n: Node): Deps {
    const syms: number[] = [];
    for (const id of descendants(n, "identifier")) {
      const s = this.resolve(id.text);
      if (s !== undefined) syms.push(s);
      else if (VARYING_NAMES.has(id.text)) return VARYING;
    }
    for (const call of descendants(n, "call_expression"))
      if (VARYING_CALL.test(calleeName(call.childForFieldName("function")))) return VARYING;
    return { direct: false, syms };
  }

  private call(node: Node, c: Ctx): Deps {
    const fn = node.childForFieldName("function");
    const name = calleeName(fn);
    const recv = fn?.type === "field_expression" ? this.visitOpt(fn.childForFieldName("argument"), c) : NONE;
    const args = node.childForFieldName("arguments")?.namedChildren.filter((a): a is Node => !!a) ?? [];
    const argDeps = args.map((a) => this.visit(a, c));
    const level = this.barrierLevel(name, fn, args);
    if (level) this.barriers.push({ call: node, level, controls: c.controls, owner: c.owner });
    const misparsed = this.misparsedComparison(fn);
    const varying = VARYING_CALL.test(misparsed?.callee ?? name);
    const all = varying ? VARYING : union(recv, ...argDeps);
    // `f(…, &x)` may write x from what the call read
    for (const a of args)
      if (a.type === "pointer_expression" && a.child(0)?.type === "&")
        this.assignTo(a.childForFieldName("argument"), all, c);
    if (misparsed) return union(misparsed.left, UNIFORM_CALL.test(misparsed.callee) ? NONE : all);
    return UNIFORM_CALL.test(name) ? NONE : all;
  }

  /**
   * `i < size<3>(t)` parses as the template call `i<(size<3)>(t)`: a local variable cannot be a template,
   * so that is a comparison of `i` with the call `size<3>(t)`.
   */
  private misparsedComparison(fn: Node | null): { left: Deps; callee: string } | undefined {
    if (fn?.type !== "template_function") return undefined;
    const name = fn.childForFieldName("name");
    const s = name?.type === "identifier" ? this.resolve(name.text) : undefined;
    if (s === undefined) return undefined;
    let callee = fn.childForFieldName("arguments")?.namedChild(0) ?? null;
    while (callee && callee.type === "binary_expression") callee = callee.childForFieldName("left");
    return { left: { direct: false, syms: [s] }, callee: calleeName(callee) };
  }

  /** Which threads a call waits for, when it is a barrier. */
  private barrierLevel(name: string, fn: Node | null, args: Node[]): BarrierLevel | undefined {
    if (name.startsWith("__syncthreads")) return "block";
    if (name === "__syncwarp") return "warp";
    if (name !== "sync") return undefined;
    // `g.sync()`, or `cg::sync(g)`
    const group =
      fn?.type === "field_expression" ? fn.childForFieldName("argument") : args.length === 1 ? args[0] : null;
    if (!group) return undefined;
    if (group.type === "identifier") {
      const s = this.resolve(group.text);
      return (s !== undefined ? this.syms[s]!.group : undefined) ?? "unknown";
    }
    return groupLevel(group.text) ?? "unknown";
  }

  /**
   * Records `left = deps`: a variable, or an element of local storage (`a[i]`, `v.x`, `a[i].x`). Writes
   * through pointers reach memory, not the variable: `p[i]`, `*p`, `p->x`, and `s.ptr[i]` (an index into a
   * member is most often a pointer member).
   */
  private assignTo(left: Node | null, deps: Deps, c: Ctx): Deps {
    const parts: Deps[] = [deps];
    let target = left;
    let element = false;
    let memory = false;
    while (target) {
      if (target.type === "parenthesized_expression") target = target.namedChild(0);
      else if (target.type === "subscript_expression" || target.type === "pointer_expression") {
        const index = target.childForFieldName("indices") ?? target.childForFieldName("index");
        if (index) parts.push(this.visit(index, c));
        target = target.childForFieldName("argument");
        memory ||= target?.type === "field_expression";
        element = true;
      } else if (target.type === "field_expression") {
        memory ||= target.child(1)?.type === "->";
        element = true;
        target = target.childForFieldName("argument");
      } else break;
    }
    if (target?.type !== "identifier") {
      if (target) parts.push(this.visit(target, c));
      return union(...parts);
    }
    const s = this.resolve(target.text);
    const sym = s === undefined ? undefined : this.syms[s]!;
    if (!sym || sym.kind === "shared" || memory || (element && sym.kind === "pointer"))
      return union(...parts);
    this.record(s!, union(...parts), c);
    return { direct: false, syms: [s!] };
  }

  /**
   * Records an assignment to symbol `s`. Of the conditions it runs under, only those around the variable's
   * whole life do not count: threads that skip the declaration have no such variable (a loop counter
   * declared inside a thread-dependent loop is still uniform among the threads that run it).
   */
  private record(s: number, deps: Deps, c: Ctx): void {
    const at = this.syms[s]!.at;
    const controls = c.controls.filter((k) => !(k.guarded.startIndex <= at && at < k.guarded.endIndex));
    this.assigns.push({ target: s, deps, controls });
  }

  private assignment(node: Node, c: Ctx): Deps {
    const deps = this.visitOpt(node.childForFieldName("right"), c);
    return this.assignTo(node.childForFieldName("left"), deps, c);
  }

  private declaration(node: Node, c: Ctx): Deps {
    const type = node.childForFieldName("type");
    const shared = node.children.some((k) => k?.type === "type_qualifier" && k.text === "__shared__");
    const auto = type?.type === "placeholder_type_specifier";
    const typeText = type?.text ?? "";
    const out: number[] = [];
    for (const d of node.childrenForFieldName("declarator")) {
      if (!d) continue;
      const init = d.type === "init_declarator";
      const decl = init ? d.childForFieldName("declarator") : d;
      const value = init ? d.childForFieldName("value") : node.childForFieldName("value");
      const deps = value ? this.visit(value, c) : NONE;
      const name = declaredName(decl);
      if (!name || !decl) continue;
      const ref = decl.type === "pointer_declarator" || decl.type === "reference_declarator";
      const kind: SymKind = shared
        ? "shared"
        : ref || (auto && value && pointerish(value.text))
          ? "pointer"
          : "storage";
      const groupish = auto || /group|thread_block|tile/.test(typeText);
      const group = groupish
        ? (groupLevel(typeText) ?? (value ? groupLevel(value.text) : undefined))
        : undefined;
      const id = this.declare(name.text, { kind, varying: false, group, at: d.startIndex });
      if (value && !shared) this.record(id, deps, c);
      out.push(id);
    }
    return { direct: false, syms: out };
  }

  /** A lambda's body: its own parameters (uniform: its callers are not looked at) and exits. */
  private lambda(node: Node): void {
    this.scoped(() => {
      this.params(node.childForFieldName("declarator"), false);
      const body = node.childForFieldName("body");
      if (body) this.visit(body, { controls: [], loop: undefined, breakable: undefined, owner: node });
    });
  }

  /** `asm("mov.u32 %0, %%laneid;" : "=r"(lane))`: outputs take the inputs' deps, or vary with the register read. */
  private asm(node: Node, c: Ctx): void {
    const code = node.childForFieldName("assembly_code")?.text ?? "";
    const operands = (field: string): Node[] =>
      (node.childForFieldName(field)?.namedChildren ?? []).flatMap((o) => {
        const v = o?.childForFieldName("value");
        return v ? [v] : [];
      });
    const inputs = union(...operands("input_operands").map((v) => this.visit(v, c)));
    const deps = VARYING_ASM.test(code) ? VARYING : inputs;
    for (const out of operands("output_operands")) this.assignTo(out, deps, c);
  }

  /** The context inside a statement guarded by `cond`. */
  private under(c: Ctx, cond: Node, guarded: Node, deps: Deps, loop?: Node): Ctx {
    const controls = [{ cond, guarded, deps }, ...c.controls];
    return loop ? { ...c, controls, loop, breakable: loop } : { ...c, controls };
  }
}

/** The uniformity of one function's values, its barriers and its exits. */
export class Uniformity {
  private constructor(private readonly w: Walk) {
    const { syms, assigns } = w;
    for (let changed = true; changed;) {
      changed = false;
      for (const a of assigns) {
        const s = syms[a.target]!;
        if (s.varying) continue;
        if (this.varies(a.deps) || a.controls.some((k) => this.varies(k.deps))) {
          s.varying = true;
          changed = true;
        }
      }
    }
  }

  /** The analysis of a function definition (`kernel`: its parameters are all uniform). */
  static analyze(fn: Node, body: Node, kernel: boolean): Uniformity {
    return new Uniformity(new Walk(fn, body, kernel));
  }

  /** The analysis of a device function, made once per lint run. */
  static of(idx: FileIndex, fn: { node: Node; body: Node; space: "global" | "device" }): Uniformity {
    return idx.shared(`uniformity:${fn.node.id}`, () =>
      Uniformity.analyze(fn.node, fn.body, fn.space === "global"),
    );
  }

  varies(d: Deps): boolean {
    return d.direct || d.syms.some((s) => this.w.syms[s]!.varying);
  }

  get barriers(): readonly Barrier[] {
    return this.w.barriers;
  }

  get exits(): readonly Exit[] {
    return this.w.exits;
  }

  /** The innermost thread-varying condition of `controls`. */
  firstVarying(controls: readonly Control[]): Control | undefined {
    return controls.find((k) => this.varies(k.deps));
  }
}
