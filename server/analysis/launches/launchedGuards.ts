// Bounds guards that every launch of a kernel in the file makes the same for all of its threads. A
// parameter P is the block's x-extent when every launch passes for P the value it gives the block as its
// x-extent (`<<<1, n>>>(n, ...)`, `<<<rows, cols>>>(..., cols)`: the same expression text or the same
// constant). Then `threadIdx.x < P` holds for every thread (threadIdx.x < blockDim.x == P), and so does
// `blockIdx.x * blockDim.x + threadIdx.x < P` when every launch is one block (launchSites.ts
// launchedAsOneBlock: blockIdx.x is 0); `>=` and `>` of the same are false for every thread. The index may
// be written in the comparison or be a local variable initialized to it and never assigned again; casts to
// an integer type are looked through. Launches are read as launchSites.ts finds them (every use of the
// kernel's name is its declaration or a launch, one launch at least).
// Cannot see: launches from other files, a block given as a `dim3` variable (unless its x-extent is a
// constant), the same value written two ways (`n` and `(int)n`), a local index shadowed in an inner scope,
// a parameter changed through a pointer to it.
import type { Node } from "web-tree-sitter";
import { definedName } from "../callgraph/callGraph";
import { Constants } from "../constants/constEval";
import { codeSlice } from "../source/codeText";
import type { FileIndex, FunctionInfo } from "../source/fileIndex";
import { callArguments, declaredName } from "../source/nodes";
import { launchedAsOneBlock, launchSites, type LaunchSite } from "./launchSites";

/** Comparisons whose value a guard settles, and that value with the index on the left. */
const LEFT_INDEX: Readonly<Record<string, boolean>> = { "<": true, "<=": true, ">": false, ">=": false };
const RIGHT_INDEX: Readonly<Record<string, boolean>> = { ">": true, ">=": true, "<": false, "<=": false };

/** A C cast to an integer type (whitespace removed) and `static_cast<…>`, which keep the index's value. */
const INT_CAST =
  /\((?:const)?(?:(?:unsigned|signed)(?:int|long(?:long)?)?|int|long(?:long)?|size_t|u?int(?:32|64)_t)\)|static_cast<[\w:]+>/g;

/** `x` or `(x)`. */
const p = (x: string): string => `(?:${x}|\\(${x}\\))`;
const THREAD = p("threadIdx\\.x");
const BLOCK_BASE = p(
  `(?:${p("blockIdx\\.x")}\\*${p("blockDim\\.x")}|${p("blockDim\\.x")}\\*${p("blockIdx\\.x")})`,
);
/** The thread's x index in its block, as written (whitespace and casts removed). */
const IN_BLOCK = new RegExp(`^${THREAD}$`);
/** The thread's global x index, which is its index in the block when the grid is one block. */
const GLOBAL = new RegExp(`^${p(`(?:${BLOCK_BASE}\\+${THREAD}|${THREAD}\\+${BLOCK_BASE})`)}$`);

/**
 * `type name = value;` in a function's code: a local declared with one initializer (groups: name, value);
 * `else x = v;` or `return x = v;` is an assignment, not a declaration.
 */
const DECLARATION =
  /(?<=^|[;{}])\s*(?:const\s+)?(?:(?!(?:else|return|do|case)\b)[A-Za-z_][\w:]*\s+)+([A-Za-z_]\w*)\s*=\s*([^;,{}=]+);/g;

/** What the file's launches settle about a kernel's bounds guards. */
export interface LaunchGuards {
  /** May `text` hold a settled guard? A cheap test before `value`. */
  mentioned(text: string): boolean;
  /** The value comparison `n` has in every thread of every launch, or undefined when it may differ. */
  value(n: Node): boolean | undefined;
}

/** The text of `n` without whitespace and integer casts. */
function bare(idx: FileIndex, n: Node): string {
  return idx.textOf(n).replace(/\s+/g, "").replace(INT_CAST, "");
}

/** Is `name` written as an assignment's target, or incremented, in `code`, other than `times` times? */
function assignedOtherThan(code: string, name: string, times: number): boolean {
  const target = new RegExp(
    `\\b${name}\\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|(?:\\+\\+|--)\\s*${name}\\b|\\b${name}\\s*(?:\\+\\+|--)`,
    "g",
  );
  return (code.match(target)?.length ?? 0) !== times;
}

/** The kernel's parameter names, in order. */
function parameterNames(idx: FileIndex, fn: Node): (string | undefined)[] {
  let d = fn.childForFieldName("declarator");
  while (d && d.type !== "function_declarator") d = d.childForFieldName("declarator");
  const list = d?.childForFieldName("parameters");
  return (list?.namedChildren ?? [])
    .filter((n): n is Node => !!n && n.type.endsWith("parameter_declaration"))
    .map((n) => {
      const name = declaredName(n.childForFieldName("declarator"));
      return name && idx.textOf(name);
    });
}

/** Does launch `site` pass its block's x-extent as argument `at`? */
function passesBlockX(idx: FileIndex, consts: Constants, site: LaunchSite, at: number): boolean {
  const config = site.syntax.namedChildren.filter((n): n is Node => !!n && n.type !== "comment");
  const block = config[1];
  const arg = callArguments(site.call)[at];
  if (!block || !arg) return false;
  const callee = block.type === "call_expression" ? block.childForFieldName("function") : null;
  const x = callee && idx.textOf(callee) === "dim3" ? callArguments(block)[0] : block;
  if (x && bare(idx, x) === bare(idx, arg)) return true;
  const size = consts.dims(block)?.[0];
  return size !== undefined && consts.value(arg) === size;
}

/** The guards of kernel `f` that its launches in the file settle, or undefined when none can be. */
export function launchGuards(idx: FileIndex, f: FunctionInfo): LaunchGuards | undefined {
  if (f.space !== "global") return undefined;
  return idx.shared(`launchGuards:${f.node.id}`, () => {
    const name = definedName(idx, f.node);
    const sites = name === undefined ? undefined : launchSites(idx, name);
    if (!name || !sites || sites.length === 0) return undefined;
    const code = codeSlice(idx, f.body.startIndex, f.body.endIndex);
    const consts = Constants.of(idx);
    const bounds = parameterNames(idx, f.node).filter(
      (p, at): p is string =>
        !!p && !assignedOtherThan(code, p, 0) && sites.every((s) => passesBlockX(idx, consts, s, at)),
    );
    if (bounds.length === 0) return undefined;
    const index = launchedAsOneBlock(idx, name) ? [IN_BLOCK, GLOBAL] : [IN_BLOCK];
    const isIndex = (text: string): boolean => index.some((r) => r.test(text));
    const locals = new Set<string>();
    for (const m of code.matchAll(DECLARATION))
      if (isIndex(m[2]!.replace(/\s+/g, "").replace(INT_CAST, "")) && !assignedOtherThan(code, m[1]!, 1))
        locals.add(m[1]!);
    return guardsOf(idx, new Set(bounds), locals, isIndex);
  });
}

function guardsOf(
  idx: FileIndex,
  bounds: ReadonlySet<string>,
  locals: ReadonlySet<string>,
  isIndex: (text: string) => boolean,
): LaunchGuards {
  const words = (names: Iterable<string>): string => [...names].join("|");
  const mention = new RegExp(`\\b(?:${words(bounds)})\\b`);
  const indexed = (t: string): boolean => isIndex(t) || locals.has(t.replace(/^\((.*)\)$/, "$1"));
  const bound = (t: string): boolean => bounds.has(t.replace(/^\((.*)\)$/, "$1"));
  return {
    mentioned: (text) => mention.test(text),
    value(n) {
      const op = n.childForFieldName("operator");
      const left = n.childForFieldName("left");
      const right = n.childForFieldName("right");
      if (!op || !left || !right) return undefined;
      const o = idx.textOf(op);
      const l = bare(idx, left);
      const r = bare(idx, right);
      if (o in LEFT_INDEX && indexed(l) && bound(r)) return LEFT_INDEX[o];
      if (o in RIGHT_INDEX && bound(l) && indexed(r)) return RIGHT_INDEX[o];
      return undefined;
    },
  };
}
