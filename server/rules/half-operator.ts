// Operators on __half/__nv_bfloat16 values: PyTorch extension builds define __CUDA_NO_HALF_OPERATORS__,
// which removes them, so the file compiles standalone and fails in the real build.
import type { Node } from "web-tree-sitter";
import type { Fix, Rule } from "./rule";
import { HalfScope, isPairKind, type HalfKind } from "./util/halfTypes";
import { descendants, enclosingFunction, replaceNode, unparen } from "./util/nodes";

const ARITH: Readonly<Record<string, string>> = { "+": "add", "-": "sub", "*": "mul", "/": "div" };
const COMPARE: Readonly<Record<string, string>> = {
  "<": "lt",
  ">": "gt",
  "<=": "le",
  ">=": "ge",
  "==": "eq",
  "!=": "ne",
};
const TYPE_NAME: Readonly<Record<HalfKind, string>> = {
  half: "__half",
  bf16: "__nv_bfloat16",
  half2: "__half2",
  bf162: "__nv_bfloat162",
};

/** The intrinsic that does `op` on two values of `kind` with the operator's exact rounding. */
function intrinsic(op: string, kind: HalfKind): string | undefined {
  if (isPairKind(kind)) {
    if (op === "/") return "__h2div";
    return ARITH[op] ? `__h${ARITH[op]}2` : undefined;
  }
  if (ARITH[op]) return `__h${ARITH[op]}`;
  if (COMPARE[op]) return `__h${COMPARE[op]}`;
  return undefined;
}

/** Side-effect-free operands may be written twice (for `a += b` → `a = __hadd(a, b)`). */
function isSimpleLvalue(n: Node): boolean {
  const u = unparen(n);
  if (u.type === "identifier") return true;
  if (u.type === "field_expression") return isSimpleLvalue(u.childForFieldName("argument") ?? u);
  if (u.type === "subscript_expression") {
    const idx = u.childForFieldName("indices") ?? u.childForFieldName("index");
    return isSimpleLvalue(u.childForFieldName("argument") ?? u) && !/\+\+|--|\(|=/.test(idx?.text ?? "(");
  }
  return false;
}

export const halfOperator: Rule = {
  id: "half-operator",
  defaultSeverity: "warning",
  summary:
    "Arithmetic/comparison operators on __half/__nv_bfloat16 values break under -D__CUDA_NO_HALF_OPERATORS__.",
  check(ctx) {
    const root = ctx.tree.rootNode;
    const fileDecls = root.namedChildren.filter((n): n is Node => n?.type === "declaration");
    const scopes = new Map<number, HalfScope>();
    const scopeFor = (n: Node): HalfScope => {
      const fn = enclosingFunction(n);
      const key = fn?.id ?? -1;
      let s = scopes.get(key);
      if (!s) {
        s = new HalfScope(...(fn ? [fn] : []), ...fileDecls);
        scopes.set(key, s);
      }
      return s;
    };
    const describe = (k: HalfKind): string => TYPE_NAME[k];

    for (const e of descendants(root, "binary_expression")) {
      const op = e.childForFieldName("operator")?.text ?? "";
      if (!ARITH[op] && !COMPARE[op]) continue;
      const l = e.childForFieldName("left");
      const r = e.childForFieldName("right");
      if (!l || !r) continue;
      const scope = scopeFor(e);
      const lk = scope.valueKind(l);
      const rk = scope.valueKind(r);
      const kind = lk ?? rk;
      if (!kind) continue;
      const fixes: Fix[] = [];
      const fn = intrinsic(op, kind);
      if (lk && rk && lk === rk && fn)
        fixes.push({
          title: `Use ${fn}()`,
          isPreferred: true,
          edits: [replaceNode(e, `${fn}(${l.text}, ${r.text})`)],
        });
      ctx.report({
        node: e,
        message: `\`${op}\` on ${describe(kind)} does not compile with -D__CUDA_NO_HALF_OPERATORS__ (set by PyTorch extension builds). Convert to float (to_float/__half2float), compute, and convert back, or use ${fn ?? "the __h* intrinsics"}.`,
        fixes,
      });
    }

    for (const e of descendants(root, "assignment_expression")) {
      const op = (e.childForFieldName("operator")?.text ?? "").replace(/=$/, "");
      if (!ARITH[op]) continue;
      const l = e.childForFieldName("left");
      const r = e.childForFieldName("right");
      if (!l || !r) continue;
      const scope = scopeFor(e);
      const lk = scope.valueKind(l);
      if (!lk) continue;
      const rk = scope.valueKind(r);
      const fn = intrinsic(op, lk);
      const fixes: Fix[] =
        fn && rk === lk && isSimpleLvalue(l)
          ? [
              {
                title: `Use ${fn}()`,
                isPreferred: true,
                edits: [replaceNode(e, `${l.text} = ${fn}(${l.text}, ${r.text})`)],
              },
            ]
          : [];
      ctx.report({
        node: e,
        message: `\`${op}=\` on ${describe(lk)} does not compile with -D__CUDA_NO_HALF_OPERATORS__. Accumulate in float (to_float) and convert once at the end${fn ? `, or use ${fn}` : ""}.`,
        fixes,
      });
    }

    for (const e of descendants(root, "unary_expression", "update_expression")) {
      const op = e.childForFieldName("operator")?.text ?? "";
      if (!["-", "++", "--"].includes(op)) continue;
      const arg = e.childForFieldName("argument");
      const k = scopeFor(e).valueKind(arg);
      if (!k || !arg) continue;
      const neg = isPairKind(k) ? "__hneg2" : "__hneg";
      ctx.report({
        node: e,
        message: `\`${op}\` on ${describe(k)} does not compile with -D__CUDA_NO_HALF_OPERATORS__.`,
        fixes:
          op === "-"
            ? [{ title: `Use ${neg}()`, isPreferred: true, edits: [replaceNode(e, `${neg}(${arg.text})`)] }]
            : [],
      });
    }
  },
};
