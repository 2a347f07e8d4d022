// The uniformity analysis' readers of text (uniformity.ts): an expression's deps without walking its
// nodes, and the trip count of a loop whose bounds move together.
import type { Node } from "web-tree-sitter";
import { isSpaceCode, isWordCode } from "../source/charCodes";
import { descendants, declaredName, unparen } from "../source/nodes";
import {
  calleeName,
  NONE,
  union,
  UNIFORM_CALL,
  VARYING,
  VARYING_CALL,
  VARYING_NAMES,
  type Deps,
  type Resolve,
} from "./uniformityBase";

/**
 * What only the tree can tell: assignments (`=`, `+=`, `<<=`), barriers (`__syncthreads`, `__syncwarp`,
 * `g.sync()`, `cg::sync(g)`; not `__shfl_sync`), lambdas, `&x` out-parameters, literals and comments,
 * sizeof, and template calls (`size<3>(t)`, `static_cast<int>(x)`). What the regex
 * `(?:^|[^=!<>])=(?!=)|<<=|>>=|__sync(?:threads|warp)|\bsync\b|\[[&=]|\]\s*\(|[(,]\s*&(?!&)|["']|\/[/*]|
 * \b(?:sizeof|alignof|decltype|this)\b|\w\s*<[^;]*>\s*\(` finds, read a character at a time (the regex
 * tries each of its branches at every place of every expression).
 */
function needsTree(t: string): boolean {
  for (let at = t.indexOf("__sync"); at >= 0; at = t.indexOf("__sync", at + 6))
    if (t.startsWith("threads", at + 6) || t.startsWith("warp", at + 6)) return true;
  const n = t.length;
  // a template call's `>` is searched for up to here (the next `;`) once: a later `<` finds no other
  let templateSearched = -1;
  for (let i = 0; i < n; i++) {
    const c = t.charCodeAt(i);
    if (isWordCode(c)) {
      let j = i + 1;
      while (j < n && isWordCode(t.charCodeAt(j))) j++;
      if (j - i <= 8 && TREE_WORDS.has(t.slice(i, j))) return true;
      i = j - 1;
      continue;
    }
    switch (c) {
      case 61: {
        // `=`: an assignment, not `==`, `!=`, `<=`, `>=`; `<<=`, `>>=`
        const p = i > 0 ? t.charCodeAt(i - 1) : -1;
        if (p === 60 || p === 62) {
          if (i >= 2 && t.charCodeAt(i - 2) === p) return true;
        } else if (p !== 61 && p !== 33 && t.charCodeAt(i + 1) !== 61) return true;
        break;
      }
      case 91: {
        // `[&`, `[=`: a lambda
        const d = t.charCodeAt(i + 1);
        if (d === 38 || d === 61) return true;
        break;
      }
      case 93: // `] (`: a lambda's parameters
        if (t.charCodeAt(skipSpaces(t, i + 1)) === 40) return true;
        break;
      case 40:
      case 44: {
        // `(&x`, `, &x`: an out-parameter
        const k = skipSpaces(t, i + 1);
        if (t.charCodeAt(k) === 38 && t.charCodeAt(k + 1) !== 38) return true;
        break;
      }
      case 34:
      case 39:
        return true;
      case 47: {
        const d = t.charCodeAt(i + 1);
        if (d === 47 || d === 42) return true;
        break;
      }
      case 60:
        if (i > templateSearched && wordBefore(t, i)) {
          let semi = t.indexOf(";", i + 1);
          if (semi < 0) semi = n;
          if (templateCall(t, i + 1, semi)) return true;
          templateSearched = semi;
        }
        break;
    }
  }
  return false;
}

/** Whole words that need the tree (see needsTree). */
const TREE_WORDS: ReadonlySet<string> = new Set(["sync", "sizeof", "alignof", "decltype", "this"]);

/** Where the spaces from `i` end. */
function skipSpaces(t: string, i: number): number {
  let k = i;
  while (k < t.length && isSpaceCode(t.charCodeAt(k))) k++;
  return k;
}

/** Is a word character before `at`, spaces between? */
function wordBefore(t: string, at: number): boolean {
  let p = at - 1;
  while (p >= 0 && isSpaceCode(t.charCodeAt(p))) p--;
  return p >= 0 && isWordCode(t.charCodeAt(p));
}

/** A `>` in [from, to) followed by `(`, spaces between. */
function templateCall(t: string, from: number, to: number): boolean {
  for (let g = t.indexOf(">", from); g >= 0 && g < to; g = t.indexOf(">", g + 1))
    if (t.charCodeAt(skipSpaces(t, g + 1)) === 40) return true;
  return false;
}

/**
 * `static_cast<T>` and its kin with a plain type: the call passes its argument's deps on, and the walk
 * reads no name of the type (so its text is blanked before reading).
 */
const CAST = /\b(?:static|reinterpret|const)_cast\s*<[\w\s:*&]*>/g;

const blank = (s: string): string => " ".repeat(s.length);

/**
 * The deps of an expression read from its text, when it holds nothing the tree is needed for (see
 * needsTree): most conditions and right-hand sides. Visiting every node of them costs ~10x more.
 */
export function textDeps(text: string, resolve: Resolve): Deps | undefined {
  const plain = text.includes("_cast") ? text.replace(CAST, blank) : text;
  // another `<…>` next to a cast may be a template (`Shape<Int<N>>{}`), whose names the walk skips
  if (needsTree(plain) || (plain !== text && /<[^;]*>/.test(plain))) return undefined;
  // The names, as `/(\.|->|::)?\s*\b([A-Za-z_]\w*)\b(\s*(?:\(|::))?/g` finds them (a member or a
  // namespace or class name when a prefix or `::` is there, a call before `(`), read a character at a
  // time: a regex's match arrays and groups cost more.
  const syms: number[] = [];
  const n = plain.length;
  // where the last name's match ends: a `::` it took is not the next name's prefix (`a::b`: b is a name)
  let taken = 0;
  for (let i = 0; i < n;) {
    const c = plain.charCodeAt(i);
    if (!isWordCode(c)) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && isWordCode(plain.charCodeAt(j))) j++;
    const start = i;
    i = j;
    if (c <= 57) continue; // a number (a word starting with a digit) holds no name
    let k = j;
    while (k < n && isSpaceCode(plain.charCodeAt(k))) k++;
    const paren = plain.charCodeAt(k) === 40; // (
    const scope = !paren && plain.charCodeAt(k) === 58 && plain.charCodeAt(k + 1) === 58; // ::
    const member = memberPrefix(plain, start, taken);
    taken = paren ? k + 1 : scope ? k + 2 : j;
    // a call right before its `(` (`f (x)` is skipped, as a member or a namespace would be)
    if (paren && k === j) {
      const word = plain.slice(start, j);
      if (VARYING_CALL.test(word)) return VARYING;
      if (UNIFORM_CALL.test(word)) return undefined;
      continue;
    }
    if (member || paren || scope) continue;
    const word = plain.slice(start, j);
    const s = resolve(word);
    if (s !== undefined) syms.push(s);
    else if (VARYING_NAMES.has(word)) return VARYING;
  }
  return syms.length === 0 ? NONE : { direct: false, syms };
}

/** Is the name at `at` after `.`, `->` or `::` (spaces between), one that a name's match before `taken` did not take? */
function memberPrefix(text: string, at: number, taken: number): boolean {
  let p = at - 1;
  while (p >= taken && isSpaceCode(text.charCodeAt(p))) p--;
  if (p < taken) return false;
  const c = text.charCodeAt(p);
  if (c === 46) return true; // .
  const before = p - 1 >= taken ? text.charCodeAt(p - 1) : -1;
  return (c === 62 && before === 45) || (c === 58 && before === 58); // -> ::
}

/**
 * The deps of a for loop's trip count: when the loop is counted (see loopShape) and its bounds move
 * together, or one of `counters` (compile-time bounds, rounded-up bounds) knows its trip count, those of
 * what is left, else its condition's (`deps`). `resolve` finds names at the loop.
 */
export function tripDeps(
  header: LoopHeader,
  deps: Deps,
  resolve: Resolve,
  ...counters: { tripCount(shape: LoopShape, resolve: Resolve): Deps | undefined }[]
): Deps {
  const shape = loopShape(header);
  if (!shape) return deps;
  const shifted = shiftedTripCount(shape, resolve);
  if (shifted) return shifted;
  for (const c of counters) {
    const trip = c.tripCount(shape, resolve);
    if (trip) return trip;
  }
  return deps;
}

/** A counted loop `for (name = start; name CMP bound; update)`; `step` is null for `++`/`--`. */
export interface LoopShape {
  /** The for statement. */
  loop: Node;
  name: string;
  /** The comparison of the condition (`<`, `!=`…). */
  cmp: string;
  start: Node;
  bound: Node;
  /** The assignment operator of the update (`+=`, `-=`, `=`…), or `++`/`--`. */
  op: string;
  step: Node | null;
}

/** A for loop's header: its initializer, condition and update (any may be missing). */
export interface LoopHeader {
  loop: Node;
  init: Node | null;
  cond: Node | null;
  update: Node | null;
}

/** Reads a for loop as a counted loop: one counter (among a comma list's) in the init, condition and update. */
export function loopShape({ loop, init, cond: condition, update }: LoopHeader): LoopShape | undefined {
  if (!condition) return undefined;
  const cond = unparen(condition);
  if (cond.type !== "binary_expression") return undefined;
  const name = cond.childForFieldName("left")?.text;
  const cmp = cond.childForFieldName("operator")?.text ?? "";
  const bound = cond.childForFieldName("right");
  if (!name || !bound || !init) return undefined;
  const initType = init.type;
  let start: Node | null = null;
  if (initType === "declaration") {
    for (const d of init.childrenForFieldName("declarator"))
      if (d?.type === "init_declarator" && declaredName(d.childForFieldName("declarator"))?.text === name)
        start = d.childForFieldName("value");
  } else if (initType === "assignment_expression" && init.childForFieldName("operator")?.text === "=") {
    if (init.childForFieldName("left")?.text === name) start = init.childForFieldName("right");
  }
  if (!start) return undefined;
  for (const u of update ? commaList(unparen(update)) : []) {
    const t = u.type;
    if (t === "assignment_expression" && u.childForFieldName("left")?.text === name)
      return {
        loop,
        name,
        cmp,
        start,
        bound,
        op: u.childForFieldName("operator")?.text ?? "",
        step: u.childForFieldName("right"),
      };
    if (t === "update_expression" && u.childForFieldName("argument")?.text === name)
      return { loop, name, cmp, start, bound, op: u.childForFieldName("operator")?.text ?? "", step: null };
  }
  return undefined;
}

/** `a, b, c` → a, b, c. */
function commaList(n: Node): Node[] {
  if (n.type !== "comma_expression") return [n];
  const l = n.childForFieldName("left");
  const r = n.childForFieldName("right");
  return l && r ? [...commaList(l), ...commaList(r)] : [n];
}

/**
 * `for (t = a + tid; t < b + tid; t += c)`: both bounds move with the same term, so the trip count
 * depends only on the rest (a, b, c). Its deps, or undefined for other loops (`shape`: see loopShape).
 */
export function shiftedTripCount(shape: LoopShape, resolve: Resolve): Deps | undefined {
  const from = addends(shape.start);
  const to = addends(shape.bound);
  const rest = from.filter((f) => {
    const i = to.findIndex((t) => t.text.replace(/\s+/g, "") === f.text.replace(/\s+/g, ""));
    if (i >= 0) to.splice(i, 1);
    return i < 0;
  });
  if (rest.length === from.length) return undefined;
  const step = shape.step ? [shape.step] : [];
  return union(...[...rest, ...to, ...step].map((n) => pureDeps(n, resolve)));
}

/** What an expression reads, without recording anything (for a second look at visited code). */
export function pureDeps(n: Node, resolve: Resolve): Deps {
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
