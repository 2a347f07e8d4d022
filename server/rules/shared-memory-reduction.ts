// The textbook shared-memory tree reduction: log2(blockDim) steps, each with a block-wide barrier, with
// most threads idle in the last steps. Warp shuffles do the last five steps in registers without barriers.
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { Constants } from "./util/constEval";
import { FileIndex, sharedQualifier } from "./util/fileIndex";
import { descendants, unparen } from "./util/nodes";

const STEP =
  /\b(\w+)\s*(?:>>=\s*1|\/=\s*2|<<=\s*1|\*=\s*2)\b|\b(\w+)\s*=\s*\2\s*(?:>>\s*1|\/\s*2|<<\s*1|\*\s*2)\b/;

/** STEP, tested only where its cheap necessary part (an operator, maybe `=`, then 1 or 2) is in the text. */
function hasStep(src: string): boolean {
  return /[>/<*]=?\s*[12]/.test(src) && STEP.test(src);
}

/** The stride variable when `update` halves (`s >>= 1`, `s /= 2`, `s = s / 2`) or doubles it. */
function strideUpdate(update: Node | null): { name: string; dir: "down" | "up" } | undefined {
  if (!update) return undefined;
  const u = unparen(update);
  if (u.type !== "assignment_expression") return undefined;
  const left = u.childForFieldName("left");
  const right = u.childForFieldName("right");
  const op = u.childForFieldName("operator")?.text;
  if (left?.type !== "identifier" || !right) return undefined;
  const r = unparen(right).text.replace(/\s+/g, "");
  const name = left.text;
  if ((op === ">>=" && r === "1") || (op === "/=" && r === "2")) return { name, dir: "down" };
  if ((op === "<<=" && r === "1") || (op === "*=" && r === "2")) return { name, dir: "up" };
  if (op === "=" && (r === `${name}>>1` || r === `${name}/2`)) return { name, dir: "down" };
  if (op === "=" && (r === `${name}<<1` || r === `${name}*2`)) return { name, dir: "up" };
  return undefined;
}

/** The smallest stride a halving loop still runs with, from its condition (`s > 0` → 1, `s > 32` → 33). */
function smallestStride(cond: Node | null, name: string, consts: Constants): number | undefined {
  if (!cond) return undefined;
  const c = unparen(cond.type === "condition_clause" ? (cond.childForFieldName("value") ?? cond) : cond);
  if (c.type === "identifier" && c.text === name) return 1; // while (s)
  if (c.type !== "binary_expression") return undefined;
  const l = c.childForFieldName("left");
  const r = c.childForFieldName("right");
  const op = c.childForFieldName("operator")?.text;
  if (l?.text !== name || !r) return undefined;
  const k = consts.value(r);
  if (k === undefined) return undefined;
  if (op === ">") return k + 1;
  if (op === ">=") return k;
  if (op === "!=" && k === 0) return 1;
  return undefined;
}

/**
 * Names declared `__shared__` in [start, end), found from the qualifier's text (walking the function's
 * declarations costs more).
 */
function sharedNames(idx: FileIndex, start: number, end: number): Set<string> {
  const shared = new Set<string>();
  for (const m of idx.scanAll(/\b__shared__\b/g, start, end)) {
    const decl = sharedQualifier(idx, m.index, m.index + m[0].length)?.parent;
    if (decl?.type !== "declaration") continue;
    for (const id of descendants(decl, "identifier")) {
      const p = id.parent?.type;
      if (p === "array_declarator" || p === "pointer_declarator" || p === "init_declarator")
        shared.add(id.text);
    }
  }
  return shared;
}

const LOOPS: ReadonlySet<string> = new Set([
  "for_statement",
  "while_statement",
  "do_statement",
  "for_range_loop",
]);

/** `for` and `while` loops in [start, end), from their keywords, in document order. */
function forAndWhileLoops(idx: FileIndex, start: number, end: number): Node[] {
  const out: Node[] = [];
  for (const m of idx.scanAll(/\b(for|while)\b/g, start, end)) {
    const type = `${m[0]}_statement`;
    const owner = idx.ownerOf(m.index, m.index + m[0].length, LOOPS);
    if (owner) {
      // its first token, at the match, is the keyword
      if (owner.type === type && owner.startIndex === m.index) out.push(owner);
      continue;
    }
    const kw = idx.nodeAt(m.index, m.index + m[0].length);
    const loop = kw.parent;
    if (kw.type !== m[0] || loop?.type !== type || loop.startIndex !== m.index) continue;
    out.push(loop);
  }
  return out;
}

/** The stride a loop halves or doubles: its `for` update, or an assignment in a `while` body. */
function loopStride(loop: Node, body: Node): { name: string; dir: "down" | "up" } | undefined {
  if (loop.type === "for_statement") return strideUpdate(loop.childForFieldName("update"));
  let stride: { name: string; dir: "down" | "up" } | undefined;
  for (const a of descendants(body, "assignment_expression")) stride ??= strideUpdate(a);
  return stride;
}

/** Does the loop body index a shared array with the stride, between barriers? */
function isTreeStep(body: Node, shared: ReadonlySet<string>, stride: string): boolean {
  const text = body.text;
  if (!text.includes("__syncthreads")) return false;
  const hasBarrier = descendants(body, "call_expression").some(
    (c) => c.childForFieldName("function")?.text === "__syncthreads",
  );
  if (!hasBarrier) return false;
  return descendants(body, "subscript_expression").some((s) => {
    const arg = s.childForFieldName("argument");
    const idx = s.childForFieldName("indices") ?? s.childForFieldName("index");
    return (
      !!arg && shared.has(arg.text) && !!idx && descendants(idx, "identifier").some((i) => i.text === stride)
    );
  });
}

export const sharedMemoryReduction: Rule = {
  id: "shared-memory-reduction",
  defaultSeverity: "warning",
  summary:
    "A block reduction halving a stride in shared memory with __syncthreads() every step down to one element.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const consts = Constants.of(idx);
    for (const { start, end } of idx.deviceFunctions()) {
      // Cheap text test first: only functions with shared memory, a barrier and a halving/doubling step.
      const src = idx.text.slice(start, end);
      if (!src.includes("__shared__") || !src.includes("__syncthreads") || !hasStep(src)) continue;
      const shared = sharedNames(idx, start, end);
      if (shared.size === 0) continue;
      for (const loop of forAndWhileLoops(idx, start, end)) {
        const body = loop.childForFieldName("body");
        if (!body) continue;
        const stride = loopStride(loop, body);
        if (!stride) continue;
        if (stride.dir === "down") {
          const min = smallestStride(loop.childForFieldName("condition"), stride.name, consts);
          // Stopping at 32 and finishing with shuffles is the recommended hybrid.
          if (min === undefined || min >= 32) continue;
        }
        if (!isTreeStep(body, shared, stride.name)) continue;
        ctx.report({
          node: loop.child(0) ?? loop,
          message: `Shared-memory tree reduction over \`${stride.name}\`: one __syncthreads() per step down to a single element, most threads idle at the end. Reduce within each warp with __shfl_xor_sync (no barrier), then combine the per-warp results (one shared slot per warp, one barrier).`,
        });
      }
    }
  },
};
