// Which thread-strided loops stream global FP32 data (scalar-float-access): a block- or grid-stride loop
// (threadStrideLoops.ts) in which every subscript is a global float pointer's, contiguous in the loop
// variable, at least one a read, with no inner loop or atomic, and whose data is each block's own (a
// grid-stride loop, or an index or row pointer built from blockIdx): the shape of the bandwidth-bound
// loops of norms, activations and softmax. Not a stream: a loop over a count a kernel has few of
// (smallCounts.ts), a loop inside a serial loop that waits at a barrier each round (latency-bound), and
// any loop of a function that already uses vector types (its scalar loop is the tail).
// Read from the function's code text (comments blanked) and its tree. Cannot see: pointers reached
// through `auto`, templates or struct members, loops a macro writes, and whether the data is large.
import type { Node } from "web-tree-sitter";
import { isSmallCount } from "./smallCounts";
import { threadIndexNames, threadStrideLoops, type StrideLoop } from "./threadStrideLoops";

/** A loop that streams FP32 data, and its first float access. */
export interface FloatStream {
  loop: Node;
  access: Node;
  pointer: string;
}

/** Vector types or 128-bit helpers in a function: it vectorizes already, the scalar loop is its tail. */
const VECTORIZES = /\b(?:float[24]|int[24]|uint[24]|double2|__half2|__nv_bfloat162|\w+128)\b/;

/** `float* name`, `const float* __restrict__ name` (group 1: name), not a `__shared__` one. */
const FLOAT_POINTER =
  /(?<![\w.>])(?:const\s+)?float\s*(?:const\s*)?\*\s*(?:const\s+)?(?:__restrict__\s+)?([A-Za-z_]\w*)/g;

/** Arrays a function declares `__shared__` (group 1), `extern __shared__ char smem[]` included. */
const SHARED_ARRAY = /__shared__[^;]*?\b([A-Za-z_]\w*)\s*\[/g;

/**
 * The global float pointers a function declares (parameters and locals), from its code text: not a
 * `__shared__` one, nor a local set from a shared array (`float* s = (float*)smem;`); each with its
 * initializer's text (empty for a parameter).
 */
function floatPointers(code: string): Map<string, string> {
  const shared = [...code.matchAll(SHARED_ARRAY)].map((m) => m[1]!);
  const out = new Map<string, string>();
  for (const m of code.matchAll(FLOAT_POINTER)) {
    const lineStart = code.lastIndexOf("\n", m.index) + 1;
    if (code.slice(lineStart, m.index).includes("__shared__")) continue;
    const after = code.slice(m.index + m[0].length);
    const init = /^\s*=([^;]*);/.exec(after)?.[1] ?? "";
    if (shared.some((n) => new RegExp(`\\b${n}\\b`).test(init))) continue;
    out.set(m[1]!, init);
  }
  return out;
}

/** `p[v]`, `p[e + v]`, `p[v + e]` with `e` free of `v`: the loop variable picks consecutive elements. */
function contiguousIn(index: Node, variable: string): boolean {
  if (index.type === "identifier") return index.text === variable;
  if (index.type !== "binary_expression" || index.childForFieldName("operator")?.text !== "+") return false;
  const [l, r] = [index.childForFieldName("left"), index.childForFieldName("right")];
  const mentions = (n: Node | null): boolean => !!n && new RegExp(`\\b${variable}\\b`).test(n.text);
  if (l?.type === "identifier" && l.text === variable) return !mentions(r);
  if (r?.type === "identifier" && r.text === variable) return !mentions(l);
  return false;
}

/** The index of `a[i]`. */
const indexOf = (sub: Node | null): Node | null | undefined =>
  sub?.childForFieldName("indices")?.namedChild(0) ?? sub?.childForFieldName("index");

/** Is `sub` written (the left side of an assignment) rather than read? */
const written = (sub: Node): boolean =>
  sub.parent?.type === "assignment_expression" && sub.parent.childForFieldName("left")?.id === sub.id;

/** Inner loops and atomics make a loop something other than a stream of loads and stores. */
const NOT_STREAMING = /\b(?:for|while|do|atomic\w*)\b/;

/**
 * A streaming loop's first access: every subscript in the body is a global float pointer's, contiguous in
 * the loop variable, at least one of them a read, and the body has no inner loop or atomic. A loop that
 * also gathers (`x[ids[i]]`, `x[i / d]`), walks another stride, or moves data of another type (a `T*`
 * row beside its float cos/sin table) is bound by that traffic, and float4 for the float part gains little.
 */
function firstScalarAccess(
  body: Node,
  variable: string,
  pointers: ReadonlyMap<string, string>,
): Node | undefined {
  if (NOT_STREAMING.test(body.text)) return undefined;
  const subs = body.descendantsOfType("subscript_expression").filter((s): s is Node => !!s);
  if (subs.length === 0) return undefined;
  const streams = (s: Node): boolean => {
    const index = indexOf(s);
    return (
      pointers.has(s.childForFieldName("argument")?.text ?? "") && !!index && contiguousIn(index, variable)
    );
  };
  if (!subs.every(streams)) return undefined;
  return subs.some((s) => !written(s)) ? subs[0] : undefined;
}

/** `blockIdx` and the names a function assigns from an expression naming it (`row`, `token`, `bid`). */
function blockNames(code: string): RegExp {
  const names = ["blockIdx"];
  for (const m of code.matchAll(/\b([A-Za-z_]\w*)\s*=[^;=][^;]*\bblockIdx\b/g)) names.push(m[1]!);
  return new RegExp(`\\b(?:${names.join("|")})\\b`);
}

/** Is the loop inside another loop of the function that waits at a block barrier each round? */
function inBarrierLoop(loop: Node, fnBody: Node): boolean {
  for (let p = loop.parent; p && p.id !== fnBody.id; p = p.parent)
    if (/^(for|while|do)_statement$/.test(p.type) && p.text.includes("__syncthreads")) return true;
  return false;
}

/** The FP32 streams among a function's thread-strided loops, given its body and its code text. */
export function floatStreams(fnBody: Node, code: string): FloatStream[] {
  if (VECTORIZES.test(code)) return [];
  const pointers = floatPointers(code);
  if (pointers.size === 0) return [];
  const own = blockNames(code);
  const streams: FloatStream[] = [];
  for (const l of threadStrideLoops(fnBody, threadIndexNames(code))) {
    if ((l.bound && isSmallCount(l.bound.text)) || inBarrierLoop(l.loop, fnBody)) continue;
    const access = firstScalarAccess(l.body, l.variable, pointers);
    if (!access || !blocksOwnData(l, access, pointers, own, code)) continue;
    streams.push({ loop: l.loop, access, pointer: access.childForFieldName("argument")!.text });
  }
  return streams;
}

/**
 * Each block moves its own data: a grid-stride loop, or the access's index, or a float pointer the loop
 * names (as initialised, or moved: `x += row * ncols;`), names blockIdx or a name assigned from it.
 * (llm.c's `__ldcs(x + i)` beside `weight[i]`: the row is the block's own, the weights every block's.)
 */
function blocksOwnData(
  l: StrideLoop,
  access: Node,
  pointers: ReadonlyMap<string, string>,
  own: RegExp,
  code: string,
): boolean {
  if (l.stride.text.includes("gridDim") || own.test(indexOf(access)?.text ?? "")) return true;
  const body = l.body.text;
  for (const [pointer, init] of pointers) {
    if (!new RegExp(`\\b${pointer}\\b`).test(body)) continue;
    if (own.test(init)) return true;
    for (const m of code.matchAll(new RegExp(`\\b${pointer}\\s*(?:\\+=|=(?!=))([^;]*);`, "g")))
      if (own.test(m[1]!)) return true;
  }
  return false;
}
