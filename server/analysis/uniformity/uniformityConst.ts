// Compile-time constants for the uniformity analysis (uniformity.ts). A loop whose bound and stride are
// fixed when the kernel is compiled, and whose start differs between threads only by an offset, runs as
// many iterations on every thread exactly when the chosen constants divide evenly: only an instantiation
// of the template can tell, so such loops count as uniform (the layer-norm backward kernels'
// `for (col = c; col < Kernel_traits::COLS; col += COL_STRIDE)`). A run-time bound or stride (a kernel
// parameter, blockDim, gridDim) keeps the loop varying: sizes that do not divide evenly hang the block.
import type { Node } from "web-tree-sitter";
import { ancestors, descendants } from "../source/nodes";
import { calleeName, NONE, type Deps, type Resolve, type Sym } from "./uniformityBase";
import type { LoopShape } from "./uniformityText";

/** Names written like constants (macros, enumerators, `kWarps`); globals named so are taken as constant too. */
const CONSTANT_NAME = /^(?:[A-Z][A-Z0-9_]*|k[A-Z]\w*)$/;

/** Calls a thread offset may be computed with. */
const OFFSET_CALL = /^(?:thread_rank|meta_group_rank|__lane_id|\w+_cast)$/;

const QUALIFIERS = /^const(?:expr)?$/;

/** Which of a function's values are known at compile time. */
export class Constants {
  private names: ReadonlySet<string> | undefined;

  constructor(
    private readonly fn: Node,
    private readonly resolve: Resolve,
    private readonly syms: readonly Sym[],
  ) {}

  /**
   * The trip count of `for (i = start; i < BOUND; i += STRIDE)` with BOUND and STRIDE compile-time and a
   * start that reads no memory: NONE (uniform, see the top), else undefined. `resolve` finds names where
   * the loop is (its trip count may be worked out after the walk: see uniformityWalk.ts).
   */
  tripCount(shape: LoopShape, resolve: Resolve): Deps | undefined {
    if (!["+=", "-=", "++", "--"].includes(shape.op)) return undefined;
    if (!this.compileTime(shape.bound, resolve) || (shape.step && !this.compileTime(shape.step, resolve)))
      return undefined;
    return offsetOnly(shape.start) ? NONE : undefined;
  }

  /** Does `decl` (a `const`/`constexpr` declaration) give its name a compile-time value? */
  declares(decl: Node, value: Node | null): boolean {
    return (
      !!value &&
      /\bconst(?:expr)?\b/.test(decl.text) &&
      this.compileTime(value) &&
      decl.children.some((k) => k?.type === "type_qualifier" && QUALIFIERS.test(k.text))
    );
  }

  /** The declaration `decl` of one variable, read from text: `const int S = 4 * N;`. */
  declaresOne(decl: Node): boolean {
    return this.declares(decl, decl.childForFieldName("declarator")?.childForFieldName("value") ?? null);
  }

  /** Literals, sizeof, `Traits::N`, constants, template parameters, macros and arithmetic of these. */
  compileTime(node: Node, resolve: Resolve = this.resolve): boolean {
    // unparen, reading each node's type once
    let n = node;
    let t = n.type;
    while (t === "parenthesized_expression" && n.namedChildCount === 1) {
      n = n.namedChild(0)!;
      t = n.type;
    }
    switch (t) {
      case "number_literal":
      case "char_literal":
      case "true":
      case "false":
      case "sizeof_expression":
      case "alignof_expression":
      case "qualified_identifier":
        return true;
      case "identifier": {
        const s = resolve(n.text);
        return s !== undefined ? this.syms[s]!.constant === true : this.constantName(n.text);
      }
      case "cast_expression":
        return this.compileTime(n.childForFieldName("value") ?? n, resolve);
      case "binary_expression":
      case "unary_expression":
      case "conditional_expression":
        return n.namedChildren.every((k) => !k || this.compileTime(k, resolve));
      case "call_expression": {
        // static_cast<int>(N)
        const args = n.childForFieldName("arguments")?.namedChildren ?? [];
        const f = n.childForFieldName("function");
        return (
          f?.type === "template_function" &&
          /_cast$/.test(f.childForFieldName("name")?.text ?? "") &&
          args.length === 1 &&
          this.compileTime(args[0]!, resolve)
        );
      }
      default:
        return false;
    }
  }

  /** A name not declared in the function: a constant's spelling, a template parameter, an enumerator or a macro. */
  private constantName(name: string): boolean {
    if (CONSTANT_NAME.test(name)) return true;
    this.names ??= this.fileConstants();
    return this.names.has(name);
  }

  private fileConstants(): Set<string> {
    const out = new Set<string>();
    for (const a of ancestors(this.fn)) {
      if (a.type !== "template_declaration") continue;
      for (const p of a.childForFieldName("parameters")?.namedChildren ?? [])
        for (const id of p ? descendants(p, "identifier", "type_identifier") : []) out.add(id.text);
    }
    let root = this.fn;
    while (root.parent) root = root.parent;
    for (const d of descendants(root, "enumerator", "preproc_def"))
      out.add(d.childForFieldName("name")?.text ?? "");
    return out;
  }
}

/**
 * Is a value's text one compileTime refuses whatever its names mean? When it starts with a call, an element
 * or a member read (`f(…) …`, `a[i] …`, `threadIdx.x …`): that node is the leftmost operand, which
 * compileTime reaches through any binary, unary or conditional expression above it, and refuses.
 */
export function surelyRuntime(value: string): boolean {
  return RUNTIME_START.test(value);
}

const RUNTIME_START =
  /^\s*(?!(?:sizeof|alignof|_Alignof|__alignof__|__alignof|decltype)\b)[A-Za-z_]\w*\s*(?:\(|\[|\.|->)/;

/** A start that differs between threads by an offset only: no memory read, no call but thread ranks and casts. */
function offsetOnly(start: Node): boolean {
  for (const n of descendants(start, "subscript_expression", "pointer_expression", "call_expression")) {
    if (n.type !== "call_expression") return false;
    if (!OFFSET_CALL.test(calleeName(n.childForFieldName("function")))) return false;
  }
  return !start.text.includes("->");
}
