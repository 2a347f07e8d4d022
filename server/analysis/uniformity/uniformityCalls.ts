// The uniformity walk's readers of calls (uniformityWalk.ts): which calls are barriers and which threads
// they wait for, the comparisons tree-sitter reads as template calls, inline asm's outputs, and which
// arguments of a constructor call reach the object it builds.
import type { Node } from "web-tree-sitter";
import { textIn } from "../source/nodes";
import { argumentsRead, type Constructor } from "../types/constructors";
import {
  calleeName,
  union,
  VARYING,
  VARYING_ASM,
  groupLevel,
  type BarrierLevel,
  type Deps,
  type Resolve,
  type Sym,
} from "./uniformityBase";

/**
 * `i < size<3>(t)` parses as the template call `i<(size<3)>(t)`: a local variable cannot be a template,
 * so that is a comparison of `i` with the call `size<3>(t)`. `fn`: the template function's node.
 */
export function misparsedComparison(
  fn: Node,
  src: string,
  resolve: Resolve,
): { left: Deps; callee: string } | undefined {
  const name = fn.childForFieldName("name");
  const s = name?.type === "identifier" ? resolve(textIn(src, name)) : undefined;
  if (s === undefined) return undefined;
  let callee = fn.childForFieldName("arguments")?.namedChild(0) ?? null;
  while (callee && callee.type === "binary_expression") callee = callee.childForFieldName("left");
  return { left: { direct: false, syms: [s] }, callee: calleeName(callee, src) };
}

/**
 * Which threads a call waits for, when it is a barrier (`member`: the callee when it is `obj.f`; `sym`:
 * the variable a name means, for a cooperative group's level).
 */
export function barrierLevel(
  name: string,
  member: Node | null,
  args: Node[],
  src: string,
  sym: (name: string) => Sym | undefined,
): BarrierLevel | undefined {
  if (name.startsWith("__syncthreads")) return "block";
  if (name === "__syncwarp") return "warp";
  if (name !== "sync") return undefined;
  // `g.sync()`, or `cg::sync(g)`
  const group = member ? member.childForFieldName("argument") : args.length === 1 ? args[0] : null;
  if (!group) return undefined;
  if (group.type === "identifier") return sym(textIn(src, group))?.group ?? "unknown";
  return groupLevel(textIn(src, group)) ?? "unknown";
}

/** `asm("mov.u32 %0, %%laneid;" : "=r"(lane))`: outputs take the inputs' deps, or vary with the register read. */
export function asmOutputs(
  node: Node,
  src: string,
  visit: (n: Node) => Deps,
  assign: (out: Node, deps: Deps) => void,
): void {
  const asm = node.childForFieldName("assembly_code");
  const code = asm ? textIn(src, asm) : "";
  const operands = (field: string): Node[] =>
    (node.childForFieldName(field)?.namedChildren ?? []).flatMap((o) => {
      const v = o?.childForFieldName("value");
      return v ? [v] : [];
    });
  const inputs = union(...operands("input_operands").map(visit));
  const deps = VARYING_ASM.test(code) ? VARYING : inputs;
  for (const out of operands("output_operands")) assign(out, deps);
}

/** A class's constructors by its name (the file's and its project headers': types/constructors.ts). */
export type ClassConstructors = (name: string) => readonly Constructor[] | undefined;

/**
 * The deps of a declaration's initial value. For `Info info(params, blockIdx.y, tidx)` or `Info info{…}`
 * of a class whose constructors are known, only the arguments a constructor taking that many reads: an
 * argument no such constructor names does not reach the object. Every argument is still visited.
 */
export function constructedDeps(
  value: Node,
  type: string,
  classes: ClassConstructors | undefined,
  visit: (n: Node) => Deps,
): Deps {
  const args = value.type === "argument_list" || value.type === "initializer_list" ? value.namedChildren : [];
  const deps = args.length ? args.map((a) => visit(a)) : [visit(value)];
  const name = /([A-Za-z_]\w*)\s*(?:<|$)/.exec(type.replace(/<[\s\S]*$/, ""))?.[1];
  const read = args.length && name ? argumentsRead(classes?.(name), args.length) : undefined;
  return union(...deps.filter((_, k) => !read || read[k]));
}
