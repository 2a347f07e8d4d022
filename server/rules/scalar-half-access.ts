// A loop moving global FP16/BF16 data two bytes at a time: memory-bound kernels reach a fraction of peak
// bandwidth that way; __half2/__nv_bfloat162 (4 B) or 16-byte vectors move the same data in fewer transactions.
import type { Node } from "web-tree-sitter";
import type { LintContext, Rule } from "./rule";
import type { FunctionInfo } from "../analysis/source/fileIndex";
import { FunctionLocals, notAStream } from "../analysis/access/accessShape";
import {
  halfAccesses,
  offsetReads,
  halfPointerReader,
  type HalfAccess,
  type HalfPointer,
} from "../analysis/access/halfPointers";
import { onChipParameter } from "../analysis/access/onChipParameters";
import { vectorizesIn } from "../analysis/access/vectorizes";
import { deviceBodies, exchangesAcrossWarp } from "../analysis/access/warpExchange";
import { usesOf } from "../lint/dependencies";
import { codeSlice } from "../analysis/source/codeText";
import { declEnv, type DeclEnv } from "../analysis/types/declEnv";
import { FileIndex } from "../analysis/source/fileIndex";

type Kind = HalfPointer["kind"];

/** Why the element type is 16-bit, where a template instantiation says so. */
function instantiationNote(p: HalfPointer): string {
  const i = p.instantiation;
  if (!i) return "";
  const where = i.writtenIn ? `in ${i.writtenIn}` : "at file scope";
  return ` (${i.param} is instantiated with ${i.type}${i.via ? ` through ${i.via}` : ""} ${where})`;
}

const typeName = (k: Kind): string => (k === "half" ? "__half" : "__nv_bfloat16");
const pairName = (k: Kind): string => (k === "half" ? "__half2" : "__nv_bfloat162");

function loopMessage(name: string, p: HalfPointer): string {
  const pair = pairName(p.kind);
  return `\`${name}\` is read or written one ${typeName(p.kind)} (2 bytes) per iteration${instantiationNote(p)}. Load ${pair} pairs (reinterpret_cast<const ${pair}*>) or 16-byte vectors (float4/uint4, 8 elements) to use the memory bandwidth.`;
}

function threadMessage(name: string, p: HalfPointer): string {
  return `\`${name}\` is read or written one ${typeName(p.kind)} (2 bytes) per thread${instantiationNote(p)}: the warp's accesses coalesce, but each thread issues its own 2-byte load or store (64 bytes per warp instruction). Let each thread handle a ${pairName(p.kind)} pair or 8 elements (one 16-byte uint4/float4 access): fewer memory instructions, and full 16-byte accesses per thread.`;
}

export const scalarHalfAccess: Rule = {
  id: "scalar-half-access",
  defaultSeverity: "warning",
  basis: "heuristic",
  shippedCodeOnly: true,
  summary:
    "A loop, or each thread of an elementwise kernel, reads or writes global __half/__nv_bfloat16 elements one at a time; use 2-wide or 16-byte vector access.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const fns = idx.deviceFunctions();
    if (fns.length === 0) return;
    const env = declEnv(ctx);
    const read = halfPointerReader(idx, env);
    for (const f of fns) {
      const found = read(f);
      // A function that already vectorizes has its scalar loop as the odd-length tail.
      if (!found || found.pointers.size === 0 || vectorizesIn(found.src, env.vectorTypes)) continue;
      // A helper's pointer parameter that every call in the file binds to a shared or local array
      const onChip = new Map<string, boolean>();
      const global = (h: HalfAccess): boolean => {
        if (!onChip.has(h.name)) onChip.set(h.name, onChipParameter(idx, f, h.name));
        return !onChip.get(h.name);
      };
      const hits = halfAccesses(idx, f, found.pointers, env.defines).filter(global);
      if (hits.length > 0) reportAccesses(ctx, idx, f, hits, offsetReads(idx, f, found.pointers), env);
    }
  },
};

/** The first streaming access of each loop, and the first one-element-per-thread access outside loops. */
function reportAccesses(
  ctx: LintContext,
  idx: FileIndex,
  f: FunctionInfo,
  hits: HalfAccess[],
  sums: Node[],
  env: DeclEnv,
): void {
  const code = codeSlice(idx, f.start, f.end);
  const locals = new FunctionLocals(idx.root, code, f.start);
  // Each loop's range read once (endIndex crosses into wasm), not once per access.
  const loops = idx.loops(f.body.startIndex, f.body.endIndex).map((l) => ({
    node: l,
    start: l.startIndex,
    end: l.endIndex,
  }));
  // The innermost loop holding a node (the last-starting one): its id, or -1 for none.
  const loopOf = (n: Node): Node | undefined => {
    let loop: Node | undefined;
    for (const l of loops) if (l.start <= n.startIndex && n.endIndex <= l.end) loop = l.node;
    return loop;
  };
  const placed = hits.map((h) => {
    const loop = loopOf(h.sub);
    return { ...h, loop, key: loop ? loop.id : -1, shape: locals.shape(h.sub) };
  });
  // A loop (or the code outside loops) that gathers moves its data through the index: storing the
  // gathered values two at a time gains little. Those are skipped whole. A gather is a subscript or a
  // pointer sum (`__ldg(src + row)`) whose index is loaded from memory.
  const reported = new Set(placed.filter((p) => p.shape === "gather").map((p) => p.key));
  for (const sum of sums) if (locals.loads(sum.text)) reported.add(loopOf(sum)?.id ?? -1);
  // A function streaming its data in loops: its accesses outside loops are per-row values (a mean, a
  // norm), a small part of its traffic.
  const streams = placed.some((p) => p.loop && !notAStream(p.shape) && !reported.has(p.key));
  // A function whose threads exchange values across the warp: each lane's element is its item (a top-k).
  const exchanges = (): boolean =>
    exchangesAcrossWarp(
      code,
      deviceBodies(idx, env.headerFunctions, (name) => idx.reads(usesOf(name))),
    );
  if (streams || (placed.some((p) => !p.loop) && exchanges())) reported.add(-1);
  for (const { sub, name, pointer, loop, key, shape } of placed) {
    if (reported.has(key)) continue;
    // A value shared by a group of threads, a fixed element or a strided one is no stream; outside loops
    // only the thread's own element counts.
    if (notAStream(shape) || (!loop && !locals.contiguousAt(sub))) continue;
    reported.add(key);
    ctx.report({ node: sub, message: loop ? loopMessage(name, pointer) : threadMessage(name, pointer) });
  }
}
