// Whether one step of a loop over a halving or doubling stride is a shared-memory tree reduction's step:
// a shared element read at the stride (`s[tid + stride]`) is combined into a shared element (`s[tid] +=`,
// directly or through locals, as min/max or a conditional copy), and fewer threads write each step:
//   - a halving stride: the write is guarded by the thread index below the stride (`if (tid < stride)`),
//     so half as many threads work every step, down to thread 0;
//   - a doubling stride: by a divisibility test (`if (tid % (2 * stride) == 0)`, `(tid & (2*s - 1)) == 0`)
//     or at an index scaled by the stride (`s[2 * stride * tid]`).
// What is not a reduction's step: a scan (Hillis-Steele, prefix `s[tid - offset]` or suffix `s[tid +
// stride]`, where every thread keeps and rewrites its own element), a sorting or merging network (a
// comparator, swap, search or merge call, or an exchange every thread makes at `tid ^ stride` with
// min/max under a uniform test such as `stride >= 32`), a copy at a stride.
// Cannot see: a guard set in a local (`bool active = tid < s; if (active)`), an early `continue` standing
// for the guard, a combine done in a called function, a guard on the else side of an `if`.
import type { Node } from "web-tree-sitter";
import type { Constants } from "../constants/constEval";
import { descendants, textIn, unparen } from "../source/nodes";
import { calleeName } from "../uniformity/uniformity";

/** The loop's stride and how it moves. */
export interface Stride {
  name: string;
  dir: "down" | "up";
}

/** A loop body: its node, its text, the file's (`src`), its calls and its declarations and assignments. */
export interface StepBody {
  node: Node;
  text: string;
  src: string;
  calls: Node[];
  writes: Node[];
}

/** Calls that make a halving loop a sorting or merging network rather than a reduction. */
const NETWORK_CALL = /sort|swap|compar|search|merge/i;

/** A subscript of a shared array whose index names `stride` (any, when stride is undefined). */
function sharedElement(n: Node, src: string, shared: ReadonlySet<string>, stride?: string): boolean {
  if (n.type !== "subscript_expression") return false;
  const arg = n.childForFieldName("argument");
  const idx = n.childForFieldName("indices") ?? n.childForFieldName("index");
  if (!arg || !shared.has(textIn(src, arg)) || !idx) return false;
  if (stride === undefined) return true;
  // `s[tid - off]` is a scan's read (Hillis-Steele), not a reduction's
  const text = textIn(src, idx);
  return !new RegExp(`-\\s*${stride}\\b`).test(text) && namesIdentifier(idx, text, stride);
}

/**
 * Is one of `n`'s identifiers `name` (`text`: n's)? Asked at each place the name's text is: an identifier
 * there is the smallest node spanning it. (A descendants search scans the language's type names first.)
 */
export function namesIdentifier(n: Node, text: string, name: string): boolean {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const start = n.startIndex + at;
    const d = n.descendantForIndex(start, start + name.length);
    if (d?.startIndex === start && d.type === "identifier" && d.endIndex === start + name.length) return true;
  }
  return false;
}

/**
 * The writes of shared elements that combine an element read at the stride, directly or through a local
 * (`f1 = s[i + d]; … s[i] = f1`); none where the body calls a sorting or merging network's function.
 */
function combiningWrites(
  { text, src, calls, writes }: StepBody,
  shared: ReadonlySet<string>,
  stride: string,
) {
  // no stride in its text, no element at the stride in it
  const strided = (n: Node): boolean =>
    textIn(src, n).includes(stride) &&
    (sharedElement(n, src, shared, stride) ||
      descendants(n, "subscript_expression").some((x) => sharedElement(x, src, shared, stride)));
  const reads = (n: Node, carried: ReadonlySet<string>): boolean =>
    carried.size > 0 &&
    (carried.has(textIn(src, n)) || descendants(n, "identifier").some((i) => carried.has(textIn(src, i))));
  if (
    NETWORK_CALL.test(text) &&
    calls.some((c) => NETWORK_CALL.test(calleeName(c.childForFieldName("function"), src)))
  )
    return [];
  const carried = new Set<string>();
  // an assignment's two sides, read once
  const assignments: { write: Node; left: Node | null; right: Node | null }[] = [];
  for (const d of writes) {
    const init = d.type === "init_declarator";
    const left = d.childForFieldName(init ? "declarator" : "left");
    const value = d.childForFieldName(init ? "value" : "right");
    if (!init) assignments.push({ write: d, left, right: value });
    if (left?.type !== "identifier" || !value) continue;
    if (strided(value) || reads(value, carried)) carried.add(textIn(src, left));
  }
  return assignments.filter(({ left, right }) => {
    if (!left || !right || !sharedElement(unparen(left), src, shared)) return false;
    return strided(right) || reads(right, carried);
  });
}

/** Does `n` name the stride (`text`: its text, `src` the file's)? */
function names(n: Node | null, src: string, stride: string): boolean {
  if (!n) return false;
  const text = textIn(src, n);
  return text.includes(stride) && namesIdentifier(n, text, stride);
}

/**
 * Does condition `c` let fewer threads through each step: `tid < stride` (halving), `tid % (2 * stride)
 * == 0` or `!(tid & (2 * stride - 1))` (doubling)? Conjuncts of `&&` are read one by one; the thread side
 * is what does not name the stride and is no constant (`stride >= 32` tests the step, not the thread).
 */
function confines(c: Node, src: string, stride: Stride, consts: Constants): boolean {
  const n = unparen(c.type === "condition_clause" ? (c.childForFieldName("value") ?? c) : c);
  const op = n.childForFieldName("operator");
  const o = op ? textIn(src, op) : "";
  const left = n.childForFieldName("left") ?? n.childForFieldName("argument");
  const right = n.childForFieldName("right");
  if (n.type === "binary_expression" && o === "&&")
    return [left, right].some((x) => x && confines(x, src, stride, consts));
  const thread = (x: Node | null): boolean =>
    !!x && !names(x, src, stride.name) && consts.value(x) === undefined;
  if (stride.dir === "down") {
    if (n.type !== "binary_expression") return false;
    if (o === "<" || o === "<=") return thread(left) && names(right, src, stride.name);
    if (o === ">" || o === ">=") return names(left, src, stride.name) && thread(right);
    return false;
  }
  // `x == 0`, `0 == x`, `!x`, where x is `tid % m` or `tid & m` and m names the stride
  const divides = (x: Node | null): boolean => {
    const d = x && unparen(x);
    const dop = d?.childForFieldName("operator");
    const t = dop ? textIn(src, dop) : "";
    return d?.type === "binary_expression" && (t === "%" || t === "&")
      ? thread(d.childForFieldName("left")) && names(d.childForFieldName("right"), src, stride.name)
      : false;
  };
  if (n.type === "unary_expression" && o === "!") return divides(left);
  if (n.type !== "binary_expression" || o !== "==") return false;
  return (consts.value(right!) === 0 && divides(left)) || (consts.value(left!) === 0 && divides(right));
}

/** Is `write` in the `then` side of an `if` inside the body whose condition confines the threads? */
function guarded(write: Node, body: Node, src: string, stride: Stride, consts: Constants): boolean {
  let child = write;
  for (let p = write.parent; p && p.id !== body.id; child = p, p = p.parent) {
    if (p.type !== "if_statement" || p.childForFieldName("consequence")?.id !== child.id) continue;
    const cond = p.childForFieldName("condition");
    if (cond && confines(cond, src, stride, consts)) return true;
  }
  return false;
}

/** `s[2 * stride * tid]`, or `s[index]` with `index = 2 * stride * tid` in the body: a scaled index. */
function scaledIndex(left: Node, body: StepBody, stride: string): boolean {
  const i = left.childForFieldName("indices") ?? left.childForFieldName("index");
  if (!i) return false;
  const scaled = new RegExp(`\\b${stride}\\s*(?:\\*|<<)|\\*\\s*\\(?\\s*${stride}\\b`);
  const text = textIn(body.src, i)
    .replace(/^\[|\]$/g, "")
    .trim();
  if (scaled.test(text)) return true;
  return body.writes.some((d) => {
    const name = d.childForFieldName(d.type === "init_declarator" ? "declarator" : "left");
    const value = d.childForFieldName(d.type === "init_declarator" ? "value" : "right");
    return !!name && !!value && textIn(body.src, name) === text && scaled.test(textIn(body.src, value));
  });
}

/**
 * Is the loop body one step of a tree reduction over `stride` in the arrays named `shared` (see the
 * header): a combining write that fewer threads make each step?
 */
export function reductionStep(
  body: StepBody,
  shared: ReadonlySet<string>,
  stride: Stride,
  consts: Constants,
) {
  return combiningWrites(body, shared, stride.name).some(
    ({ write, left }) =>
      guarded(write, body.node, body.src, stride, consts) ||
      (stride.dir === "up" && scaledIndex(unparen(left!), body, stride.name)),
  );
}
