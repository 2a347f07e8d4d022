// Operators on __half/__nv_bfloat16 values in builds that remove them: PyTorch extension builds define
// __CUDA_NO_HALF_OPERATORS__ and __CUDA_NO_HALF2_OPERATORS__ (the BF16 operators stay), so the file
// compiles standalone and fails in the real build. Which switches are in effect is the build context's.
import type { Node } from "web-tree-sitter";
import type { Fix, LintContext, Rule } from "./rule";
import { declEnv } from "../analysis/types/declEnv";
import { FileIndex } from "../analysis/source/fileIndex";
import { switchesSet, type Switches } from "../analysis/preprocessor/buildSwitches";
import { halfDecls } from "../analysis/types/halfDecls";
import { halfOperators } from "../analysis/types/halfOperators";
import { isPairKind, type HalfKind, type HalfScope } from "../analysis/types/halfTypes";
import { replaceNode, unparen } from "../analysis/source/nodes";

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

/** The macro that removes each type's operators (cuda_fp16.hpp, cuda_bf16.hpp). */
const OFF_SWITCH: Readonly<Record<HalfKind, string>> = {
  half: "__CUDA_NO_HALF_OPERATORS__",
  half2: "__CUDA_NO_HALF2_OPERATORS__",
  bf16: "__CUDA_NO_BFLOAT16_OPERATORS__",
  bf162: "__CUDA_NO_BFLOAT162_OPERATORS__",
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

type Report = LintContext["report"];

function checkBinary(report: Report, e: Node, scope: HalfScope, off: Switches): void {
  const op = e.childForFieldName("operator")?.text ?? "";
  if (!ARITH[op] && !COMPARE[op]) return;
  const l = e.childForFieldName("left");
  const r = e.childForFieldName("right");
  if (!l || !r) return;
  const lk = scope.valueKind(l);
  const rk = scope.valueKind(r);
  const kind = lk ?? rk;
  if (!kind || !off[kind]) return;
  const fixes: Fix[] = [];
  const fn = intrinsic(op, kind);
  if (lk && rk && lk === rk && fn)
    fixes.push({
      title: `Use ${fn}()`,
      isPreferred: true,
      edits: [replaceNode(e, `${fn}(${l.text}, ${r.text})`)],
    });
  report({
    node: e,
    message: `\`${op}\` on ${TYPE_NAME[kind]} does not compile with ${off[kind]}. Convert to float (to_float/__half2float), compute, and convert back, or use ${fn ?? "the __h* intrinsics"}.`,
    fixes,
  });
}

function checkCompound(report: Report, e: Node, scope: HalfScope, off: Switches): void {
  const op = (e.childForFieldName("operator")?.text ?? "").replace(/=$/, "");
  if (!ARITH[op]) return;
  const l = e.childForFieldName("left");
  const r = e.childForFieldName("right");
  if (!l || !r) return;
  const lk = scope.valueKind(l);
  if (!lk || !off[lk]) return;
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
  report({
    node: e,
    message: `\`${op}=\` on ${TYPE_NAME[lk]} does not compile with ${off[lk]}. Accumulate in float (to_float) and convert once at the end${fn ? `, or use ${fn}` : ""}.`,
    fixes,
  });
}

function checkUnary(report: Report, e: Node, scope: HalfScope, off: Switches): void {
  const op = e.childForFieldName("operator")?.text ?? "";
  if (!["-", "++", "--"].includes(op)) return;
  const arg = e.childForFieldName("argument");
  const k = scope.valueKind(arg);
  if (!k || !arg || !off[k]) return;
  const neg = isPairKind(k) ? "__hneg2" : "__hneg";
  report({
    node: e,
    message: `\`${op}\` on ${TYPE_NAME[k]} does not compile with ${off[k]}.`,
    fixes:
      op === "-"
        ? [{ title: `Use ${neg}()`, isPreferred: true, edits: [replaceNode(e, `${neg}(${arg.text})`)] }]
        : [],
  });
}

export const halfOperator: Rule = {
  id: "half-operator",
  defaultSeverity: "error",
  basis: "does-not-compile",
  summary:
    "Arithmetic/comparison operators on __half/__nv_bfloat16 values in builds that remove them (-D__CUDA_NO_HALF_OPERATORS__: PyTorch extensions).",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const off = switchesSet(ctx, idx, OFF_SWITCH);
    if (Object.keys(off).length === 0) return;
    const decls = halfDecls(idx, declEnv(ctx));
    // Switches inferred from PyTorch includes (no build file says how the file is compiled) need context:
    // many builds undo them with -U.
    const basis = ctx.build.definesKnown ? undefined : "needs-context";
    const report: Report = (f) => ctx.report({ ...f, basis });
    for (const e of halfOperators(idx, decls)) {
      const scope = decls.scopeAt(e.startIndex);
      if (e.type === "binary_expression") checkBinary(report, e, scope, off);
      else if (e.type === "assignment_expression") checkCompound(report, e, scope, off);
      else checkUnary(report, e, scope, off);
    }
  },
};
