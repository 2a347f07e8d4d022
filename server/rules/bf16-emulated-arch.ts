// BF16 arithmetic compiled for a pre-Ampere target the build declares (T4 is sm_75): it compiles, but
// Turing and Volta have no BF16 units, so every operation runs through float in software. The seeds'
// convention: "T4 has no BFloat16 support — must use FP16".
import type { Rule } from "./rule";
import { archOffRanges, inRanges } from "../analysis/preprocessor/archGuard";
import { FileIndex, type FunctionInfo } from "../analysis/source/fileIndex";
import { bf16Arithmetic } from "../analysis/types/bf16Arithmetic";
import { declEnv } from "../analysis/types/declEnv";
import { halfDecls } from "../analysis/types/halfDecls";

/** A function's name as declared (`cuda_max` of `template<> half cuda_max(half2 v)`), if plain. */
function nameOf(fn: FunctionInfo): string | undefined {
  let d = fn.node.childForFieldName("declarator");
  while (d && d.type !== "function_declarator") d = d.childForFieldName("declarator");
  const name = d?.childForFieldName("declarator")?.text;
  return name && /^[A-Za-z_][\w:]*$/.test(name) ? name : undefined;
}

/** The names of the device functions whose signature takes or returns an FP16 type. */
function fp16Versions(idx: FileIndex): Set<string> {
  const out = new Set<string>();
  for (const fn of idx.deviceFunctions()) {
    const signature = idx.text.slice(fn.start, fn.body.startIndex);
    const name = nameOf(fn);
    if (name && /\b(?:__)?half2?\b/.test(signature)) out.add(name);
  }
  return out;
}

/**
 * One of a function's per-type versions, with an FP16 one beside it: an explicit specialization
 * (`template<>`, of the function or of its struct) or an overload whose FP16 sibling the file defines.
 * The FP16 path the convention asks for exists; which one runs on a T4 is the caller's choice.
 */
function hasFp16Version(fn: FunctionInfo, withFp16: ReadonlySet<string>): boolean {
  const name = nameOf(fn);
  if (name && withFp16.has(name)) return true;
  for (let p = fn.node.parent; p; p = p.parent)
    if (
      p.type === "template_declaration" &&
      p.childForFieldName("parameters")?.text.replace(/\s/g, "") === "<>"
    )
      return true;
  return false;
}

export const bf16EmulatedArch: Rule = {
  id: "bf16-emulated-arch",
  defaultSeverity: "warning",
  basis: "heuristic",
  archDependent: true,
  summary:
    "BF16 arithmetic in device code compiled, unguarded, for a pre-Ampere target the build declares (T4 = sm_75): it runs emulated through float there.",
  check(ctx) {
    // Only targets the project chose: kernel-builder's default list or this machine's GPU do not say the
    // kernel is meant to run on a T4.
    if (ctx.build.targets !== "declared" || ctx.build.targetsDeclared === false) return;
    const low = ctx.targets.filter((t) => t < 80);
    if (low.length === 0) return;
    const idx = FileIndex.of(ctx);
    const sites = bf16Arithmetic(idx, halfDecls(idx, declEnv(ctx)));
    if (sites.length === 0) return;
    const off = archOffRanges(idx, low, ctx.build);
    const withFp16 = fp16Versions(idx);
    const lowText = low.map((t) => `sm_${t}`).join(", ");
    // One finding per function, at its first unguarded BF16 operation; the message counts the rest.
    const byFunction = new Map<number, typeof sites>();
    for (const s of sites) {
      if (inRanges(s.node.startIndex, off) || hasFp16Version(s.fn, withFp16)) continue;
      const list = byFunction.get(s.fn.start);
      if (list) list.push(s);
      else byFunction.set(s.fn.start, [s]);
    }
    for (const list of byFunction.values()) {
      const first = list[0]!;
      const more =
        list.length > 1
          ? ` (and ${list.length - 1} more BF16 operation${list.length > 2 ? "s" : ""} in this function)`
          : "";
      ctx.report({
        node: first.node,
        message: `${first.what} on ${first.kind === "bf16" ? "__nv_bfloat16" : "__nv_bfloat162"}${more} is compiled for ${lowText}, which has no BF16 units: it runs emulated through float there. For T4, instantiate the kernel with __half (FP16 runs natively on sm_75), or guard the BF16 path with \`#if __CUDA_ARCH__ >= 800\`.`,
      });
    }
  },
};
