// A thread-strided loop moving global FP32 data one float at a time: bandwidth-bound kernels (norms,
// activations, softmax) load four floats per instruction with float4 (the seeds' "FP32 vectorization
// using float4"), a quarter of the load/store instructions for the same bytes.
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { codeSlice } from "../analysis/source/codeText";
import { FileIndex } from "../analysis/source/fileIndex";
import { isSmallCount } from "../analysis/loops/smallCounts";
import { threadIndexNames, threadStrideLoops } from "../analysis/loops/threadStrideLoops";

/** Vector types or 128-bit helpers in a function: it vectorizes already, the scalar loop is its tail. */
const VECTORIZES = /\b(?:float[24]|int[24]|uint[24]|double2|__half2|__nv_bfloat162|\w+128)\b/;

/** `float* name`, `const float* __restrict__ name` (group 1: name), not a `__shared__` one. */
const FLOAT_POINTER =
  /(?<![\w.>])(?:const\s+)?float\s*(?:const\s*)?\*\s*(?:const\s+)?(?:__restrict__\s+)?([A-Za-z_]\w*)/g;

/** Arrays a function declares `__shared__` (group 1), `extern __shared__ char smem[]` included. */
const SHARED_ARRAY = /__shared__[^;]*?\b([A-Za-z_]\w*)\s*\[/g;

/**
 * The global float pointers a function declares (parameters and locals), from its code text: not a
 * `__shared__` one, nor a local set from a shared array (`float* s = (float*)smem;`).
 */
function floatPointers(code: string): Set<string> {
  const shared = [...code.matchAll(SHARED_ARRAY)].map((m) => m[1]!);
  const out = new Set<string>();
  for (const m of code.matchAll(FLOAT_POINTER)) {
    const lineStart = code.lastIndexOf("\n", m.index) + 1;
    if (code.slice(lineStart, m.index).includes("__shared__")) continue;
    const after = code.slice(m.index + m[0].length);
    const init = /^\s*=([^;]*);/.exec(after)?.[1] ?? "";
    if (shared.some((n) => new RegExp(`\\b${n}\\b`).test(init))) continue;
    out.add(m[1]!);
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
function firstScalarAccess(body: Node, variable: string, pointers: ReadonlySet<string>): Node | undefined {
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

export const scalarFloatAccess: Rule = {
  id: "scalar-float-access",
  defaultSeverity: "warning",
  basis: "heuristic",
  summary:
    "A block- or grid-stride loop reads or writes global float elements one at a time; load float4 (four per access).",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    for (const f of idx.deviceFunctions()) {
      // Without a float, a thread index and a `+=` step in its raw text, a function has no such loop.
      const raw = idx.text.slice(f.start, f.end);
      if (!raw.includes("float") || !raw.includes("threadIdx") || !raw.includes("+=")) continue;
      const code = codeSlice(idx, f.start, f.end);
      if (VECTORIZES.test(code)) continue;
      const pointers = floatPointers(code);
      if (pointers.size === 0) continue;
      for (const { body, variable, bound } of threadStrideLoops(f.body, threadIndexNames(code))) {
        // A loop over experts, top-k picks or heads is short: latency-bound whatever its loads.
        if (bound && isSmallCount(bound.text)) continue;
        const access = firstScalarAccess(body, variable, pointers);
        if (!access) continue;
        const name = access.childForFieldName("argument")!.text;
        ctx.report({
          node: access,
          message: `\`${name}\` is read or written one float (4 bytes) per iteration of this thread-strided loop. Load float4 (reinterpret_cast<const float4*>, four elements per access) where the length is a multiple of 4 and the pointer 16-byte aligned, with a scalar loop for the tail.`,
        });
      }
    }
  },
};
