// One pass over a function for the uniformity analysis (uniformity.ts): its variables through their
// scopes, the assignments between them and the conditions they run under, its barriers and its exits.
import type { Node } from "web-tree-sitter";
import { declaredName, textIn } from "../source/nodes";
import {
  calleeName,
  exitOf,
  groupLevel,
  LoopControl,
  memoryLvalue,
  NONE,
  PLAIN_EXPRESSIONS,
  pointerish,
  SKIP,
  union,
  UNIFORM_CALL,
  VARYING,
  VARYING_CALL,
  VARYING_NAMES,
  type Assign,
  type Barrier,
  type Control,
  type Ctx,
  type Deps,
  type Exit,
  type Resolve,
  type Sym,
  type SymKind,
} from "./uniformityBase";
import {
  asmOutputs,
  barrierLevel,
  constructedDeps,
  misparsedComparison,
  type ClassConstructors,
} from "./uniformityCalls";
import { Constants } from "./uniformityConst";
import { Scopes } from "./uniformityScopes";
import { declareParams, simpleAssignment, simpleStatement, type Recorder } from "./uniformitySimple";
import { textDeps, tripDeps, type LoopHeader } from "./uniformityText";
import { OpenLoops, Strides } from "./uniformityTrip";
import { Stopper, type Until } from "./uniformityUntil";
import type { LaunchGuards } from "../launches/launchedGuards";

/**
 * Nodes that may be a comparison, or hold one: a test of a loop's counter (see OpenLoops), a bounds guard
 * the launches settle (see LaunchGuards).
 */
const TESTS: ReadonlySet<string> = new Set([
  "binary_expression",
  "parenthesized_expression",
  "condition_clause",
]);

/** One pass over a function: its symbols, assignments, conditions, barriers and exits. */
export class Walk implements Recorder {
  readonly syms: Sym[] = [];
  readonly assigns: Assign[] = [];
  readonly barriers: Barrier[] = [];
  readonly exits: Exit[] = [];
  private readonly scopes = new Scopes();
  readonly consts: Constants;
  /** What knows a loop's trip count beyond its condition's deps (see tripDeps). */
  private readonly counters: [Constants, Strides];
  /** The loops with a thread-dependent condition the walk is in (for their last-tile tests). */
  private readonly loops: OpenLoops;

  /** Set when the walk is for barriers only (see uniformityUntil.ts). */
  private readonly stop: Stopper | undefined;
  private done = false;
  private readonly bodyId: number;

  /** `src`: the file's text, which the nodes' texts are read from (see text). */
  constructor(
    private readonly src: string,
    fn: Node,
    body: Node,
    kernel: boolean,
    until?: Until,
    private readonly classes?: ClassConstructors,
    private readonly guards?: LaunchGuards,
  ) {
    const { syms, assigns, barriers, exits, scopes } = this;
    this.stop = until && new Stopper(until, syms, assigns, barriers, exits, (s) => scopes.isClosed(s));
    this.bodyId = body.id;
    const ctx: Ctx = { controls: [], loop: undefined, breakable: undefined, owner: fn };
    this.consts = new Constants(fn, this.resolver, this.syms);
    this.counters = [this.consts, new Strides(src, fn, this.syms, this.consts)];
    this.loops = new OpenLoops(src, this.counters[1]);
    this.scopes.push();
    declareParams(this, fn.childForFieldName("declarator"), !kernel);
    this.visit(body, ctx);
    this.scopes.pop();
  }

  declare(name: string, sym: Sym): number {
    this.syms.push(sym);
    this.scopes.declare(name, this.syms.length - 1);
    return this.syms.length - 1;
  }

  /** A node's text, from the file's (nodes.ts textIn). */
  text(n: Node): string {
    return textIn(this.src, n);
  }

  /** `resolve`, bound: for the text readers (uniformityText.ts). */
  readonly resolver: Resolve = (name) => this.scopes.resolve(name);

  /** The value a node computes depends on; records what statements inside it do. */
  visit(node: Node, c: Ctx): Deps {
    if (this.done) return NONE;
    const t = node.type;
    if (SKIP.has(t)) return NONE;
    // a test of an open loop's counter is read from the tree: it may be a last-tile test (see OpenLoops)
    const counted = TESTS.has(t) && this.loops.mentions(this.text(node));
    const tile = counted && t === "binary_expression" ? this.loops.compare(node, this.resolver) : undefined;
    if (tile) return tile;
    // a guard every launch settles is the same in every thread (read from the tree, not the text)
    const guarded = !!this.guards && TESTS.has(t) && this.guards.mentioned(this.text(node));
    if (guarded && t === "binary_expression" && this.guards.value(node) !== undefined) return NONE;
    if (PLAIN_EXPRESSIONS.has(t) && !counted && !guarded) {
      const fast = textDeps(this.text(node), this.resolver);
      if (fast) return fast;
    }
    switch (t) {
      case "identifier": {
        const name = this.text(node);
        const s = this.scopes.resolve(name);
        return s !== undefined ? { direct: false, syms: [s] } : VARYING_NAMES.has(name) ? VARYING : NONE;
      }
      case "field_expression":
        return this.visitOpt(node.childForFieldName("argument"), c);
      case "call_expression":
        return this.call(node, c);
      case "assignment_expression":
        return simpleAssignment(this, node, c) ?? this.assignment(node, c);
      case "conditional_expression": {
        const cond = node.childForFieldName("condition")!;
        const deps = this.visit(cond, c);
        const inner = this.under(c, cond, node, deps);
        const a = this.visitOpt(node.childForFieldName("consequence"), inner);
        return union(deps, a, this.visitOpt(node.childForFieldName("alternative"), inner));
      }
      case "binary_expression": {
        const opNode = node.childForFieldName("operator");
        const op = opNode && this.text(opNode);
        const left = node.childForFieldName("left")!;
        const l = this.visit(left, c);
        const rc = op === "&&" || op === "||" ? this.under(c, left, node, l) : c;
        return union(l, this.visitOpt(node.childForFieldName("right"), rc));
      }
      case "lambda_expression":
        this.lambda(node);
        return NONE;
      case "gnu_asm_expression":
        asmOutputs(
          node,
          this.src,
          (n) => this.visit(n, c),
          (out, deps) => this.assignTo(out, deps, c),
        );
        return NONE;
      case "declaration":
        return simpleStatement(this, node, t, c) ?? this.declaration(node, c);
      case "expression_statement":
      case "condition_clause":
        return (
          (counted || guarded ? undefined : simpleStatement(this, node, t, c)) ??
          union(...this.childDeps(node, c))
        );
      case "compound_statement":
        this.scoped(() => this.children(node, c));
        return NONE;
      default:
        return this.statement(node, t, c) ?? union(...this.childDeps(node, c));
    }
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
    for (const k of node.namedChildren) {
      if (!k) continue;
      if (this.stop?.reached(k.startIndex, node.id === this.bodyId)) this.done = true;
      this.visit(k, c);
    }
  }

  private scoped(f: () => void): void {
    this.scopes.push();
    try {
      f();
    } finally {
      this.scopes.pop();
    }
  }

  /** Control statements, returns and jumps; undefined for other nodes. */
  private statement(node: Node, type: string, c: Ctx): Deps | undefined {
    switch (type) {
      case "if_statement":
      case "switch_statement":
        this.scoped(() => {
          const cond = node.childForFieldName("condition")!;
          const inner = this.under(c, cond, node, this.visit(cond, c));
          if (type === "switch_statement") inner.breakable = node;
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
          const init = node.childForFieldName("initializer");
          this.visitOpt(init, c);
          const cond = node.childForFieldName("condition");
          const update = node.childForFieldName("update");
          const deps = cond ? this.visit(cond, c) : NONE;
          const header = { loop: node, init, cond, update };
          const open = !!cond && this.varies0(deps);
          const inner = !cond
            ? { ...c, loop: node, breakable: node }
            : open
              ? this.within(c, this.loopControl(node, header, deps), node)
              : this.under(c, cond, node, deps, node);
          if (open) this.loops.enter(header, this.scopes.snapshot());
          this.visitOpt(update, inner);
          this.visitOpt(node.childForFieldName("body"), inner);
          if (open) this.loops.leave();
        });
        return NONE;
      case "for_range_loop":
        this.scoped(() => {
          const right = node.childForFieldName("right")!;
          const deps = this.visit(right, c);
          const name = declaredName(node.childForFieldName("declarator"));
          if (name)
            this.record(
              this.declare(this.text(name), { kind: "storage", varying: false, at: node.startIndex }),
              deps,
              c,
            );
          this.visitOpt(node.childForFieldName("body"), this.under(c, right, node, deps, node));
        });
        return NONE;
      case "preproc_if": {
        // `#if 0` code is not compiled: only its `#else` is
        const condNode = node.childForFieldName("condition");
        const cond = condNode && this.text(condNode).trim();
        const alternative = node.childForFieldName("alternative");
        if (cond === "0") return this.visitOpt(alternative, c);
        for (const k of node.namedChildren)
          if (k && !(cond === "1" && k.id === alternative?.id)) this.visit(k, c);
        return NONE;
      }
      case "return_statement":
        this.children(node, c);
        this.exits.push(exitOf(node, c));
        return NONE;
      case "break_statement":
      case "continue_statement":
        this.exits.push(exitOf(node, c));
        return NONE;
      default:
        return undefined;
    }
  }

  /** Whether deps may vary at all (before the fixed point: any variable might). */
  private varies0(d: Deps): boolean {
    return d.direct || d.syms.length > 0;
  }

  private call(node: Node, c: Ctx): Deps {
    const fn = node.childForFieldName("function");
    const fnType = fn?.type;
    const name = calleeName(fn, this.src);
    const recv = fnType === "field_expression" ? this.visitOpt(fn!.childForFieldName("argument"), c) : NONE;
    const list = node.childForFieldName("arguments");
    const args = list?.namedChildren.filter((a): a is Node => !!a) ?? [];
    const argDeps = args.map((a) => this.visit(a, c));
    const level = barrierLevel(name, fnType === "field_expression" ? fn : null, args, this.src, (n) => {
      const s = this.scopes.resolve(n);
      return s === undefined ? undefined : this.syms[s]!;
    });
    if (level) this.barriers.push({ call: node, level, controls: c.controls, owner: c.owner });
    const misparsed =
      fnType === "template_function" ? misparsedComparison(fn!, this.src, this.resolver) : undefined;
    const varying = VARYING_CALL.test(misparsed?.callee ?? name);
    const all = varying ? VARYING : union(recv, ...argDeps);
    // `f(…, &x)` may write x from what the call read (no `&` in the arguments' text: none to look at)
    if (list && this.text(list).includes("&"))
      for (const a of args)
        if (a.type === "pointer_expression" && a.child(0)?.type === "&")
          this.assignTo(a.childForFieldName("argument"), all, c);
    if (misparsed) return union(misparsed.left, UNIFORM_CALL.test(misparsed.callee) ? NONE : all);
    return UNIFORM_CALL.test(name) ? NONE : all;
  }

  /**
   * Records `left = deps`: a variable, or an element of local storage (`a[i]`, `v.x`, `a[i].x`). Writes
   * through pointers reach memory, not the variable: `p[i]`, `*p`, `p->x`, and `s.ptr[i]` (an index into a
   * member is most often a pointer member).
   */
  private assignTo(left: Node | null, deps: Deps, c: Ctx, op = ""): Deps {
    const parts: Deps[] = [deps];
    let target = left;
    let element = false;
    let memory = false;
    while (target) {
      const t = target.type;
      if (t === "parenthesized_expression") target = target.namedChild(0);
      else if (t === "subscript_expression" || t === "pointer_expression") {
        // a pointer_expression (`*p`, `&x`) has no index
        const index =
          t === "subscript_expression"
            ? (target.childForFieldName("indices") ?? target.childForFieldName("index"))
            : null;
        if (index) parts.push(this.visit(index, c));
        target = target.childForFieldName("argument");
        memory ||= target?.type === "field_expression";
        element = true;
      } else if (t === "field_expression") {
        memory ||= target.child(1)?.type === "->";
        element = true;
        target = target.childForFieldName("argument");
      } else break;
    }
    if (target?.type !== "identifier") {
      if (target) parts.push(this.visit(target, c));
      return union(...parts);
    }
    const name = this.text(target);
    const s = this.scopes.resolve(name);
    const sym = s === undefined ? undefined : this.syms[s]!;
    if (!sym || sym.kind === "shared" || memory || (element && sym.kind === "pointer"))
      return union(...parts);
    const plain = !element && op === "=";
    return { direct: false, syms: [this.assign(s!, name, union(...parts), c, plain, target.startIndex)] };
  }

  /** Records `name = deps` to variable `s`; a new symbol from an overwrite (see Scopes.overwrites). */
  assign(s: number, name: string, deps: Deps, c: Ctx, plain: boolean, at: number): number {
    const sym = this.syms[s]!;
    if (sym.memory) return s; // a store through a reference to memory (see memoryLvalue)
    const overwrite = plain && this.scopes.overwrites(name, s, sym, c.controls);
    const id = overwrite ? this.declare(name, { kind: sym.kind, varying: false, group: sym.group, at }) : s;
    this.record(id, deps, c);
    return id;
  }

  /**
   * Records an assignment to symbol `s`. Of the conditions it runs under, only those around the variable's
   * whole life do not count: threads that skip the declaration have no such variable (a loop counter
   * declared inside a thread-dependent loop is still uniform among the threads that run it).
   */
  record(s: number, deps: Deps, c: Ctx): void {
    const at = this.syms[s]!.at;
    const controls = c.controls.filter((k) => !(k.guarded.startIndex <= at && at < k.guarded.endIndex));
    this.assigns.push({ target: s, deps, controls });
    this.stop?.assigned(this.syms[s]!, deps, controls);
  }

  private assignment(node: Node, c: Ctx): Deps {
    const deps = this.visitOpt(node.childForFieldName("right"), c);
    const op = node.childForFieldName("operator");
    return this.assignTo(node.childForFieldName("left"), deps, c, op ? this.text(op) : "");
  }

  private declaration(node: Node, c: Ctx): Deps {
    const type = node.childForFieldName("type");
    const shared =
      this.text(node).includes("__shared__") &&
      node.children.some((k) => k?.type === "type_qualifier" && this.text(k) === "__shared__");
    const auto = type?.type === "placeholder_type_specifier";
    const typeText = type ? this.text(type) : "";
    const out: number[] = [];
    for (const d of node.childrenForFieldName("declarator")) {
      if (!d) continue;
      const init = d.type === "init_declarator";
      const decl = init ? d.childForFieldName("declarator") : d;
      const value = init ? d.childForFieldName("value") : node.childForFieldName("value");
      const visit = (n: Node): Deps => this.visit(n, c);
      const deps = value ? constructedDeps(value, typeText, this.classes, visit) : NONE;
      const name = declaredName(decl);
      if (!name || !decl) continue;
      const ref = decl.type === "pointer_declarator" || decl.type === "reference_declarator";
      const kind: SymKind = shared
        ? "shared"
        : ref || (auto && value && pointerish(this.text(value)))
          ? "pointer"
          : "storage";
      const groupish = auto || /group|thread_block|tile/.test(typeText);
      const group = groupish
        ? (groupLevel(typeText) ?? (value ? groupLevel(this.text(value)) : undefined))
        : undefined;
      const constant = kind === "storage" && this.consts.declares(node, value);
      const memory =
        decl.type === "reference_declarator" &&
        !!value &&
        memoryLvalue(value, this.resolver, this.syms, this.src);
      const at = d.startIndex;
      const id = this.declare(this.text(name), { kind, varying: false, group, at, constant, memory });
      if (value && !shared) this.record(id, deps, c);
      out.push(id);
    }
    return { direct: false, syms: out };
  }

  /** A lambda's body: its own parameters (uniform: its callers are not looked at) and exits. */
  private lambda(node: Node): void {
    this.scoped(() => {
      declareParams(this, node.childForFieldName("declarator"), false);
      const body = node.childForFieldName("body");
      if (body) this.visit(body, { controls: [], loop: undefined, breakable: undefined, owner: node });
    });
  }

  /** The context inside a statement guarded by `cond`. */
  private under(c: Ctx, cond: Node, guarded: Node, deps: Deps, loop?: Node): Ctx {
    return this.within(c, { cond, guarded, deps }, loop);
  }

  private within(c: Ctx, control: Control, loop?: Node): Ctx {
    const controls = [control, ...c.controls];
    return loop ? { ...c, controls, loop, breakable: loop } : { ...c, controls };
  }

  /** A for loop's condition: its trip count's deps (see tripDeps), worked out when asked. */
  private loopControl(loop: Node, header: LoopHeader, deps: Deps): Control {
    const resolve = this.scopes.snapshot();
    return new LoopControl(header.cond!, loop, () => tripDeps(header, deps, resolve, ...this.counters));
  }
}
