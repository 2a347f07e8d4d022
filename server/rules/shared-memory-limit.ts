// Shared memory over what the hardware gives one block: static __shared__ is capped at 48 KB, and a
// dynamic request must fit the smallest target's opt-in limit (and needs the opt-in above 48 KB).
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { Constants, typeSize } from "../analysis/constants/constEval";
import { FileIndex, kernelLaunches, sharedQualifier } from "../analysis/source/fileIndex";
import { callArguments, namedChildren } from "../analysis/source/nodes";
import { OPT_IN_ATTRIBUTE, optedIn } from "../analysis/sharedMemory/optIn";

const STATIC_LIMIT = 48 * 1024;
/** Max dynamic shared memory per block with the opt-in attribute, bytes (CUDA programming guide, table 21). */
const OPT_IN_LIMIT: Readonly<Record<number, number>> = {
  70: 96 * 1024,
  72: 48 * 1024,
  75: 64 * 1024,
  80: 163 * 1024,
  86: 99 * 1024,
  87: 163 * 1024,
  89: 99 * 1024,
  90: 227 * 1024,
  100: 227 * 1024,
  103: 227 * 1024,
  120: 99 * 1024,
};

function limitFor(sm: number): number {
  if (OPT_IN_LIMIT[sm] !== undefined) return OPT_IN_LIMIT[sm];
  // Unknown minor versions: take the closest lower known architecture.
  const known = Object.keys(OPT_IN_LIMIT)
    .map(Number)
    .filter((k) => k <= sm);
  return known.length ? OPT_IN_LIMIT[Math.max(...known)]! : STATIC_LIMIT;
}

const kb = (b: number): string => `${Number.isInteger(b / 1024) ? b / 1024 : (b / 1024).toFixed(1)} KB`;

/**
 * Bytes of a static `__shared__` declaration, when every dimension is known. `qual`: its `__shared__`
 * qualifier when known, which (like the type) need not be asked its kind.
 */
function staticBytes(
  idx: FileIndex,
  decl: Node,
  qual: Node | null | undefined,
  consts: Constants,
): number | undefined {
  const type = decl.childForFieldName("type");
  const elem = type ? typeSize(idx.textOf(type)) : undefined;
  if (elem === undefined) return undefined;
  let total = 0;
  for (const d of namedChildren(decl)) {
    if (d.id === type!.id || d.id === qual?.id || d.type !== "array_declarator") continue;
    let bytes = elem;
    for (let a: Node | null = d; a?.type === "array_declarator"; a = a.childForFieldName("declarator")) {
      const size = a.childForFieldName("size");
      const n = size ? consts.value(size) : undefined;
      if (n === undefined) return undefined;
      bytes *= n;
    }
    total += bytes;
  }
  return total;
}

/** Static `__shared__` bytes per function (or per file-scope declaration), with its first declaration. */
function staticUse(idx: FileIndex): { bytes: number; first: Node }[] {
  const consts = Constants.of(idx);
  const perScope = new Map<number, { bytes: number; first: Node }>();
  for (const at of idx.words("__shared__")) {
    const end = at + 10; // "__shared__".length
    const qual = sharedQualifier(idx, at, end);
    const decl = qual ? qual.parent : idx.nodeAt(at, end).parent?.parent;
    if (decl?.type !== "declaration") continue;
    // Listing the children costs a node each: only a declaration whose text names `extern` can be one.
    if (
      idx.text.slice(decl.startIndex, decl.endIndex).includes("extern") &&
      namedChildren(decl).some((c) => c.type === "storage_class_specifier" && idx.textOf(c) === "extern")
    )
      continue;
    const bytes = staticBytes(idx, decl, qual, consts);
    if (bytes === undefined) continue;
    const scope = idx.enclosingFunction(decl);
    const key = scope?.id ?? -decl.id - 1;
    const cur = perScope.get(key);
    if (cur) cur.bytes += bytes;
    else perScope.set(key, { bytes, first: decl });
  }
  return [...perScope.values()];
}

/**
 * Dynamic requests: the third launch argument, and the opt-in attribute's value. A launch's request of
 * 48 KB or less is never over a limit (no target's is lower): it is left out, as most are (0 bytes).
 */
function dynamicRequests(
  idx: FileIndex,
  optsIn: boolean,
): { node: () => Node; bytes: number; launch: boolean }[] {
  const consts = Constants.of(idx);
  // The node to report on, made only for a finding (a plain launch's arguments are read from the text).
  const requests: { node: () => Node; bytes: number; launch: boolean }[] = [];
  for (const launch of kernelLaunches(idx)) {
    const texts = launch.plain ?? launch.texts;
    if (launch.plain || texts?.[2] !== undefined) {
      // Read from the text where it is a plain name or integer: the node only for a finding.
      const smem = texts?.[2];
      const bytes = smem === undefined ? undefined : consts.valueOfPlain(smem);
      if (bytes !== undefined && bytes > STATIC_LIMIT)
        requests.push({ node: () => launch.config[2]!, bytes, launch: true });
      continue;
    }
    const smem = launch.config[2];
    const bytes = smem ? consts.value(smem) : undefined;
    if (smem && bytes !== undefined && bytes > STATIC_LIMIT)
      requests.push({ node: () => smem, bytes, launch: true });
  }
  // The attribute's value counts only where its argument names the opt-in attribute: a text without that
  // name (`optsIn`) has no such call, and the scan for the calls is skipped.
  if (!optsIn) return requests;
  for (const fn of idx.tokens(/\bcudaFuncSetAttribute\b/g, new Set(["identifier"]))) {
    const call = fn.parent;
    if (call?.type !== "call_expression") continue;
    const args = callArguments(call);
    if (args[1] && idx.textOf(args[1]).endsWith(OPT_IN_ATTRIBUTE) && args[2]) {
      const bytes = consts.value(args[2]);
      if (bytes !== undefined) requests.push({ node: () => args[2]!, bytes, launch: false });
    }
  }
  return requests;
}

export const sharedMemoryLimit: Rule = {
  id: "shared-memory-limit",
  defaultSeverity: "error",
  basis: "does-not-compile",
  archDependentPart: "per-target limits",
  summary:
    "Static __shared__ over 48 KB in one kernel, or requested shared memory over the smallest target's per-block limit.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    for (const { bytes, first } of staticUse(idx)) {
      if (bytes <= STATIC_LIMIT) continue;
      ctx.report({
        node: first,
        message: `${kb(bytes)} of static __shared__ memory in one kernel is over the 48 KB static limit (ptxas rejects it). Use \`extern __shared__\` with a dynamic size and cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).`,
      });
    }
    // The static limit is every architecture's; the dynamic limits are per target, known only when declared.
    if (ctx.build.targets === "none") return;
    const smallest = Math.min(...ctx.targets.map(limitFor));
    const smallestSm = ctx.targets.find((t) => limitFor(t) === smallest) ?? ctx.targets[0]!;
    const optsIn = optedIn(idx);
    for (const r of dynamicRequests(idx, optsIn)) {
      if (r.bytes > smallest) {
        ctx.report({
          node: r.node(),
          message: `${kb(r.bytes)} of dynamic shared memory is over the ${kb(smallest)} per-block limit of sm_${smallestSm}, a target of this build: ${r.launch ? "the launch fails there" : "the attribute call fails there"}.`,
        });
      } else if (r.launch && r.bytes > STATIC_LIMIT && !optsIn) {
        ctx.report({
          node: r.node(),
          message: `${kb(r.bytes)} of dynamic shared memory needs cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ${r.bytes}) before the launch; without it anything over 48 KB fails to launch.`,
          // The opt-in may be made in another file.
          basis: "needs-context",
        });
      }
    }
  },
};
