// The uniformity walk's readers of calls (uniformityWalk.ts): which calls are barriers and which threads
// they wait for, and the comparisons tree-sitter reads as template calls.
import type { Node } from "web-tree-sitter";
import { textIn } from "../source/nodes";
import {
  calleeName,
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
