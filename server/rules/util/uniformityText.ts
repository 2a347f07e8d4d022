// The uniformity analysis' readers of text (uniformity.ts): an expression's deps without walking its
// nodes, and the trip count of a loop whose bounds move together.
import type { Node } from "web-tree-sitter";
import { descendants, declaredName, unparen } from "./nodes";
import {
  calleeName,
  NEEDS_TREE,
  NONE,
  union,
  UNIFORM_CALL,
  VARYING,
  VARYING_CALL,
  VARYING_NAMES,
  WORD,
  type Deps,
  type Resolve,
} from "./uniformityBase";

/**
 * The deps of an expression read from its text, when it holds nothing the tree is needed for (see
 * NEEDS_TREE): most conditions and right-hand sides. Visiting every node of them costs ~10x more.
 */
export function textDeps(text: string, resolve: Resolve): Deps | undefined {
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
    const s = resolve(word!);
    if (s !== undefined) syms.push(s);
    else if (VARYING_NAMES.has(word!)) return VARYING;
  }
  return syms.length === 0 ? NONE : { direct: false, syms };
}

/**
 * `for (t = a + tid; t < b + tid; t += c)`: both bounds move with the same term, so the trip count
 * depends only on the rest (a, b, c). Its deps, or undefined for other loops.
 */
export function shiftedTripCount(loop: Node, resolve: Resolve): Deps | undefined {
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
  return union(...[...rest, ...to, ...(step ? [step] : [])].map((n) => pureDeps(n, resolve)));
}

/** What an expression reads, without recording anything (for a second look at visited code). */
function pureDeps(n: Node, resolve: Resolve): Deps {
  const syms: number[] = [];
  for (const id of descendants(n, "identifier")) {
    const s = resolve(id.text);
    if (s !== undefined) syms.push(s);
    else if (VARYING_NAMES.has(id.text)) return VARYING;
  }
  for (const call of descendants(n, "call_expression"))
    if (VARYING_CALL.test(calleeName(call.childForFieldName("function")))) return VARYING;
  return { direct: false, syms };
}

/** The operands of a sum: `a + b + tid` → a, b, tid. */
function addends(n: Node): Node[] {
  const u = unparen(n);
  if (u.type !== "binary_expression" || u.childForFieldName("operator")?.text !== "+") return [u];
  const l = u.childForFieldName("left");
  const r = u.childForFieldName("right");
  return l && r ? [...addends(l), ...addends(r)] : [u];
}
